// What a read of a trace takes: which calls (by name, by time) and whether
// damage ends the read quietly. Shared by the event reader (TraceReader.hpp)
// and the column read (EventColumns.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace hdtrace::reader {

struct TraceFilter {
    // Top-level calls with one of these names; empty: every call. Other calls
    // are skipped without decoding their attributes or children.
    std::vector<std::string> names;
    // Calls that overlap [fromNs, toNs] (absolute nanoseconds). Top-level
    // calls are written in start order, so reading stops at the first call
    // that starts after toNs.
    int64_t fromNs = std::numeric_limits<int64_t>::min();
    int64_t toNs = std::numeric_limits<int64_t>::max();

    bool hasTimeWindow() const {
        return fromNs != std::numeric_limits<int64_t>::min() ||
               toNs != std::numeric_limits<int64_t>::max();
    }
};

struct TraceOptions {
    TraceFilter filter;
    // Whether damage (malformed or truncated XML) ends the trace quietly,
    // keeping every complete call before it, instead of throwing ReadError.
    bool partial = false;
};

}  // namespace hdtrace::reader
