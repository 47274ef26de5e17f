// A merge of runs that are each in order already, as the calls of one
// thread are in start order: every element once, in the order of before().
// Each run takes the heap once per stretch of its elements that comes before
// every other run's next one, so two traces that take turns call after call
// cost a comparison an element, and traces far apart cost almost nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hdtrace::reader {

// firsts[run]: the run's first element (a number >= 0; -1: an empty run).
// next(run, element): the element after it in its run, -1 after its last.
// before(run, element, otherRun, otherElement): strictly earlier; no two
// elements may compare equal (break ties, by run or by element).
// emit(run, element) for every element, in merged order.
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

}  // namespace hdtrace::reader
