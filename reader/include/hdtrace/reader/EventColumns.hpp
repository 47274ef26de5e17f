// A trace read straight into columns, one value per top-level call, for the
// numpy table of the Python package: no object per call is built.
//
// peer is the first of toRank, fromRank, root/rootRank, source that the call
// has, as a world rank; tag the first of toTag, fromTag, tag. size is size,
// else sendSize, else recvSize, else the size of a <Data> child (split
// collectives); offset likewise falls back to <Data>.
// Missing values: size, offset, cid, fid and rid are -1 where a call has no
// such attribute; peer and tag are kNoValue32 (MPI uses -1 for wildcards).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <hdtrace/reader/ColumnMemory.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

namespace hdtrace::reader {

constexpr int32_t kNoValue32 = std::numeric_limits<int32_t>::min();

// cid -> world rank of each local rank, for traces whose ranks are local
// to the communicator (the original implementation's).
using LocalToWorldTable = std::unordered_map<int64_t, std::vector<int32_t>>;

struct EventColumns {
    std::vector<std::string> names;  // name code -> call name
    // One row per call (see ColumnMemory.hpp for their memory).
    Column<int32_t> nameCode;
    Column<int64_t> startNs, endNs;
    Column<int64_t> size, offset, rid;
    Column<int32_t> peer, tag, cid, fid;
    // The receive side of Sendrecv and Sendrecv_replace (fromRank, fromTag);
    // kNoValue32 elsewhere. peer/tag hold toRank/toTag for them.
    Column<int32_t> recvPeer, recvTag;
    // Requests completed by Wait/Test calls: one entry per <For rid=.../>.
    Column<int64_t> completionRow, completionRid;
    // File_open calls: row, fid, file name.
    Column<int64_t> openRow, openFid;
    std::vector<std::string> openName;
    // Ranks in attributes that could not be translated (unknown cid or rank).
    int64_t untranslatedPeers = 0;

    size_t rows() const { return nameCode.size(); }
    // Room for calls rows, and as many completions and opens: columns of 2 MB
    // or more are mappings, whose pages cost nothing until written.
    void reserve(size_t calls) {
        for (auto *column : {&startNs, &endNs, &size, &offset, &rid, &completionRow, &completionRid,
                             &openRow, &openFid})
            column->reserve(calls);
        for (auto *column : {&nameCode, &peer, &tag, &cid, &fid, &recvPeer, &recvTag})
            column->reserve(calls);
    }
};

struct ColumnsResult {
    EventColumns columns;
    std::optional<std::string> damage;  // see TraceParser::damage()
    int timeFractionDigits = -1;
    // Why the dialect scanner left this trace to libxml2 (see DialectScanner.hpp);
    // empty when the scanner read it.
    std::optional<std::string> fallback;
};

// Reads the whole trace at path. localToWorld may be null (ranks are world ranks).
// The dialect scanner reads it when it recognises all of it (our writer's and the
// original implementation's traces); anything else goes to libxml2, which gives
// the same columns or the same error (DialectColumns.cpp).
ColumnsResult readEventColumns(const std::string &path, const TraceOptions &options,
                               const LocalToWorldTable *localToWorld);

// libxml2's SAX parser alone: the reference the dialect scanner and the
// compact reader are compared with, and the reader a user may choose.
ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld);

}  // namespace hdtrace::reader
