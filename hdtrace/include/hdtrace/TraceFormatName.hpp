// The names of the two trace forms as HDTRACE_FORMAT gives them, read alike
// by the MPI wrapper and the C API.
#pragma once

#include <strings.h>

#include <optional>

#include <hdtrace/TraceWriter.hpp>

namespace hdtrace {

// "xml" or "compact", in any case; nothing for any other text.
inline std::optional<TraceOptions::Format> traceFormatNamed(const char *name) {
    if (strcasecmp(name, "xml") == 0) return TraceOptions::Format::Xml;
    if (strcasecmp(name, "compact") == 0) return TraceOptions::Format::Compact;
    return std::nullopt;
}

}  // namespace hdtrace
