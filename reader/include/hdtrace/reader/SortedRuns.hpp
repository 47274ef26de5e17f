// A merge of runs that are each in order already, as the calls of one
// thread are in start order: every element once, in the order of before().
// Each run takes the heap once per stretch of its elements that comes before
// every other run's next one, so traces far apart cost almost nothing. Two
// runs left (the two traces of a two-rank run, or the last two of many) are
// merged without the heap: traces that take turns call after call would
// take it at every element.
// TraceChains makes such runs of the rows of a table that interleaves its
// traces.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {

// firsts[run]: the run's first element (a number >= 0; -1: an empty run).
// next(run, element): the element after it in its run, -1 after its last.
// before(run, element, otherRun, otherElement): strictly earlier; no two
// elements may compare equal (break ties, by run or by element).
// emit(run, element) for every element, in merged order.
// The two runs whose next elements are first and second merged to their
// ends, as mergeSortedRuns does.
template <typename Next, typename Before, typename Emit>
void mergeTwoSortedRuns(std::pair<size_t, int64_t> first, std::pair<size_t, int64_t> second,
                        Next &next, Before &before, Emit &emit) {
    if (before(second.first, second.second, first.first, first.second)) std::swap(first, second);
    for (;;) {
        // first's element comes before second's: emit first's stretch.
        auto &[run, element] = first;
        do {
            emit(run, element);
            element = next(run, element);
        } while (element >= 0 && before(run, element, second.first, second.second));
        if (element < 0) break;
        std::swap(first, second);
    }
    for (int64_t element = second.second; element >= 0; element = next(second.first, element))
        emit(second.first, element);
}

template <typename Next, typename Before, typename Emit>
void mergeSortedRuns(const std::vector<int64_t> &firsts, Next next, Before before, Emit emit) {
    using Head = std::pair<size_t, int64_t>;  // (run, its next element)
    const auto later = [&before](const Head &left, const Head &right) {
        return before(right.first, right.second, left.first, left.second);
    };
    std::vector<Head> heads;
    for (size_t run = 0; run < firsts.size(); ++run)
        if (firsts[run] >= 0) heads.emplace_back(run, firsts[run]);
    std::make_heap(heads.begin(), heads.end(), later);
    while (!heads.empty()) {
        if (heads.size() == 2) {
            mergeTwoSortedRuns(heads[0], heads[1], next, before, emit);
            return;
        }
        std::pop_heap(heads.begin(), heads.end(), later);
        auto [run, element] = heads.back();
        heads.pop_back();
        do {
            emit(run, element);
            element = next(run, element);
        } while (element >= 0 && (heads.empty() ||
                                  before(run, element, heads.front().first, heads.front().second)));
        if (element >= 0) {
            heads.emplace_back(run, element);
            std::push_heap(heads.begin(), heads.end(), later);
        }
    }
}

// The rows of a table of several traces, met in the table's order: each row
// chained to the next row of its trace (rank, thread), so that the traces,
// each in order, can be merged.
class TraceChains {
  public:
    explicit TraceChains(size_t rows) { nextRow_.resize(rows); }

    struct Added {
        size_t trace;      // its index, in the order traces are first met
        int64_t previous;  // the trace's row before it; -1: none
    };
    // Row `row` (rows given in order, each once) is of trace (rank, thread).
    Added add(int64_t row, int32_t rank, int32_t thread) {
        const std::pair<int32_t, int32_t> trace{rank, thread};
        // The rows of a trace come in stretches.
        if (firsts_.empty() || trace != lastTrace_) {
            const auto [found, added] = indexOf_.emplace(trace, firsts_.size());
            if (added) {
                firsts_.push_back(row);
                lasts_.push_back(-1);
            }
            lastIndex_ = found->second;
            lastTrace_ = trace;
        }
        int64_t &last = lasts_[lastIndex_];
        const int64_t previous = last;
        if (previous >= 0) nextRow_[static_cast<size_t>(previous)] = row;
        last = row;
        return {lastIndex_, previous};
    }

    // emit(row) for every row, the traces merged in the order of
    // before(row, otherRow) (mergeSortedRuns; no two rows may compare equal).
    template <typename Before, typename Emit>
    void merge(Before before, Emit emit) const {
        mergeSortedRuns(
            firsts_, [this](size_t trace, int64_t row) { return nextOf(trace, row); },
            [&before](size_t, int64_t row, size_t, int64_t otherRow) {
                return before(row, otherRow);
            },
            [&emit](size_t, int64_t row) { emit(row); });
    }

  private:
    // The row after `row` in its trace, -1 after its last.
    int64_t nextOf(size_t trace, int64_t row) const {
        return row == lasts_[trace] ? -1 : nextRow_[static_cast<size_t>(row)];
    }

    std::map<std::pair<int32_t, int32_t>, size_t> indexOf_;
    std::vector<int64_t> firsts_, lasts_;  // per trace, in the order first met
    // In column memory: a table of millions of rows has freed such pages.
    Column<int64_t> nextRow_;  // a trace's last row's is left unset (nextOf)
    std::pair<int32_t, int32_t> lastTrace_;
    size_t lastIndex_ = 0;
};

}  // namespace hdtrace::reader
