// A merge of runs of keys that are each in order already, as the calls of
// one thread are in start order: every element once, in key order, ties
// taken from the earlier run (the order a stable sort of the runs one after
// another gives).
#pragma once

#include <cstddef>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace hdtrace::python {

template <typename Key>
struct SortedRun {
    const Key *keys;
    size_t count;
};

template <typename Key>
bool inOrder(const SortedRun<Key> &run) {
    for (size_t index = 1; index < run.count; ++index)
        if (run.keys[index] < run.keys[index - 1]) return false;
    return true;
}

// emit(run, index) for every element of every run, in merged order.
template <typename Key, typename Emit>
void mergeSortedRuns(const std::vector<SortedRun<Key>> &runs, Emit emit) {
    // (next key, run): the earlier run first on equal keys.
    using Head = std::pair<Key, size_t>;
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
    std::vector<size_t> next(runs.size(), 0);
    for (size_t run = 0; run < runs.size(); ++run)
        if (runs[run].count > 0) heads.emplace(runs[run].keys[0], run);
    while (!heads.empty()) {
        const size_t run = heads.top().second;
        const SortedRun<Key> &from = runs[run];
        heads.pop();
        // The run's elements that come before every other run's next one
        // go out together, without the heap.
        const bool alone = heads.empty();
        size_t &index = next[run];
        do {
            emit(run, index);
            ++index;
        } while (index < from.count && (alone || Head{from.keys[index], run} < heads.top()));
        if (index < from.count) heads.emplace(from.keys[index], run);
    }
}

}  // namespace hdtrace::python
