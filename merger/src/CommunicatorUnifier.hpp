// Unifies the per-rank communicator entries of a run into the distinct
// communicators of the .proj (docs/format/project.md, "Sections").
//
// Two ranks' entries are one communicator when their member sets (as world
// ranks) are equal and they hold the same position among that rank's
// communicators with that member set, in creation (id) order. An
// intercommunicator's members are both groups; it is matched by the
// unordered pair of groups. Entries are grouped through a hash map keyed by
// (kind, member set, position), so the work is linear in the total size of
// the maps: no rank is compared with every other.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "RunModel.hpp"

namespace hdtrace::merger {

struct UnifiedCommunicator {
    std::string name;
    bool intercommunicator = false;
    // Sorted by world rank; for an intercommunicator both groups, each
    // member's local rank being its rank within its own group.
    RankMap members;
    // Per member (in the order of `members` expanded), the id the member's
    // .info gives it, or -1 when that rank never named it (written as cid='-1').
    std::vector<int64_t> cids;
};

// progress(done, total) is called as the ranks are unified.
std::vector<UnifiedCommunicator> unifyCommunicators(
    const RunModel &run, Diagnostics &diagnostics,
    const std::function<void(size_t, size_t)> &progress);

}  // namespace hdtrace::merger
