// The writer's clock against clock_gettime(CLOCK_REALTIME): every reading lies
// between a clock_gettime just before and one just after it, through the
// calibration, many re-anchorings, a rate update and gaps of idle time; and
// its check of the TSC at each new anchor, given pairs of a TSC that jumps,
// changes its rate or goes back.
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

// Gives a Clock chosen (TSC, clock_gettime) pairs, as slowNow would read them.
struct ClockProbe {
    static void take(Clock &clock, uint64_t ticks, int64_t nanoseconds, uint64_t widthTicks = 80) {
        clock.takePair(ticks, nanoseconds, widthTicks);
    }
    static int64_t anchorNanoseconds(const Clock &clock) { return clock.anchorNanoseconds_; }
    static uint64_t rate(const Clock &clock) { return clock.rate_; }
    static void makeUsable(Clock &clock) { clock.tscUsable_ = true; }
};

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
    const std::string source =
        firstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    const bool expected = cpuHasFlag("constant_tsc") && cpuHasFlag("nonstop_tsc") &&
                          (source == "tsc" || source == "kvm-clock");
#else
    const bool expected = false;
#endif
    EXPECT_EQ(Clock::tscUsableHere(), expected);
}

TEST(Clock, ClockSourcesComputedFromTheTscAreTheOnesTrusted) {
    EXPECT_TRUE(Clock::clockSourceFollowsTsc("tsc"));
    EXPECT_TRUE(Clock::clockSourceFollowsTsc("kvm-clock"));
    for (const char *other :
         {"hpet", "acpi_pm", "jiffies", "xen", "hyperv_clocksource_tsc_page", "", "tsc2", "kvm"})
        EXPECT_FALSE(Clock::clockSourceFollowsTsc(other)) << other;
}

// A TSC of 2 ticks per ns, as pairs taken every millisecond from t0 on.
constexpr uint64_t kTicksPerNanosecond = 2;
constexpr int64_t kMillisecond = 1000000;
constexpr uint64_t kHalfNanosecondRate = uint64_t(1) << 31;  // 0.5 ns a tick, fixed point

struct PairedClock {
    Clock clock{Clock::Source::Tsc};
    uint64_t ticks = 1000;
    int64_t nanoseconds = 1700000000LL * 1000000000LL;
    PairedClock() {
        ClockProbe::makeUsable(clock);
        ClockProbe::take(clock, ticks, nanoseconds);
    }
    // Time and TSC moving on together, the TSC off by tickError at the end.
    void advance(int64_t by, int64_t tickError = 0) {
        nanoseconds += by;
        ticks += static_cast<uint64_t>(by) * kTicksPerNanosecond + static_cast<uint64_t>(tickError);
        ClockProbe::take(clock, ticks, nanoseconds);
    }
    void calibrate() {
        for (int step = 0; step < 10; ++step)
            advance(kMillisecond + 1);  // the first rate after 10 ms
        ASSERT_EQ(ClockProbe::rate(clock), kHalfNanosecondRate);
    }
};

TEST(Clock, ATscThatKeepsItsRateIsNeverCountedAsStraying) {
    PairedClock paired;
    paired.calibrate();
    for (int step = 0; step < 3000; ++step)  // through two rate updates
        paired.advance(kMillisecond);
    // NTP slewing at its 500 ppm limit, and a second of idle time.
    for (int step = 0; step < 100; ++step)
        paired.advance(kMillisecond, -1000);  // 500 ns a millisecond, in ticks
    paired.advance(1000 * kMillisecond, 2 * 400000);
    EXPECT_EQ(paired.clock.strays(), 0);
    EXPECT_NE(ClockProbe::rate(paired.clock), 0u);
    EXPECT_TRUE(paired.clock.usesTsc());
}

TEST(Clock, ATscThatJumpsOrChangesItsRateIsMeasuredAfresh) {
    PairedClock paired;
    paired.calibrate();
    // Forward by 20 us: within the anchor's span, so the reading itself would
    // not notice; the next anchor does.
    paired.advance(kMillisecond, 2 * 20000);
    EXPECT_EQ(paired.clock.strays(), 1);
    EXPECT_EQ(ClockProbe::rate(paired.clock), 0u);  // clock_gettime until measured again
    paired.calibrate();
    EXPECT_TRUE(paired.clock.usesTsc());
    // 1 % faster for a millisecond: 10 us off.
    paired.advance(kMillisecond, 2 * 10000);
    EXPECT_EQ(paired.clock.strays(), 2);
    EXPECT_EQ(ClockProbe::rate(paired.clock), 0u);
    paired.calibrate();
    // Just within the tolerance, then just beyond it.
    paired.advance(kMillisecond, 2 * (Clock::strayToleranceNanoseconds(kMillisecond) - 10));
    EXPECT_EQ(paired.clock.strays(), 2);
    paired.advance(kMillisecond, 2 * (Clock::strayToleranceNanoseconds(kMillisecond) + 10));
    EXPECT_EQ(paired.clock.strays(), 3);
    // Three strays: clock_gettime from then on, whatever the pairs say.
    EXPECT_FALSE(paired.clock.usesTsc());
    const Deviation deviation = compareWithRealtime(paired.clock, 0.02);
    EXPECT_LE(deviation.worstBefore, 0);
    EXPECT_LE(deviation.worstAfter, 0);
}

TEST(Clock, APairTakenInAWideBracketIsNotTakenNorCounted) {
    PairedClock paired;
    paired.calibrate();
    const int64_t anchor = ClockProbe::anchorNanoseconds(paired.clock);
    // 100 us off, but read between TSC readings 4 us apart.
    paired.nanoseconds += kMillisecond;
    paired.ticks += kMillisecond * kTicksPerNanosecond + 2 * 100000;
    ClockProbe::take(paired.clock, paired.ticks, paired.nanoseconds, 2 * 4000);
    EXPECT_EQ(paired.clock.strays(), 0);
    EXPECT_EQ(ClockProbe::anchorNanoseconds(paired.clock), anchor);
    EXPECT_EQ(ClockProbe::rate(paired.clock), kHalfNanosecondRate);
    // The same pair in a narrow bracket is a stray.
    ClockProbe::take(paired.clock, paired.ticks, paired.nanoseconds);
    EXPECT_EQ(paired.clock.strays(), 1);
}

TEST(Clock, ATscThatGoesBackStrays) {
    PairedClock paired;
    paired.calibrate();
    paired.nanoseconds += kMillisecond;
    paired.ticks -= 5000;
    ClockProbe::take(paired.clock, paired.ticks, paired.nanoseconds);
    EXPECT_EQ(paired.clock.strays(), 1);
    EXPECT_EQ(ClockProbe::rate(paired.clock), 0u);
}

}  // namespace
}  // namespace hdtrace
