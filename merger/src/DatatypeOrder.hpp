// Orders one rank's datatypes so that each comes after every type it
// references, and forms them into their elements (docs/format/project.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "Diagnostics.hpp"
#include "ProjectCheck.hpp"
#include "RunModel.hpp"
#include "TypeFormCache.hpp"

namespace hdtrace::merger {

// One rank's datatypes as they are written: the elements rendered, and for
// each element what the project check needs and the line it came from.
struct RankTypes {
    std::string xml;  // at the depth of the <Rank>'s children
    std::vector<PlacedTypeElement> elements;

    // The ordering's own tables, one entry per type line of the rank: kept
    // here with their room, so that a thread ordering rank after rank does
    // not allocate them anew for each.
    struct Tables {
        enum class State : uint8_t { Unvisited, Visiting, Written, Dropped };
        std::vector<State> state;
        std::vector<std::pair<int64_t, size_t>> byId;  // (id, line index), sorted
        std::vector<bool> duplicate;
        std::vector<bool> layout;
        std::vector<TypeFigures> figures;
        std::vector<std::pair<size_t, size_t>> stack;  // (line index, next reference)
    } tables;
};

// The rank's types (the union of its threads' lines, each id once), in file
// order except where a type must move after one it references. A reference
// to an undefined id, a cycle, two different definitions of one id or a line
// that does not decode is a problem; with --force the type and every type
// referencing it are dropped. out's checks point into the cache, valid
// until its next rank.
void orderedRankTypes(const RunModel &run, const RankModel &rank, const MpiConstants &constants,
                      TypeFormCache &cache, Diagnostics &diagnostics, RankTypes &out);

}  // namespace hdtrace::merger
