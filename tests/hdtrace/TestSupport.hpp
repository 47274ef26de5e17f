// Helpers for the libhdtrace tests: scratch directories and a parsed view of
// a trace, read back with libxml2.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <hdtrace/TraceWriter.hpp>

namespace hdtrace::test {

// A fresh directory under $TMPDIR, removed with its files at destruction.
class ScratchDirectory {
  public:
    ScratchDirectory();
    ~ScratchDirectory();
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

std::string readFile(const std::string &path);

// A time nanoseconds after a fixed whole second of the last few minutes,
// the same for every writer of a test process, which then shares one
// timeAdjustment: writers compared byte for byte give their states at().
Timestamp at(int64_t nanoseconds);

// Options for a trace <directory>/<program>_host_0_0.trc.
TraceOptions traceOptionsIn(const ScratchDirectory &directory, const std::string &program);

// A trace of program in directory, in format, written by drive with its
// times from at(0) and closed; its path ("" where no writer was made).
std::string writeTraceBy(const ScratchDirectory &directory, const std::string &program,
                         TraceOptions::Format format,
                         const std::function<void(TraceWriter &)> &drive);

// One XML element of a trace, with its attributes in document order.
struct Element {
    std::string name;
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<Element> children;
    int line = 0;

    const std::string &attribute(const std::string &key) const;
    bool hasAttribute(const std::string &key) const;
    std::vector<std::string> attributeNames() const;
};

// Parses a whole file with libxml2 (no network, no entities); the test fails
// through ADD_FAILURE when the file is not well-formed. Returns the root.
Element parseXmlFile(const std::string &path);

// Times of the form [-]SEC.FRAC with exactly nine fraction digits, in ns.
long long parseTime(const std::string &text);

}  // namespace hdtrace::test
