// A run read into one table: every top-level call of the traces of a
// project, one row each, sorted by start time (stably, the traces in (rank,
// thread) order). What the clocks' order repair works on, and the rows of
// the Python package's Project.to_numpy().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <hdtrace/reader/ColumnMemory.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

namespace hdtrace::reader {

struct RunTrace {
    int32_t rank = 0;
    int32_t thread = 0;
    std::string path;
};

struct RunTable {
    std::vector<std::string> names;  // name code -> call name
    // One row per call; the columns as in EventColumns (EventColumns.hpp),
    // with the rank and thread of the call's trace. In column memory: a
    // run's table is made as the traces' columns are freed, and takes their
    // pages instead of faulting in fresh ones.
    Column<int32_t> nameCode, rank, thread, peer, tag, cid, fid, recvPeer, recvTag;
    Column<int64_t> startNs, endNs, size, offset, rid;
    // One entry per <For rid=.../> child: the row of the call holding it, and the rid.
    std::vector<int64_t> completionRow, completionRid;
    // File_open calls: row, fid, file name.
    std::vector<int64_t> openRow, openFid;
    std::vector<std::string> openName;
    // Why a trace ended early, one entry per damaged trace (a partial read).
    std::vector<std::string> damage;
    // Peers that the project's communicators could not translate to world ranks.
    int64_t untranslatedPeers = 0;

    size_t rows() const { return nameCode.size(); }
    const std::string &name(size_t row) const { return names[static_cast<size_t>(nameCode[row])]; }
    // Puts the rows in this order (order[k] = the old row of new row k);
    // columns left empty stay empty.
    void reorder(const std::vector<size_t> &order);
    // The rows sorted by startNs, stably.
    void sortByStart();
};

struct RunReadOptions {
    // Damaged traces end at their damage (told in RunTable::damage); missing
    // traces are left out.
    bool partial = false;
    // The calls of every trace read (names, time window).
    TraceFilter filter;
    // Ranks in the traces are local to their communicator (the original
    // implementation's): translated to world ranks through the project.
    bool localRanks = false;
};

// The traces of a project's topology (host, rank, thread), by (rank, thread).
// Throws ReadError for a leaf whose rank or thread is not an integer.
std::vector<RunTrace> traceList(const Project &project);

// Whether the ranks in this project's traces are local to their
// communicator: the original implementation's dialect.
bool ranksAreLocal(const Project &project, const std::vector<RunTrace> &traces);

// {cid: world rank of each local rank} for the traces of world rank `rank`.
LocalToWorldTable localToWorldOf(const Project &project, int32_t rank);

// Reads the traces (on every core at once) into one table sorted by start.
// Throws ReadError on damage (unless partial) and for a missing trace.
RunTable readRunTable(const Project &project, const std::vector<RunTrace> &traces,
                      const RunReadOptions &options);

}  // namespace hdtrace::reader
