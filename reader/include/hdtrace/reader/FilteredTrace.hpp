// A trace as a run with a filter would have written it: the calls the
// filter leaves out taken away, and the calls nested in one of them moved
// out to the next enclosing call that is kept, or to the top level, as the
// wrapper writes them (docs/user/filters.md). hdtrace score measures what a
// filter keeps on this trace, in both forms, rather than estimating it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include <hdtrace/reader/CallCosts.hpp>

namespace hdtrace::reader {

struct CallChoice {
    std::unordered_set<std::string> leftOutTags;  // every call with one of these tags
    // Calls with one of these tags (the C library's) on one of these files.
    std::unordered_set<std::string> fileTags;
    std::unordered_set<int64_t> leftOutFids;
};

// Writes the XML form of the trace at source (either form), without the
// calls choice leaves out, to target (XML, the writer's layout). Throws
// ReadError as callCostsOf does.
void writeFilteredTrace(const std::string &source, const std::string &target,
                        const CallChoice &choice);

// The costs (CallCosts.hpp) of that trace.
CallCosts filteredCallCostsOf(const std::string &source, const CallChoice &choice);

}  // namespace hdtrace::reader
