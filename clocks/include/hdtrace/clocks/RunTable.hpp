// Every top-level call of a run's traces in one table, the rows sorted by
// start time (stably, traces in (rank, thread) order): what the order repair
// works on. The same rows, in the same order, as the Python package's
// Project.to_numpy() (python/hdtrace/table.py).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <hdtrace/reader/Project.hpp>

namespace hdtrace::clocks {

struct RunTrace {
    int32_t rank = 0;
    int32_t thread = 0;
    std::string path;
};

struct RunTable {
    std::vector<std::string> names;  // name code -> call name
    std::vector<int32_t> nameCode, rank, thread, peer, tag, cid, recvPeer, recvTag;
    std::vector<int64_t> startNs, endNs, rid;
    // One entry per <For rid=.../> child: the row of the call holding it, and the rid.
    std::vector<int64_t> completionRow, completionRid;

    size_t rows() const { return nameCode.size(); }
    const std::string &name(size_t row) const { return names[static_cast<size_t>(nameCode[row])]; }
    // Puts the rows in this order (order[k] = the old row of new row k).
    void reorder(const std::vector<size_t> &order);
    // The rows sorted by startNs, stably.
    void sortByStart();
};

struct RunReadOptions {
    // Damaged traces end at their damage; missing traces are left out.
    bool partial = false;
    // Ranks in the traces are local to their communicator (the original
    // implementation's): translated to world ranks through the project.
    bool localRanks = false;
};

// The traces of a project's topology (host, rank, thread), by (rank, thread).
// Throws ReadError for a leaf whose rank or thread is not an integer.
std::vector<RunTrace> traceList(const reader::Project &project);

// Whether the ranks in this project's traces are local to their
// communicator: the original implementation's dialect.
bool ranksAreLocal(const reader::Project &project, const std::vector<RunTrace> &traces);

// Reads the traces (on several threads) into one table sorted by start.
// Throws ReadError on damage (unless partial) and for a missing trace.
RunTable readRunTable(const reader::Project &project, const std::vector<RunTrace> &traces,
                      const RunReadOptions &options);

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
