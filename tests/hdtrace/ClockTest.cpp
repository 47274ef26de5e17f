// The writer's clock against clock_gettime(CLOCK_REALTIME): every reading lies
// between a clock_gettime just before and one just after it, through the
// calibration, many re-anchorings, a rate update and gaps of idle time.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/Clock.hpp>

namespace hdtrace {
namespace {

// How far a TSC reading may stray from the bracket: anchor jitter and the
// rate's error over one anchor period are tens of ns; this leaves room for
// a virtual machine's noise without hiding a wrong rate (1 ppm over the 1 s
// the test runs would already be 1,000 ns off without re-anchoring).
constexpr int64_t kToleranceNanoseconds = 500;

struct Deviation {
    int64_t worstBefore = 0;  // how far readings fell below the earlier bracket
    int64_t worstAfter = 0;   // how far readings rose above the later bracket
    long readings = 0;
    long backwards = 0;
};

Deviation compareWithRealtime(Clock &clock, double seconds) {
    Deviation deviation;
    int64_t previous = INT64_MIN;
    const int64_t stop = Timestamp::now().nanoseconds + static_cast<int64_t>(seconds * 1e9);
    for (long i = 0;; ++i) {
        const int64_t before = Timestamp::now().nanoseconds;
        const int64_t reading = clock.now().nanoseconds;
        const int64_t after = Timestamp::now().nanoseconds;
        deviation.worstBefore = std::max(deviation.worstBefore, before - reading);
        deviation.worstAfter = std::max(deviation.worstAfter, reading - after);
        if (reading < previous) ++deviation.backwards;
        previous = reading;
        ++deviation.readings;
        if (after > stop) break;
        // Idle gaps of 0.1 to 5 ms, so that readings also come long after
        // the last anchor, as in a program that computes between calls.
        if (i % 5000 == 4999) usleep(100 + (i / 5000 % 50) * 100);
    }
    return deviation;
}

TEST(Clock, FollowsRealtimeThroughCalibrationAnchorsAndRateUpdates) {
    Clock clock(Clock::Source::Tsc);
    EXPECT_EQ(clock.usesTsc(), Clock::tscUsableHere());
    std::printf("clock source under test: %s\n",
                clock.usesTsc() ? "TSC anchored to CLOCK_REALTIME" : "clock_gettime");
    const Deviation deviation = compareWithRealtime(clock, 1.3);
    std::printf("%ld readings, at most %lld ns below and %lld ns above the bracket\n",
                deviation.readings, static_cast<long long>(deviation.worstBefore),
                static_cast<long long>(deviation.worstAfter));
    EXPECT_GT(deviation.readings, 10000);
    EXPECT_LE(deviation.worstBefore, kToleranceNanoseconds);
    EXPECT_LE(deviation.worstAfter, kToleranceNanoseconds);
    EXPECT_EQ(deviation.backwards, 0);
}

TEST(Clock, RealtimeSourceReadsClockGettimeEveryTime) {
    Clock clock(Clock::Source::Realtime);
    EXPECT_FALSE(clock.usesTsc());
    const Deviation deviation = compareWithRealtime(clock, 0.05);
    EXPECT_LE(deviation.worstBefore, 0);
    EXPECT_LE(deviation.worstAfter, 0);
    EXPECT_EQ(deviation.backwards, 0);
}

std::string firstLine(const std::string &path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

bool cpuHasFlag(const std::string &flag) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("flags", 0) != 0) continue;
        std::istringstream words(line);
        std::string word;
        while (words >> word)
            if (word == flag) return true;
        return false;
    }
    return false;
}

// The decision, checked against what Linux itself reports.
TEST(Clock, TscIsUsedExactlyWhereTheKernelKeepsTimeWithAnInvariantTsc) {
#if defined(__x86_64__)
    const bool expected = cpuHasFlag("constant_tsc") && cpuHasFlag("nonstop_tsc") &&
                          firstLine(
                              "/sys/devices/system/clocksource/clocksource0/"
                              "current_clocksource") == "tsc";
#else
    const bool expected = false;
#endif
    EXPECT_EQ(Clock::tscUsableHere(), expected);
}

}  // namespace
}  // namespace hdtrace
