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
};

// A TSC reading and a clock_gettime reading taken at (nearly) the same
// moment: of three tries, the one with the narrowest TSC bracket, so that an
// interrupt in the middle of one does not shift the anchor.
ClockPair readPair() {
    ClockPair best{0, 0};
    uint64_t narrowest = UINT64_MAX;
    for (int attempt = 0; attempt < 3; ++attempt) {
        const uint64_t before = __rdtsc();
        const Timestamp time = Timestamp::now();
        const uint64_t after = __rdtsc();
        if (after - before < narrowest) {
            narrowest = after - before;
            best = {before + (after - before) / 2, time.nanoseconds};
        }
    }
    return best;
}

bool kernelClockSourceIsTsc() {
    const int fd =
        ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
    if (fd < 0) return false;
    char name[16] = {};
    const ssize_t length = ::read(fd, name, sizeof name - 1);
    ::close(fd);
    return length == 4 && std::memcmp(name, "tsc\n", 4) == 0;
}

bool detectUsableTsc() {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return false;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    const bool invariant = (edx & (1u << 8)) != 0;  // same rate in every P-/C-state
    // The kernel keeps time with the TSC only when it found it synchronised
    // across CPUs and stable; then so can we.
    return invariant && kernelClockSourceIsTsc();
}
#endif

}  // namespace

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
        const ClockPair pair = readPair();
        const int64_t sinceRateStart = pair.nanoseconds - rateStartNanoseconds_;
        if (sinceRateStart >= (rate_ == 0 ? kCalibrationNanoseconds : kRateNanoseconds) ||
            sinceRateStart < 0) {
            const uint64_t ticks = pair.ticks - rateStartTicks_;
            if (sinceRateStart > 0 && ticks > 0) {
                const uint64_t rate = static_cast<uint64_t>(
                    (static_cast<unsigned __int128>(sinceRateStart) << kRateShift) / ticks);
                if (rate >= kMinRate && rate <= kMaxRate) rate_ = rate;
            }
            rateStartTicks_ = pair.ticks;
            rateStartNanoseconds_ = pair.nanoseconds;
        }
        if (rate_ != 0) {
            anchorTicks_ = pair.ticks;
            anchorNanoseconds_ = pair.nanoseconds;
            reanchorTicks_ = static_cast<uint64_t>(
                (static_cast<unsigned __int128>(kAnchorNanoseconds) << kRateShift) / rate_);
        }
        return monotonic(pair.nanoseconds);
    }
#endif
    return monotonic(Timestamp::now().nanoseconds);
}

}  // namespace hdtrace
