#include "InitStraddle.hpp"

#include <time.h>

#include <cstdlib>
#include <cstring>

namespace hdtracempi {
namespace {

constexpr int64_t kSecond = 1000000000;

bool straddleRequested() {
    const char *value = std::getenv("HDTRACE_TEST_INIT_STRADDLE");
    return value && std::strcmp(value, "1") == 0;
}

void sleepNanoseconds(int64_t nanoseconds) {
    timespec pause{static_cast<time_t>(nanoseconds / kSecond),
                   static_cast<long>(nanoseconds % kSecond)};
    while (::nanosleep(&pause, &pause) != 0) {
    }
}

}  // namespace

void straddleBeforeInit() {
    if (!straddleRequested()) return;
    // Within a second, the window [997 ms, 999 ms): at least 1 ms before the
    // boundary, so that the start is read before it.
    constexpr int64_t kFrom = 997000000, kTo = 999000000;
    for (;;) {
        const int64_t intoSecond = hdtrace::Timestamp::now().nanoseconds % kSecond;
        if (intoSecond >= kFrom && intoSecond < kTo) return;
        const int64_t wait = intoSecond < kFrom ? kFrom - intoSecond : kSecond - intoSecond + kFrom;
        sleepNanoseconds(wait);
    }
}

void straddleBeforeTrace(hdtrace::Timestamp initStart) {
    if (!straddleRequested()) return;
    while (hdtrace::Timestamp::now().wholeSeconds() <= initStart.wholeSeconds())
        sleepNanoseconds(1000000);
}

}  // namespace hdtracempi
