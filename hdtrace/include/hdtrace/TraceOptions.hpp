// TraceOptions: how a trace is written (its form, files, buffers, clock),
// given to TraceWriter::create and to the encoding it creates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <hdtrace/Clock.hpp>
#include <hdtrace/Timestamp.hpp>

namespace hdtrace {

struct TraceOptions {
    // The form of the trace file: XML text (.trc), or compact records in
    // zstd frames (.ctrc; docs/format/compact.md). The .info is text in both.
    enum class Format { Xml, Compact };
    Format format = Format::Xml;
    uint32_t compactFrameBytes = 1u << 20;  // records per zstd frame, before compression
    // zstd's level for the compact frames; 0: stored uncompressed (see
    // FrameWriterOptions::compressionLevel).
    int compactLevel = 1;
    std::string directory;            // empty: the working directory; created if missing
    std::string program;              // first part of the file name
    std::vector<std::string> levels;  // topology levels, e.g. host, rank, thread
    // Non-empty: the trace of one layer's calls (isLayerName: lower-case
    // letters and digits, e.g. "hdf5"), kept beside the main trace of the
    // same levels as <base>.<layer>.trc (or .ctrc), so that tools reading
    // the main trace see it unchanged. It has no .info: the ids its states
    // use are declared in the main trace's; writeInfo() fails with EINVAL.
    std::string layer;
    bool forceFlush = false;       // every top-level state reaches the file when it ends
    int nestedDepth = 0;           // nested levels written below a top-level state
    // Size of the XML output buffer (two halves). Each switch of halves
    // wakes the background writer, which costs the traced thread tens of
    // microseconds; halves of a huge page each make that rare.
    size_t bufferBytes = size_t{4} << 20;
    // Full halves are written by a background thread (one per process), so
    // that the traced thread does not wait for write(2); see OutputBuffer.hpp.
    bool backgroundWrites = true;
    Clock::Source clock = Clock::Source::Tsc;  // see Clock.hpp
    // The earliest time the trace will hold when it was taken before the
    // trace existed (the start of MPI_Init); zero: none. timeAdjustment is
    // the whole second of the earlier of this and the creation time, so
    // that no time in the trace is negative.
    Timestamp earliestTime;
    // A deliberate error of this process's clock, which the wrapper's tests
    // link in to emulate hosts whose clocks disagree: every written time
    // (timeAdjustment included) goes through it. Null: the true clock.
    int64_t (*shiftTime)(int64_t nanoseconds) = nullptr;
};

}  // namespace hdtrace
