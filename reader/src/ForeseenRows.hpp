// How many calls an XML trace holds, foreseen from the start of its file,
// so that a reader reserves its columns once. Reserving for too few rows
// makes every column grow (a copy and fresh pages at each doubling);
// reserving for too many costs address space, which column memory keeps
// for the next read once freed (ColumnMemory.hpp), where it crowds out
// memory that was written.
#pragma once

#include <cstddef>
#include <string>

namespace hdtrace::reader {

// The calls at every depth of the XML trace at path (a call nested in
// another counts too), extrapolated from the start tags in its first bytes
// to the whole file, with a margin. A fallback of a call per 40 bytes where
// the start holds no call; 0 where the file cannot be read.
size_t foreseenXmlCalls(const std::string &path);

// The same from a sample of a file of fileBytes bytes (for tests).
size_t foreseenXmlCalls(const char *sample, size_t sampleBytes, size_t fileBytes);

}  // namespace hdtrace::reader
