// forEachOnEveryCore: every item once, the first failure rethrown, and as
// many threads as the process's CPU affinity allows (on one core, the items
// in order on the calling thread).
#include <sched.h>

#include <atomic>
#include <set>
#include <stdexcept>
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

  private:
    cpu_set_t saved_;
};

TEST(EveryCore, UsableCoresFollowTheAffinity) {
    AffinityGuard guard;
    EXPECT_EQ(usableCores(), static_cast<unsigned>(CPU_COUNT(&guard.saved())));
    int first = 0;
    while (!CPU_ISSET(first, &guard.saved()))
        ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    EXPECT_EQ(usableCores(), 1u);
}

TEST(EveryCore, OneCoreRunsTheItemsOnTheCallingThreadInOrder) {
    AffinityGuard guard;
    int first = 0;
    while (!CPU_ISSET(first, &guard.saved()))
        ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
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
    std::atomic<size_t> ran{0};
    EXPECT_THROW(forEachOnEveryCore(100000,
                                    [&](size_t index) {
                                        ++ran;
                                        if (index == 10) throw std::runtime_error("item 10");
                                    }),
                 std::runtime_error);
    EXPECT_LT(ran.load(), 100000u);
}

}  // namespace
}  // namespace hdtrace::reader
