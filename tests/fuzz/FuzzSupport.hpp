// Helpers of the fuzz targets: the readers and the merger take paths, so
// every input is written to a file in a scratch directory of the process
// (on tmpfs when there is one), which is emptied after each input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::fuzz {

// The scratch directory of this process: $HDTRACE_FUZZ_TMPDIR, else
// /dev/shm, else $TMPDIR or /tmp, with a fresh directory of its own inside.
const std::string &scratchDirectory();

// Writes data to scratchDirectory()/name and returns the path.
std::string writeScratchFile(const std::string &name, std::string_view data);

// The names in a directory (not . and ..), sorted.
std::vector<std::string> listDirectory(const std::string &directory);

// Removes everything inside directory (recursively), keeping the directory.
void emptyDirectory(const std::string &directory);

// Ends the process with a message on stderr: libFuzzer records the input as
// a crash. For broken promises that are not memory errors.
[[noreturn]] void fail(const std::string &what);

// Whether text is a well-formed XML document (libxml2, no DTD, no network).
bool isWellFormedXml(std::string_view text, std::string *error = nullptr);

std::string readWholeFile(const std::string &path);

// A hash of the input, for choices (chunk sizes, filters) that should not
// cost the input any structure.
uint64_t hashOf(const uint8_t *data, size_t size);

}  // namespace hdtrace::fuzz
