#include "SpinLock.hpp"

#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hdtracempi {

void SpinLock::lockContended() {
    // Waits on plain loads (no cache line taken from the holder) and tries
    // the exchange again only when the lock looks free.
    constexpr int kSpinsBeforeYielding = 128;
    int spins = 0;
    do {
        while (locked_.load(std::memory_order_relaxed)) {
            if (spins < kSpinsBeforeYielding) {
                ++spins;
#if defined(__x86_64__) || defined(__i386__)
                _mm_pause();
#endif
            } else {
                sched_yield();
            }
        }
    } while (locked_.exchange(true, std::memory_order_acquire));
}

}  // namespace hdtracempi
