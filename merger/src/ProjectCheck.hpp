// The checks of `hdtrace check` (python/hdtrace/check.py) that concern the
// project description, run by the merger on what it is about to write:
//  - every NAMED type is one the PIOsim tools know (PiosimTypes.hpp);
//  - every type references only types defined before it in its rank, and
//    no id is defined twice in a rank;
//  - non-empty communicator names are unique and the world is named WORLD.
// The checks that need the traces (rootRank, negative times, ids used in
// .trc elements, <For> of issued requests) are left to `hdtrace check`:
// the merger reads only the .info files.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "CommunicatorUnifier.hpp"
#include "Diagnostics.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {

struct RankTypes {
    int64_t rank = 0;
    std::vector<TypeElement> types;
};

// Reports each failure through diagnostics.failedCheck(). checkProject() is
// checkCommunicators() and then checkRankTypes() for each rank in order; the
// merger calls the parts as it writes the ranks one by one.
void checkCommunicators(const std::vector<UnifiedCommunicator> &communicators,
                        Diagnostics &diagnostics);
void checkRankTypes(const RankTypes &rank, Diagnostics &diagnostics);
void checkProject(const std::vector<UnifiedCommunicator> &communicators,
                  const std::vector<RankTypes> &ranks, Diagnostics &diagnostics);

}  // namespace hdtrace::merger
