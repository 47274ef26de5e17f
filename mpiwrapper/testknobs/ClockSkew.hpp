// ClockSkew: a deliberate error of a process's clock, for testing only
// (HDTRACE_CLOCK_SKEW, docs/user/clocks.md). The wrapper writes and
// measures every time through it (TestHooks.hpp, ClockShift), so that one
// machine can emulate hosts whose clocks disagree and drift apart:
//
//   skewed(t) = t + offset + drift * (t - reference)
//
// reference is the true time at which the skewed clock is off by exactly
// offset (the wrapper uses the start of MPI_Init). Strictly increasing for
// any drift above -10^6 ppm, so the order of a trace's times is kept.
#pragma once

#include <cstdint>

namespace hdtracempi {

struct ClockSkew {
    int64_t offsetNanoseconds = 0;
    double driftPpm = 0;
    int64_t referenceNanoseconds = 0;

    bool active() const { return offsetNanoseconds != 0 || driftPpm != 0; }
    int64_t apply(int64_t nanoseconds) const {
        const double drift =
            static_cast<double>(nanoseconds - referenceNanoseconds) * driftPpm * 1e-6;
        // Rounded to the nearest nanosecond without libm (std::llround would
        // make every program linked with libhdtracempi.a need -lm).
        return nanoseconds + offsetNanoseconds +
               static_cast<int64_t>(drift < 0 ? drift - 0.5 : drift + 0.5);
    }
};

}  // namespace hdtracempi
