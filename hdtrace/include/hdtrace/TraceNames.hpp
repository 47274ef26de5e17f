// File names of a trace: <program>_<level1>_..._<levelN>.trc (XML) or
// .ctrc (compact), and .info.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace {

// The suffixes of a trace's files, in one place: the writer names its files
// with them, and the readers and tools look for a trace in either form.
constexpr std::string_view kXmlTraceSuffix = ".trc";
constexpr std::string_view kCompactTraceSuffix = ".ctrc";
constexpr std::string_view kInfoSuffix = ".info";

// Whether name ends with suffix after at least one character of its own
// (".trc" alone names no trace).
bool hasSuffix(std::string_view name, std::string_view suffix);

// Replaces every character outside [A-Za-z0-9.-] with '-'. The viewer drops
// other characters when it derives file names, and '_' separates the levels.
// An empty part becomes "-", so that it still occupies its level.
std::string sanitizeNamePart(std::string_view part);

// A layer's trace beside the main one is <base>.<layer>.trc (or .ctrc), the
// layer's name being a lower-case letter, then lower-case letters and
// digits; empty names the main trace. No level holds '.' followed by such a
// name up to the suffix (the thread, the last level, is a number), so the
// two kinds of names cannot be confused.
bool isLayerName(std::string_view layer);
// Whether a file name is that of a layer's trace.
bool isLayerTraceFileName(std::string_view name);

// "<program>_<level1>_..._<levelN>" with every part sanitised.
std::string traceBaseName(std::string_view program, const std::vector<std::string> &levels);

// The parts of a trace file name such as "dir/my-app_node01_3_0.trc".
struct TraceFileName {
    std::string directory;            // "" when the path has no '/'
    std::string program;              // may itself contain '_' (older traces)
    std::vector<std::string> levels;  // e.g. host, rank, thread
    std::string extension;            // "trc", "ctrc", "info", or "" for a bare base name
};

// Splits a trace file name from the right: the last levelCount '_'-separated
// parts are the levels, the rest is the program. nullopt when there are too
// few parts or one of them is empty.
std::optional<TraceFileName> parseTraceFileName(std::string_view path, size_t levelCount = 3);

}  // namespace hdtrace
