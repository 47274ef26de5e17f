// The calls of a call tree that work on a file, of every I/O layer, as
// columns: one row per such call at any depth, with its layer, what it did
// to its file, its file, offset and bytes, and the row of the I/O call it is
// nested in. The layer statistics, the access plots and the report start
// from them, so they are made in one pass here rather than in a dozen
// passes of numpy over the whole tree.
//
// Which calls work on files, and how, is the caller's to say per call name
// (IoCallKinds): the dialect's layers are described to the Python package,
// which hands them over.
#pragma once

#include <cstdint>
#include <vector>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {

enum class IoKind : int8_t { Read = 0, Write = 1, Meta = 2 };

// Per name of the tree (indexed by its name code).
struct IoCallKinds {
    std::vector<int8_t> layer;        // the call's I/O layer; negative: not an I/O call
    std::vector<IoKind> kind;         // what an I/O call does to its file
    std::vector<uint8_t> countsDone;  // its layer writes bytes done apart from asked
    std::vector<int32_t> callCode;    // the name's code in the columns
};

// One row per I/O call, trace after trace, each trace's in its tree's
// order (pre-order).
struct IoCallColumns {
    Column<int32_t> rank;
    Column<int32_t> thread;
    Column<int32_t> call;       // IoCallKinds::callCode
    Column<int8_t> layer;       // as IoCallKinds gave it
    Column<int8_t> kind;        // IoKind
    Column<int32_t> fid;        // -1: none
    Column<int32_t> file;       // see selectIoCalls; -1: no file id
    Column<int64_t> offset;     // -1 for a call that moves no data, or without one
    Column<int64_t> requested;  // bytes asked for (0 for a call that moves no data)
    Column<int64_t> done;       // bytes moved
    Column<int64_t> startNs;
    Column<int64_t> endNs;
    Column<int8_t> depth;
    Column<int64_t> parent;      // the row (here) of the nearest enclosing I/O call, -1: none
    Column<uint8_t> failed;      // it carries an errno
    Column<int32_t> parentCall;  // callCode of the call that holds it, -1 at the top level

    size_t rows() const { return rank.size(); }
    // Rows added are left unset, for selectIoCalls to write.
    void resize(size_t rows);
};

// How many rows selectIoCalls gives the tree. Throws std::invalid_argument
// where kinds does not cover every name of the tree.
size_t countIoCalls(const CallTree &tree, const IoCallKinds &kinds);

// Writes the tree's I/O calls into rows [first, first + countIoCalls) of
// columns, which must hold them, and returns the file ids that no open
// named. Bytes follow the layers' meanings: an MPI call's requested and done
// are both the bytes it asked for (its size, or its <Data> child's for a
// split collective), a C library call's requested is asked and done its
// size (never negative). A call's file is the index of the last open of its
// fid in tree.openName that ended before the call did (as a walk meeting
// each call at its end sees it), else the opens' count plus the fid's index
// in the returned ids. Throws std::invalid_argument for a tree whose rows
// are not in pre-order under their parents.
std::vector<int32_t> selectIoCalls(const CallTree &tree, const IoCallKinds &kinds, int32_t rank,
                                   int32_t thread, IoCallColumns &columns, size_t first);

// Replaces the local file indexes selectIoCalls wrote into rows [first,
// first + count) by fileCodes[index]. Throws std::invalid_argument for an
// index fileCodes does not cover.
void codeIoFiles(IoCallColumns &columns, size_t first, size_t count,
                 const std::vector<int32_t> &fileCodes);

}  // namespace hdtrace::reader
