// A run's table put in start order (RunTable::sortByStart): the traces
// merged where each is in order, sorted where one is not, and either way
// the order a stable sort by start gives, every column moved with its row.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/RunTable.hpp>

namespace hdtrace::reader {
namespace {

struct Trace {
    int32_t rank, thread;
};

// rows rows of the given traces, drawn at random and interleaved; each
// trace's starts rise (by 0 to 2 ns, so that starts tie within and across
// traces) unless reversed is one of them. size holds each row's number as
// made, rid its negation, so that a moved row is recognised.
RunTable randomTable(std::mt19937_64 &draw, size_t rows, const std::vector<Trace> &traces,
                     int reversed = -1) {
    RunTable table;
    table.names = {"Send"};
    std::vector<int64_t> clock(traces.size(), 1000);
    std::vector<size_t> traceOfRow(rows);
    for (size_t row = 0; row < rows; ++row) {
        // Stretches of one trace, as a run's rows come.
        traceOfRow[row] = row > 0 && draw() % 3 != 0 ? traceOfRow[row - 1] : draw() % traces.size();
        const size_t trace = traceOfRow[row];
        const int64_t step = static_cast<int64_t>(draw() % 3);
        clock[trace] += static_cast<int>(trace) == reversed ? -step - 1 : step;
        table.nameCode.push_back(0);
        table.rank.push_back(traces[trace].rank);
        table.thread.push_back(traces[trace].thread);
        table.startNs.push_back(clock[trace]);
        table.endNs.push_back(clock[trace] + 5);
        table.size.push_back(static_cast<int64_t>(row));
        table.rid.push_back(-static_cast<int64_t>(row));
    }
    table.completionRow = {0, static_cast<int64_t>(rows) - 1};
    table.completionRid = {7, 8};
    return table;
}

// The rows as made, in the order a stable sort by start gives.
std::vector<size_t> stableOrder(const RunTable &table) {
    std::vector<size_t> order(table.rows());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&table](size_t left, size_t right) {
        return table.startNs[left] < table.startNs[right];
    });
    return order;
}

void expectSortedAs(const RunTable &before, const RunTable &after,
                    const std::vector<size_t> &order) {
    ASSERT_EQ(after.rows(), before.rows());
    std::vector<int64_t> newRow(order.size());
    for (size_t place = 0; place < order.size(); ++place) {
        const size_t row = order[place];
        newRow[row] = static_cast<int64_t>(place);
        ASSERT_EQ(after.size[place], before.size[row]) << "place " << place;
        EXPECT_EQ(after.rid[place], before.rid[row]);
        EXPECT_EQ(after.startNs[place], before.startNs[row]);
        EXPECT_EQ(after.endNs[place], before.endNs[row]);
        EXPECT_EQ(after.rank[place], before.rank[row]);
        EXPECT_EQ(after.thread[place], before.thread[row]);
    }
    ASSERT_EQ(after.completionRow.size(), before.completionRow.size());
    for (size_t index = 0; index < before.completionRow.size(); ++index)
        EXPECT_EQ(after.completionRow[index],
                  newRow[static_cast<size_t>(before.completionRow[index])]);
    EXPECT_TRUE(after.peer.empty()) << "a column left empty stays empty";
}

TEST(RunTable, SortByStartMergesTracesInOrderAsAStableSortWould) {
    std::mt19937_64 draw(11);
    for (const std::vector<Trace> &traces :
         {std::vector<Trace>{{0, 0}}, std::vector<Trace>{{0, 0}, {1, 0}},
          std::vector<Trace>{{0, 0}, {1, 0}, {1, 1}, {2, 0}, {3, 4}}}) {
        const RunTable before = randomTable(draw, 5000, traces);
        RunTable after = before;
        after.sortByStart();
        expectSortedAs(before, after, stableOrder(before));
    }
}

TEST(RunTable, SortByStartSortsATraceOutOfOrder) {
    std::mt19937_64 draw(12);
    const RunTable before = randomTable(draw, 5000, {{0, 0}, {1, 0}, {2, 0}}, /*reversed=*/1);
    RunTable after = before;
    after.sortByStart();
    expectSortedAs(before, after, stableOrder(before));
}

TEST(RunTable, SortByStartWithoutRanksAndThreadsSorts) {
    std::mt19937_64 draw(13);
    const RunTable made = randomTable(draw, 3000, {{0, 0}, {1, 0}});
    RunTable before = made;
    before.rank.clear();
    before.thread.clear();
    RunTable after = before;
    after.sortByStart();
    const std::vector<size_t> order = stableOrder(before);
    ASSERT_TRUE(after.rank.empty());
    for (size_t place = 0; place < order.size(); ++place)
        ASSERT_EQ(after.size[place], before.size[order[place]]) << "place " << place;
}

TEST(RunTable, SortByStartOfAnEmptyTableOrOneInOrderChangesNothing) {
    RunTable empty;
    empty.sortByStart();
    EXPECT_EQ(empty.rows(), 0u);
    std::mt19937_64 draw(14);
    RunTable ordered = randomTable(draw, 1000, {{0, 0}});
    const RunTable before = ordered;
    ordered.sortByStart();
    EXPECT_EQ(ordered.size, before.size);
    EXPECT_EQ(ordered.startNs, before.startNs);
}

}  // namespace
}  // namespace hdtrace::reader
