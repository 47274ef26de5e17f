// Batches computed on threads and taken in order: every item's result is
// the one of its own item, also when the results are computed into batches
// given back, which then hold what earlier items left in them.
#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "OrderedParallel.hpp"

namespace hdtrace::merger::testing {
namespace {

struct ItemResult {
    size_t item = 0;
    std::string text;  // long enough to live on the heap
};

std::string textOf(size_t item) {
    return "the result of item " + std::to_string(item) + " of the ordered computation";
}

struct Counts {
    std::atomic<size_t> computed{0};
    std::atomic<size_t> intoUsedRoom{0};  // results that came with text of an earlier item
};

void takeAll(unsigned jobs, bool givingBack, Counts &counts) {
    constexpr size_t kItems = 1000;
    OrderedParallel<ItemResult> parallel(kItems, 16, jobs, 2, [&counts] {
        return [&counts](size_t item, ItemResult &result) {
            ++counts.computed;
            if (result.text.capacity() > std::string().capacity()) ++counts.intoUsedRoom;
            result.item = item;
            result.text = textOf(item);
        };
    });
    size_t next = 0;
    for (size_t batch = 0; batch < parallel.batchCount(); ++batch) {
        std::vector<ItemResult> results = parallel.take(batch);
        ASSERT_EQ(parallel.firstItemOf(batch), next);
        for (const ItemResult &result : results) {
            ASSERT_EQ(result.item, next);
            ASSERT_EQ(result.text, textOf(next));
            ++next;
        }
        if (givingBack) parallel.giveBack(std::move(results));
    }
    EXPECT_EQ(next, kItems);
    EXPECT_EQ(counts.computed.load(), kItems);
}

TEST(OrderedParallel, BatchesGivenBackAreComputedIntoAgain) {
    for (const unsigned jobs : {1u, 3u}) {
        Counts counts;
        takeAll(jobs, true, counts);
        // Only the batches computed before the first was given back start
        // empty: with one job the first, with three at most the window and
        // the threads' first batches.
        EXPECT_GE(counts.intoUsedRoom.load(), size_t(1000 - 16 * (2 + jobs + 1))) << jobs;
    }
}

TEST(OrderedParallel, BatchesNotGivenBackStartEmpty) {
    for (const unsigned jobs : {1u, 3u}) {
        Counts counts;
        takeAll(jobs, false, counts);
        EXPECT_EQ(counts.intoUsedRoom.load(), size_t(0)) << jobs;
    }
}

}  // namespace
}  // namespace hdtrace::merger::testing
