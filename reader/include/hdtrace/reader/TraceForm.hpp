// The two forms of a trace file, XML (.trc) and compact (.ctrc), told apart
// by their first bytes rather than their names, so that every reader takes
// either without an option; and where a rank's trace is, in either form.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hdtrace::reader {

enum class TraceForm { Xml, Compact };

// Compact when the file opens with the compact container's magic; XML
// otherwise, including a file that cannot be read (the XML reader then
// says why, as it always has).
TraceForm traceFormOf(const std::string &path);
// The form of a file that begins with head.
TraceForm traceFormOfHead(std::string_view head);

// The file's first bytes, up to bytes of them (fewer where it is shorter);
// nullopt for a file that cannot be opened or is no regular file (a FIFO
// would block: it is never read).
std::optional<std::string> fileHead(const std::string &path, size_t bytes);

const char *traceFormName(TraceForm form);  // "XML" or "compact"

// The file holding the trace a project names xmlPath (<base>.trc): xmlPath
// when it exists, else <base>.ctrc when that exists, else xmlPath (whose
// absence the caller reports). XML wins where both exist: it is the file
// the PIOsim tools read and the one `hdtrace align` rewrites.
std::string existingTracePath(const std::string &xmlPath);

// path without its .trc or .ctrc suffix (path itself when it has neither).
std::string traceBasePath(const std::string &path);

}  // namespace hdtrace::reader
