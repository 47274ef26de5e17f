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
#include <optional>
#include <string>
#include <vector>

#include "CommunicatorUnifier.hpp"
#include "Diagnostics.hpp"
#include "RunModel.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {

// What the checks need of one type element. Many ranks write the same
// element, so what depends on the element alone is found once, here; what
// depends on the rank (references, ids defined twice) by checkRankTypes().
struct TypeElementCheck {
    std::string tag;
    std::optional<std::string> id;
    std::vector<std::string> references;  // oldType, then the <Type> children's ids
    std::vector<std::string> failures;    // what the element alone fails, in order
};

TypeElementCheck checkTypeElement(const TypeElement &element);

// One element of a rank's datatypes, in the order written, and the .info
// line it was written from.
struct PlacedTypeElement {
    const TypeElementCheck *check;
    SourceLine source;
};

// Report each failure through diagnostics.failedCheck(); the merger checks
// the communicators once and each rank's types as it writes them.
void checkCommunicators(const std::vector<UnifiedCommunicator> &communicators,
                        Diagnostics &diagnostics);
void checkRankTypes(const RunModel &run, int64_t rank,
                    const std::vector<PlacedTypeElement> &elements, Diagnostics &diagnostics);

}  // namespace hdtrace::merger
