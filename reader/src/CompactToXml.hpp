// CompactToXml: renders the decoded records of a compact trace as the XML
// text that XML mode writes for the same states, byte for byte: the same
// prolog, attribute order, number and time text, escaping, indentation
// and <Nested> layout (hdtrace/src/TraceWriter.cpp is the reference).
#pragma once

#include <cstdio>
#include <string>

#include "CompactRecords.hpp"

namespace hdtrace::reader {

class CompactToXml final : public CompactHandler {
  public:
    // Text goes to out, in pieces of about a megabyte.
    explicit CompactToXml(std::FILE *out) : out_(out) {}
    // Text is appended to text (tests, small traces).
    explicit CompactToXml(std::string *text) : text_(text) {}
    ~CompactToXml() override { drain(); }

    void startElement(std::string_view name, const CompactAttributes &attributes) override;
    void endElement(std::string_view name) override;
    // Writes what is still buffered; false when a write to the file failed.
    bool drain();
    // The text rendered and not yet drained.
    size_t bufferedBytes() const { return buffer_.size(); }

  private:
    void indent(int levels);
    void openTag(std::string_view name, const CompactAttributes &attributes);

    std::FILE *out_ = nullptr;
    std::string *text_ = nullptr;
    std::string buffer_;
    bool failed_ = false;
    int nestedDepth_ = 0;       // <Nested> blocks open
    bool inCall_ = false;       // a call's children are being written
    bool pendingLeaf_ = false;  // the last start tag may still close as "/>"
    int elementDepth_ = 0;      // elements open below Program
};

// Converts the compact trace at path to XML at output ("-": standard
// output). Throws ReadError (FrameError) on damage, leaving no output;
// with partial, writes the frames before damage and returns the damage
// message. A trace without index (its writer was killed) converts whole
// and the message says where it was cut. Empty: a complete trace.
std::string convertCompactToXml(const std::string &path, const std::string &output, bool partial);

}  // namespace hdtrace::reader
