// The run table the clocks work on is the reader's (hdtrace/reader/RunTable.hpp):
// every top-level call of a run in one table sorted by start. Here, what
// the order repair adds to it: where to find a trace's communicators.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/RunTable.hpp>

namespace hdtrace::clocks {

using reader::ranksAreLocal;
using reader::readRunTable;
using reader::RunReadOptions;
using reader::RunTable;
using reader::RunTrace;
using reader::traceList;

// Where to find a communicator of the project from a trace's (world rank, cid).
class CommunicatorIndex {
  public:
    explicit CommunicatorIndex(const reader::Project &project);
    // The communicator's position in the project's list, or -1.
    int64_t find(int64_t worldRank, int64_t cid) const;
    size_t size(int64_t index) const { return sizes_[static_cast<size_t>(index)]; }

  private:
    std::unordered_map<uint64_t, int64_t> byRankAndCid_;
    std::vector<size_t> sizes_;
};

}  // namespace hdtrace::clocks
