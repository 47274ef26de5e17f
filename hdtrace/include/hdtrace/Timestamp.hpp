// Timestamp: wall-clock time as integer nanoseconds since the epoch.
#pragma once

#include <time.h>

#include <cstdint>

namespace hdtrace {

struct Timestamp {
    int64_t nanoseconds = 0;

    // CLOCK_REALTIME, so that traces of different hosts share one time line
    // (as far as the hosts' clocks are synchronised). Goes through the vDSO.
    static Timestamp now() {
        timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return Timestamp{static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec};
    }

    int64_t wholeSeconds() const {
        // Floor division, so that times before the epoch round down too.
        int64_t s = nanoseconds / 1000000000;
        return (nanoseconds % 1000000000 < 0) ? s - 1 : s;
    }
};

}  // namespace hdtrace
