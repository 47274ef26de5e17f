// Orders one rank's datatypes so that each comes after every type it
// references, and decodes them into their elements (docs/format/project.md).
#pragma once

#include <vector>

#include "Diagnostics.hpp"
#include "RunModel.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {

// The rank's types (the union of its threads' lines, each id once), in file
// order except where a type must move after one it references. A reference
// to an undefined id, a cycle, two different definitions of one id or a line
// that does not decode is a problem; with --force the type and every type
// referencing it are dropped.
std::vector<TypeElement> orderedRankTypes(const RunModel &run, const RankModel &rank,
                                          const MpiConstants &constants, Diagnostics &diagnostics);

}  // namespace hdtrace::merger
