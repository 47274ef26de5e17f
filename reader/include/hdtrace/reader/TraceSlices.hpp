// One slice of a large trace: the top-level calls whose element starts in a
// byte range of the file, read without parsing the file before the range,
// so that the slices of one trace can be read at once, on many machines.
//
// The writer's layout (hdtrace/src/TraceWriter.cpp) makes this possible. A
// trace opens with exactly
//   <?xml version="1.0" encoding="UTF-8"?>\n<Program timeAdjustment='S'>\n
// and every element directly under <Program> (a call, an <Event>, a <Nested>
// block) starts a line with its '<', while every deeper element is indented.
// Values escape '<' as &lt; and control characters (newlines included) as
// character references, so "\n<" and a name's first letter mark the start
// of a top-level element and nothing else. A slice reads from the first
// such mark at or after its begin up to the first at or after its end; so
// the slices of any split tile the trace, and their rows, one after the
// other, are the rows of the whole trace.
//
// A <Nested> block belongs to the call after it, so the mark of a call
// whose line follows a "</Nested>" line is passed over: the block and its
// call stay in one slice (the columns skip the block, but the events of
// TraceReader's slices hold its calls). Errors name the file's
// line:column as a whole read does; the line is counted (the newlines
// before the slice) only when there is an error.
#pragma once

#include <cstdint>
#include <string>

#include <hdtrace/reader/EventColumns.hpp>

namespace hdtrace::reader {

struct SliceRead {
    ColumnsResult result;
    // The trace does not open with the writer's prolog (the original
    // implementation's traces, the older layout, any other XML): it
    // cannot be sliced, so the slice that holds byte 0 reads it whole and
    // every other slice (an empty one at 0 too) is empty.
    bool whole = false;
    uint64_t from = 0, to = 0;  // the bytes whose calls were read
};

// The calls of the trace at path whose top-level element starts in
// [begin, end) (byte offsets; end past the file's size means to its end).
SliceRead readEventColumnsSlice(const std::string &path, const TraceOptions &options,
                                const LocalToWorldTable *localToWorld, uint64_t begin,
                                uint64_t end);

}  // namespace hdtrace::reader
