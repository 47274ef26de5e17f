// Clock: CLOCK_REALTIME in nanoseconds, at a fraction of clock_gettime's cost.
//
// Every traced call reads the clock twice, and right after a system call a
// clock_gettime costs 25-50 ns here (the vDSO orders its TSC read behind
// everything in flight and touches its own data page). Where the kernel
// itself keeps time from an invariant TSC (clock source `tsc`, or a virtual
// machine's `kvm-clock`, which scales the TSC), this clock reads the TSC
// directly and maps it onto CLOCK_REALTIME:
//
//   time = anchor time + (TSC - anchor TSC) * rate
//
// The anchor is a (TSC, clock_gettime) pair taken again every millisecond,
// so a clock step or NTP slewing shows up within 1 ms; the rate is measured
// over about a second between anchors. Until the first rate is known (the
// first 10 ms), and wherever the TSC is not usable, every reading is a plain
// clock_gettime(CLOCK_REALTIME). Readings of one Clock do not go backwards,
// except when the system clock itself is stepped back.
//
// Each new anchor also checks the TSC: where the old anchor and rate miss
// clock_gettime by more than a few microseconds (a TSC that jumped or
// changed its rate, as after a virtual machine moved, or one that differs
// between CPUs), the rate is measured afresh, with clock_gettime meanwhile;
// a Clock whose TSC strays three times reads clock_gettime from then on.
//
// One Clock belongs to one thread (each TraceWriter has its own): no locks.
#pragma once

#include <climits>
#include <cstdint>

#include <hdtrace/Timestamp.hpp>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace hdtrace {

class Clock {
  public:
    enum class Source {
        Realtime,  // clock_gettime(CLOCK_REALTIME) for every reading
        Tsc,       // the TSC, anchored to CLOCK_REALTIME (falls back where unusable)
    };
    explicit Clock(Source source = Source::Tsc);

    __attribute__((always_inline)) Timestamp now() {
#if defined(__x86_64__)
        if (rate_ != 0) {
            const uint64_t elapsed = __rdtsc() - anchorTicks_;
            if (elapsed < reanchorTicks_)
                return monotonic(anchorNanoseconds_ +
                                 static_cast<int64_t>(ticksToNanoseconds(elapsed)));
        }
#endif
        return slowNow();
    }

    // Whether readings come from the TSC (once calibrated) or clock_gettime.
    bool usesTsc() const {
        return tscUsable_;
    }
    // Times the TSC strayed from clock_gettime at a new anchor (see above).
    int strays() const {
        return strays_;
    }
    // Whether this machine's TSC can serve as the clock: x86-64, invariant
    // TSC, and the kernel's current clock source is computed from it
    // ("tsc" or "kvm-clock").
    static bool tscUsableHere();
    // Whether the kernel's clock source of that name is computed from the TSC.
    static bool clockSourceFollowsTsc(const char *name);

    // How far a new anchor may lie from where the old anchor and rate put
    // it: 5 us, plus 1/1024 of the time since the old anchor for NTP's
    // slewing (at most 500 ppm) and the rate's own error over a long gap.
    static int64_t strayToleranceNanoseconds(int64_t sinceAnchorNanoseconds) {
        return kStrayNanoseconds + (sinceAnchorNanoseconds >> 10);
    }
    static constexpr int64_t kStrayNanoseconds = 5000;
    // A pair whose bracket is wider is not taken once the rate is known:
    // its clock_gettime could lie 1 us from the bracket's middle, and two
    // such errors stay within kStrayNanoseconds.
    static constexpr int64_t kMaxPairWidthNanoseconds = 2000;
    static constexpr int kMaxStrays = 3;

  private:
    static constexpr int kRateShift = 32;  // rate_: nanoseconds per tick, fixed point
    // A reading behind the previous one by less than this is re-anchoring
    // noise and is held at the previous value; a larger step back is a step
    // of the system clock and is passed on, as clock_gettime would show it.
    static constexpr int64_t kMaxHeldBackNanoseconds = 1000000;

    __attribute__((always_inline)) Timestamp monotonic(int64_t nanoseconds) {
        if (nanoseconds < lastNanoseconds_ &&
            lastNanoseconds_ - nanoseconds < kMaxHeldBackNanoseconds)
            nanoseconds = lastNanoseconds_;
        lastNanoseconds_ = nanoseconds;
        return Timestamp{nanoseconds};
    }
    // A span of ticks in nanoseconds at the current rate; wide, so that a
    // TSC that jumped far still compares right.
    __attribute__((always_inline)) unsigned __int128 ticksToNanoseconds(uint64_t ticks) const {
        return (static_cast<unsigned __int128>(ticks) * rate_) >> kRateShift;
    }
    // Calibrating, re-anchoring, or no usable TSC: reads clock_gettime.
    Timestamp slowNow();
    // A new (TSC, clock_gettime) pair, the clock_gettime read between two
    // TSC readings widthTicks apart: the rate measured or kept, the TSC
    // checked against the old anchor, the anchor renewed.
    void takePair(uint64_t ticks, int64_t nanoseconds, uint64_t widthTicks);
    friend struct ClockProbe;  // the tests' way to give takePair chosen pairs

    // The hot fields first, in one cache line.
    uint64_t anchorTicks_ = 0;
    int64_t anchorNanoseconds_ = 0;
    uint64_t rate_ = 0;  // 0 until calibrated
    uint64_t reanchorTicks_ = 0;
    int64_t lastNanoseconds_ = INT64_MIN;
    bool tscUsable_ = false;
    // Start of the interval the next rate is measured over.
    uint64_t rateStartTicks_ = 0;
    int64_t rateStartNanoseconds_ = 0;
    int strays_ = 0;
};

}  // namespace hdtrace
