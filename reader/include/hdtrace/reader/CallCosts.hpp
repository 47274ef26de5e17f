// What each call of a trace costs in trace bytes, in both forms, with its
// visits and time: the measure behind hdtrace score.
//
// The XML bytes are exact: every line of the XML form (the trace itself,
// or what a compact trace renders to, byte for byte what XML mode writes)
// belongs to one call: its own element, its children, and the <Nested>
// tags of its block; nested calls are counted to their own tag. The
// compact bytes are measured on the compact form (the trace itself, or the
// trace converted as hdtrace convert does): each frame's compressed payload
// is shared among its records (each a
// top-level call with its nested block) in proportion to their bytes
// before compression, and a record's among its calls by their XML bytes.
// Rows and the fixed bytes add up to each form's file size exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hdtrace::reader {

struct CallCostRow {
    std::string tag;
    bool nested = false;  // inside another call's <Nested> block
    int64_t visits = 0;
    int64_t timeNs = 0;  // end minus start, summed
    int64_t bytesXml = 0;
    int64_t bytesCompact = 0;
};

struct CallCosts {
    std::vector<CallCostRow> rows;  // in order of first appearance
    int64_t fixedXml = 0;           // outside calls: prolog, <Program>, </Program>
    int64_t fixedCompact = 0;       // file header, frame headers, index, footer
    int64_t fileBytesXml = 0;
    int64_t fileBytesCompact = 0;
    int64_t spanNs = 0;  // the first call's start to the last call's end
};

// The costs of the trace at path (either form). Throws ReadError naming the
// file and the byte offset when it is damaged, or the line when it is XML
// not in the writer's layout (one element a line), which no compact form
// reproduces.
CallCosts callCostsOf(const std::string &path);

}  // namespace hdtrace::reader
