// CompactXmlText: a compact trace's XML form, rendered a frame at a time on
// demand (CompactToXml: byte for byte what XML mode writes), as the text
// source of a SaxFileParser. So the readers that parse XML read a compact
// trace through the very code and checks that read its XML form, and their
// errors and line numbers are those of that form.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "CompactSource.hpp"
#include "CompactToXml.hpp"
#include "SaxFileParser.hpp"

namespace hdtrace::reader {

class CompactXmlText {
  public:
    explicit CompactXmlText(std::unique_ptr<CompactSource> source)
        : source_(std::move(source)), renderer_(&text_) {}
    CompactSource &source() { return *source_; }

    // TextSource's call: up to room bytes of the text into out.
    size_t read(char *out, size_t room, bool *last);

  private:
    std::unique_ptr<CompactSource> source_;
    std::string text_;  // rendered, not yet read from done_ on
    size_t done_ = 0;
    bool ended_ = false;  // the Program is closed: text_ is all there is
    CompactToXml renderer_;
};

// A TextSource reading text (which must outlive the parser).
inline TextSource textSourceOf(CompactXmlText &text) {
    return [&text](char *out, size_t room, bool *last) { return text.read(out, room, last); };
}

}  // namespace hdtrace::reader
