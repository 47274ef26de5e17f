// SpinLock (mpiwrapper/src/SpinLock.hpp): mutual exclusion under
// contention, also with more threads than CPUs (the waiters yield).
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "SpinLock.hpp"

namespace {

// Threads, started together, add to a counter that is not atomic, a read
// and a write some steps apart (as a registry updates its tables): any two
// threads inside at once lose additions.
void addUnderLock(int threads, int additions) {
    hdtracempi::SpinLock lock;
    volatile int64_t counter = 0;
    volatile int64_t inside = 0;
    int64_t overlaps = 0;
    std::atomic<int> waiting{threads};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&] {
            waiting.fetch_sub(1);
            while (waiting.load() > 0) {
            }
            for (int n = 0; n < additions; ++n) {
                std::lock_guard<hdtracempi::SpinLock> held(lock);
                inside = inside + 1;
                const int64_t before = counter;
                for (volatile int step = 0; step < 8; step = step + 1) {
                }
                counter = before + 1;
                if (inside != 1) ++overlaps;
                inside = inside - 1;
            }
        });
    for (std::thread &worker : workers)
        worker.join();
    EXPECT_EQ(counter, int64_t{threads} * additions);
    EXPECT_EQ(overlaps, 0);
}

TEST(SpinLock, OneThreadAtATimeAndNoAdditionLost) {
    addUnderLock(2, 200000);
}

TEST(SpinLock, MoreThreadsThanCpusAllFinish) {
    const int cpus = static_cast<int>(std::thread::hardware_concurrency());
    addUnderLock(4 * (cpus > 0 ? cpus : 2), 20000);
}

TEST(SpinLock, TakenAgainAfterUnlock) {
    hdtracempi::SpinLock lock;
    for (int n = 0; n < 3; ++n) {
        lock.lock();
        lock.unlock();
    }
    // A second thread gets it once the first lets go.
    lock.lock();
    bool taken = false;
    std::thread other([&] {
        std::lock_guard<hdtracempi::SpinLock> held(lock);
        taken = true;
    });
    lock.unlock();
    other.join();
    EXPECT_TRUE(taken);
}

}  // namespace
