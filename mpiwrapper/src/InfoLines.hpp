// InfoLines: the text of the .info sidecar lines (docs/format/info.md), one
// object per line, names escaped as XML attribute values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

// The first line: the MPI library and the constants the merger decodes.
std::string mpiLibraryLine();

std::string fileLine(std::string_view name, int64_t initialSize, int64_t id);

// Appends "w1..w2->l1..l2;" runs (or "w->l;" for single members) for a
// group whose local rank i is world rank worldRankOfLocal[i].
void appendRankMap(std::string &out, const std::vector<int> &worldRankOfLocal);

std::string commLine(int64_t id, std::string_view name, const std::vector<int> &localGroup,
                     const std::vector<int> *remoteGroup);

// A contiguous run of a type's data bytes: offset from the type's start, length.
struct ByteBlock {
    int64_t offset;
    int64_t length;
};

// A predefined type with what the merger needs to write it as a byte layout
// (docs/format/info.md): size, extent, and its data blocks when they are not the single
// block [0, size) (blocks empty then).
std::string namedTypeLine(int64_t id, std::string_view name, int64_t size, int64_t extent,
                          const std::vector<ByteBlock> &blocks);

// One-sided communication: "Win id=<wid> cid=<cid> size=<bytes> dispUnit=<n> kind='<kind>'".
std::string winLine(int64_t id, int64_t cid, int64_t size, int64_t dispUnit, std::string_view kind);
// What MPI says of a derived type (MPI_Type_size_x, MPI_Type_get_extent_x),
// so that readers need not recompute it: alignment padding of a struct
// differs between MPI libraries. Written as size='S' lb='L' extent='E' at
// the end of the line; not written when MPI could not say (known false).
struct TypeFigures {
    bool known = false;
    int64_t size = 0;
    int64_t lowerBound = 0;
    int64_t extent = 0;
};

// A derived type's line in two steps, so that a type made by a
// traced constructor is formatted into memory the registry reuses.
// First its arguments: the text between "integers='" and "' types='",
// "I;I;' addresses='A;A;", which replaces out's content.
void formatTypeArguments(std::string &out, const int64_t *integers, size_t integerCount,
                         const MPI_Aint *addresses, size_t addressCount);
// Then the whole line around that text (which may be out's own content),
// replacing out's content; out keeps its memory when large enough.
void formatDerivedTypeLine(std::string &out, int64_t id, std::string_view combiner,
                           std::string_view name, std::string_view arguments,
                           const int64_t *typeIds, size_t typeCount, const TypeFigures &figures);

}  // namespace hdtracempi
