// forEachOnEveryCore: every item once, the first failure rethrown, and as
// many threads as the process's CPU affinity allows (on one core, the items
// in order on the calling thread). forEachOnEveryCoreInOrder: products
// placed in order and finished after it, several at once, at most one
// waiting per thread, failures of any step rethrown without a thread left
// waiting.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/EveryCore.hpp>

namespace hdtrace::reader {
namespace {

// Restores the thread's affinity when the test ends.
class AffinityGuard {
  public:
    AffinityGuard() { sched_getaffinity(0, sizeof saved_, &saved_); }
    ~AffinityGuard() { sched_setaffinity(0, sizeof saved_, &saved_); }
    const cpu_set_t &saved() const { return saved_; }
    // Leaves the thread on the first core it was allowed, alone.
    void keepOneCore() const {
        int first = 0;
        while (!CPU_ISSET(first, &saved_))
            ++first;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    }

  private:
    cpu_set_t saved_;
};

TEST(EveryCore, UsableCoresFollowTheAffinity) {
    AffinityGuard guard;
    EXPECT_EQ(usableCores(), static_cast<unsigned>(CPU_COUNT(&guard.saved())));
    guard.keepOneCore();
    EXPECT_EQ(usableCores(), 1u);
}

TEST(EveryCore, OneCoreRunsTheItemsOnTheCallingThreadInOrder) {
    AffinityGuard guard;
    guard.keepOneCore();
    std::vector<size_t> order;
    std::set<std::thread::id> threads;
    forEachOnEveryCore(50, [&](size_t index) {
        order.push_back(index);
        threads.insert(std::this_thread::get_id());
    });
    std::vector<size_t> expected;
    for (size_t index = 0; index < 50; ++index)
        expected.push_back(index);
    EXPECT_EQ(order, expected);
    EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(EveryCore, EveryItemOnce) {
    constexpr size_t kItems = 2000;
    std::vector<std::atomic<int>> runs(kItems);
    forEachOnEveryCore(kItems, [&](size_t index) { ++runs[index]; });
    for (size_t index = 0; index < kItems; ++index)
        EXPECT_EQ(runs[index].load(), 1) << index;
}

TEST(EveryCore, TheFirstFailureIsRethrownAndStopsLaterItems) {
    // Each item takes a while: the throw's unwinding (the process's first
    // can take a millisecond) must not give the other cores time to run
    // every item, or the test would say nothing of the stop.
    std::atomic<size_t> ran{0};
    EXPECT_THROW(forEachOnEveryCore(100000,
                                    [&](size_t index) {
                                        ++ran;
                                        if (index == 10) throw std::runtime_error("item 10");
                                        std::this_thread::sleep_for(std::chrono::microseconds(20));
                                    }),
                 std::runtime_error);
    EXPECT_LT(ran.load(), 100000u);
}

// A product that counts how many of its kind are alive.
class Counted {
  public:
    Counted(size_t index, std::atomic<int> &alive, std::atomic<int> &mostAlive)
        : index_(index), alive_(&alive) {
        const int now = ++alive;
        int most = mostAlive.load();
        while (now > most && !mostAlive.compare_exchange_weak(most, now)) {
        }
    }
    Counted(Counted &&other) noexcept : index_(other.index_), alive_(other.alive_) {
        other.alive_ = nullptr;
    }
    Counted(const Counted &) = delete;
    ~Counted() {
        if (alive_) --*alive_;
    }
    size_t index() const { return index_; }

  private:
    size_t index_;
    std::atomic<int> *alive_;
};

TEST(EveryCoreInOrder, PlacesInOrderThenFinishesWithOneProductPerThreadAtMost) {
    constexpr size_t kItems = 3000;
    std::atomic<int> alive{0}, mostAlive{0};
    std::vector<size_t> placed;
    std::vector<std::atomic<int>> finished(kItems);
    std::atomic<size_t> wrongOrder{0};
    forEachOnEveryCoreInOrder(
        kItems,
        [&](size_t index) {
            // Uneven work, so that later items are often produced first.
            volatile size_t spin = 0;
            for (size_t step = 0; step < (index % 7) * 2000; ++step)
                spin = spin + step;
            return Counted(index, alive, mostAlive);
        },
        [&](size_t index, Counted &product) {
            EXPECT_EQ(product.index(), index);
            placed.push_back(index);  // one item placed at a time: no lock needed
        },
        [&](size_t index, Counted product) {
            EXPECT_EQ(product.index(), index);
            // Placed before it is finished (placed only grows, in order).
            if (finished[index]++ != 0) ++wrongOrder;
        });
    std::vector<size_t> expected(kItems);
    for (size_t index = 0; index < kItems; ++index)
        expected[index] = index;
    EXPECT_EQ(placed, expected);
    for (size_t index = 0; index < kItems; ++index)
        EXPECT_EQ(finished[index].load(), 1) << index;
    EXPECT_EQ(wrongOrder.load(), 0u);
    EXPECT_EQ(alive.load(), 0);
    EXPECT_GE(mostAlive.load(), 1);
    EXPECT_LE(mostAlive.load(), static_cast<int>(usableCores()));
}

TEST(EveryCoreInOrder, FinishesOfSeveralItemsRunAtOnce) {
    if (usableCores() < 2) GTEST_SKIP() << "one core: the items finish one after the other";
    // The first item's finish waits until the second item's has started: it
    // would wait for ever if finishing were one item at a time.
    std::atomic<bool> secondStarted{false};
    forEachOnEveryCoreInOrder(
        2, [](size_t index) { return index; }, [](size_t, size_t &) {},
        [&](size_t index, size_t) {
            if (index == 1) {
                secondStarted = true;
                return;
            }
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (!secondStarted && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
            EXPECT_TRUE(secondStarted.load()) << "the second item did not finish beside the first";
        });
}

// A failure in any step at item 50 ends the loop with that failure: no
// thread is left waiting for a turn, and no item after it is placed.
TEST(EveryCoreInOrder, AFailureInAnyStepStopsEveryThread) {
    constexpr size_t kFailing = 50;
    for (const std::string step : {"produce", "place", "finish"}) {
        std::atomic<size_t> placed{0}, finished{0};
        const auto failHere = [&](const char *name, size_t index) {
            if (step == name && index == kFailing) throw std::runtime_error(step);
        };
        try {
            forEachOnEveryCoreInOrder(
                100000,
                [&](size_t index) {
                    failHere("produce", index);
                    return index;
                },
                [&](size_t index, size_t &product) {
                    EXPECT_EQ(index, product);
                    failHere("place", index);
                    ++placed;
                },
                [&](size_t index, size_t) {
                    failHere("finish", index);
                    ++finished;
                });
            ADD_FAILURE() << step << ": no failure came out";
        } catch (const std::runtime_error &failure) {
            EXPECT_EQ(failure.what(), step);
        }
        if (step == "place")  // every item before it was placed first
            EXPECT_EQ(placed.load(), kFailing);
        else if (step == "produce")  // items before it may give up their turn
            EXPECT_LE(placed.load(), kFailing);
        else
            EXPECT_LT(finished.load(), 100000u);
    }
}

}  // namespace
}  // namespace hdtrace::reader
