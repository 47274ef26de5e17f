// Every call of a trace at every depth, as columns: the top-level calls and
// the calls of their <Nested> blocks (the POSIX and stdio calls an MPI call
// made), each with the row of the call that holds it. The layer and file
// statistics read it instead of walking events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/reader/ColumnMemory.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

namespace hdtrace::reader {

// Rows in pre-order: a call's row, then the rows of the calls nested in it.
// Numbers a call does not carry are -1. The row columns are in column
// memory (ColumnMemory.hpp): a tree of millions of rows takes its pages a
// huge page at a time, or reuses what an earlier read freed.
struct CallTree {
    std::vector<std::string> names;  // the distinct call names; nameCode indexes them
    Column<int32_t> nameCode;
    Column<int8_t> depth;     // 0: a top-level call
    Column<int64_t> parent;   // the row of the call whose block holds it; -1 at depth 0
    Column<int64_t> topRow;   // the top-level call's number in the trace (0, 1, ...)
    Column<int64_t> startNs;  // absolute nanoseconds
    Column<int64_t> endNs;
    Column<int32_t> fid;
    Column<int64_t> offset;
    Column<int64_t> size;
    Column<int64_t> asked;     // a C library call's bytes asked for
    Column<uint8_t> failed;    // it carries an errno
    Column<int64_t> dataSize;  // a split collective's <Data> child
    Column<int64_t> dataOffset;
    // The calls that open a file (File_open), with the id and the name they gave.
    std::vector<int64_t> openRow;
    std::vector<int32_t> openFid;
    std::vector<std::string> openName;

    size_t rows() const { return nameCode.size(); }
};

// Calls visit(column) on each column with a value per row (not names and
// not the opens), for work that treats them all alike.
template <class Visit>
void forEachRowColumn(CallTree &tree, Visit visit) {
    visit(tree.nameCode);
    visit(tree.depth);
    visit(tree.parent);
    visit(tree.topRow);
    visit(tree.startNs);
    visit(tree.endNs);
    visit(tree.fid);
    visit(tree.offset);
    visit(tree.size);
    visit(tree.asked);
    visit(tree.failed);
    visit(tree.dataSize);
    visit(tree.dataOffset);
}

struct CallTreeResult {
    CallTree tree;
    std::optional<std::string> damage;  // where a partial read stopped
};

// The row columns a read fills.
enum class TreeColumns {
    All,
    // nameCode, depth and size only; the other row columns and the opens
    // stay empty. For sums of bytes by call: a fresh process pays for every
    // page of column memory it writes (the kernel zeroes it), and the other
    // ten columns are seven eighths of a row.
    NamesDepthsSizes,
};

// Reads every call of the trace at path (XML or compact) into a CallTree;
// options.partial keeps every complete call before damage (and says where
// in damage), else damage throws ReadError naming the file and place.
// options.filter is not applied: the tree always has every call.
CallTreeResult readCallTree(const std::string &path, const TraceOptions &options = {},
                            TreeColumns columns = TreeColumns::All);

}  // namespace hdtrace::reader
