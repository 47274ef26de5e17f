// The names of the two trace forms as HDTRACE_FORMAT gives them, and the
// compact frames' level as HDTRACE_COMPACT_LEVEL does, read alike by the MPI
// wrapper and the C API.
#pragma once

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <optional>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/TraceWriter.hpp>

namespace hdtrace {

// "xml" or "compact", in any case; nothing for any other text.
inline std::optional<TraceOptions::Format> traceFormatNamed(const char *name) {
    if (strcasecmp(name, "xml") == 0) return TraceOptions::Format::Xml;
    if (strcasecmp(name, "compact") == 0) return TraceOptions::Format::Compact;
    return std::nullopt;
}

// A whole decimal number that FrameWriter takes as a level (0: stored
// uncompressed); nothing for any other text.
inline std::optional<int> compactLevelNamed(const char *text) {
    char *end = nullptr;
    errno = 0;
    const long level = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || level < std::numeric_limits<int>::min() ||
        level > std::numeric_limits<int>::max() ||
        !FrameWriter::compressionLevelIsValid(static_cast<int>(level)))
        return std::nullopt;
    return static_cast<int>(level);
}

}  // namespace hdtrace
