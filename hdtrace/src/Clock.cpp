#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include <hdtrace/Clock.hpp>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace hdtrace {
namespace {

constexpr int64_t kCalibrationNanoseconds = 10000000;  // the first rate, after 10 ms
constexpr int64_t kAnchorNanoseconds = 1000000;        // a new anchor every 1 ms
constexpr int64_t kRateNanoseconds = 1000000000;       // a new rate every second
// Plausible nanoseconds per tick (TSCs run at 0.25 to 10 GHz), as fixed
// point: a rate outside was measured across a step of the system clock.
constexpr uint64_t kMinRate = (uint64_t(1) << 32) / 10;
constexpr uint64_t kMaxRate = uint64_t(4) << 32;

#if defined(__x86_64__)
struct ClockPair {
    uint64_t ticks;
    int64_t nanoseconds;
    uint64_t widthTicks;  // of the TSC bracket around the clock_gettime
};

// A TSC reading and a clock_gettime reading taken at (nearly) the same
// moment: of three tries, the one with the narrowest TSC bracket, so that an
// interrupt in the middle of one does not shift the anchor.
ClockPair readPair() {
    ClockPair best{0, 0, UINT64_MAX};
    for (int attempt = 0; attempt < 3; ++attempt) {
        const uint64_t before = __rdtsc();
        const Timestamp time = Timestamp::now();
        const uint64_t after = __rdtsc();
        if (after - before < best.widthTicks)
            best = {before + (after - before) / 2, time.nanoseconds, after - before};
    }
    return best;
}

bool kernelClockFollowsTsc() {
    const int fd =
        ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
    if (fd < 0) return false;
    char name[32] = {};
    const ssize_t length = ::read(fd, name, sizeof name - 1);
    ::close(fd);
    if (length <= 0) return false;
    if (char *newline = std::strchr(name, '\n')) *newline = '\0';
    return Clock::clockSourceFollowsTsc(name);
}

bool detectUsableTsc() {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return false;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    const bool invariant = (edx & (1u << 8)) != 0;  // same rate in every P-/C-state
    // The kernel keeps time from the TSC only when it found it synchronised
    // across CPUs and stable (or the hypervisor said so); then so can we.
    return invariant && kernelClockFollowsTsc();
}
#endif

}  // namespace

bool Clock::clockSourceFollowsTsc(const char *name) {
    // kvm-clock is the TSC scaled by the hypervisor's factors; the rest
    // (hpet, acpi_pm, jiffies, xen, hyperv) are not checked here: they stay
    // on clock_gettime.
    return std::strcmp(name, "tsc") == 0 || std::strcmp(name, "kvm-clock") == 0;
}

bool Clock::tscUsableHere() {
#if defined(__x86_64__)
    static const bool usable = detectUsableTsc();
    return usable;
#else
    return false;
#endif
}

Clock::Clock(Source source) : tscUsable_(source == Source::Tsc && tscUsableHere()) {
#if defined(__x86_64__)
    if (tscUsable_) {
        const ClockPair start = readPair();
        rateStartTicks_ = start.ticks;
        rateStartNanoseconds_ = start.nanoseconds;
    }
#endif
}

Timestamp Clock::slowNow() {
#if defined(__x86_64__)
    if (tscUsable_) {
        if (rate_ == 0) {
            // Calibrating: until the rate's interval is over, one
            // clock_gettime serves, not the three of a pair.
            const int64_t nanoseconds = Timestamp::now().nanoseconds;
            const int64_t sinceRateStart = nanoseconds - rateStartNanoseconds_;
            if (sinceRateStart >= 0 && sinceRateStart < kCalibrationNanoseconds)
                return monotonic(nanoseconds);
        }
        const ClockPair pair = readPair();
        takePair(pair.ticks, pair.nanoseconds, pair.widthTicks);
        return monotonic(pair.nanoseconds);
    }
#endif
    return monotonic(Timestamp::now().nanoseconds);
}

void Clock::takePair(uint64_t ticks, int64_t nanoseconds, uint64_t widthTicks) {
    if (rate_ != 0) {
        // Every try of the pair was interrupted: its clock_gettime may lie
        // anywhere in a wide bracket. The anchor stays; the next reading
        // tries again.
        if (ticksToNanoseconds(widthTicks) >
            static_cast<unsigned __int128>(kMaxPairWidthNanoseconds))
            return;
        // Where the anchor about to be replaced puts this pair's TSC: a miss
        // beyond the tolerance is a TSC that jumped, changed its rate or
        // differs on this CPU, and its readings cannot be trusted as they are.
        const int64_t since = nanoseconds - anchorNanoseconds_;
        bool strayed = ticks < anchorTicks_;
        if (!strayed) {
            const __int128 miss =
                static_cast<__int128>(ticksToNanoseconds(ticks - anchorTicks_)) - since;
            const int64_t tolerance = strayToleranceNanoseconds(since < 0 ? -since : since);
            strayed = miss > tolerance || miss < -tolerance;
        }
        if (strayed) {
            // Measured afresh from this pair on; clock_gettime meanwhile.
            ++strays_;
            rate_ = 0;
            rateStartTicks_ = ticks;
            rateStartNanoseconds_ = nanoseconds;
            if (strays_ >= kMaxStrays) tscUsable_ = false;
            return;
        }
    }
    const int64_t sinceRateStart = nanoseconds - rateStartNanoseconds_;
    if (sinceRateStart >= (rate_ == 0 ? kCalibrationNanoseconds : kRateNanoseconds) ||
        sinceRateStart < 0) {
        const uint64_t elapsedTicks = ticks - rateStartTicks_;
        if (sinceRateStart > 0 && ticks > rateStartTicks_) {
            // Compared before narrowing: a pair across a jump may give any rate.
            const unsigned __int128 rate =
                (static_cast<unsigned __int128>(sinceRateStart) << kRateShift) / elapsedTicks;
            if (rate >= kMinRate && rate <= kMaxRate) rate_ = static_cast<uint64_t>(rate);
        }
        rateStartTicks_ = ticks;
        rateStartNanoseconds_ = nanoseconds;
    }
    if (rate_ != 0) {
        anchorTicks_ = ticks;
        anchorNanoseconds_ = nanoseconds;
        reanchorTicks_ = static_cast<uint64_t>(
            (static_cast<unsigned __int128>(kAnchorNanoseconds) << kRateShift) / rate_);
    }
}

}  // namespace hdtrace
