// CompactXmlText: a compact trace's XML form, rendered on demand
// (CompactToXml: byte for byte what XML mode writes), as the text source of
// a SaxFileParser. So the readers that parse XML read a compact trace
// through the very code and checks that read its XML form, and their errors
// and line numbers are those of that form. The text is made a piece at a
// time, as the parser asks for it: the decoder pauses inside a frame once a
// piece is rendered, so that a frame (a megabyte of records, tens of
// megabytes as text) is never held whole as text, and the first calls are
// read without rendering the rest of their frame.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "CompactSource.hpp"
#include "CompactToXml.hpp"
#include "SaxFileParser.hpp"

namespace hdtrace::reader {

class CompactXmlText {
  public:
    // Text is rendered at least this much at a time.
    static constexpr size_t kLeastPieceBytes = size_t{64} << 10;

    explicit CompactXmlText(std::unique_ptr<CompactSource> source)
        : source_(std::move(source)), renderer_(&text_), pieces_(renderer_, text_, goal_) {}
    CompactSource &source() { return *source_; }

    // TextSource's call: up to room bytes of the text into out.
    size_t read(char *out, size_t room, bool *last);
    // The text rendered and not yet read: about a piece (tests).
    size_t heldBytes() const { return text_.size() - done_; }

  private:
    // The renderer as the decoder's handler: it pauses the frame once the
    // text holds goal bytes.
    class Pieces final : public CompactHandler {
      public:
        static constexpr bool kMayPause = true;
        Pieces(CompactToXml &renderer, const std::string &text, const size_t &goal)
            : renderer_(renderer), text_(text), goal_(goal) {}
        void startElement(std::string_view name, const CompactAttributes &attributes) override {
            renderer_.startElement(name, attributes);
        }
        void endElement(std::string_view name) override { renderer_.endElement(name); }
        bool pauseWanted() const { return text_.size() + renderer_.bufferedBytes() >= goal_; }

      private:
        CompactToXml &renderer_;
        const std::string &text_;
        const size_t &goal_;
    };

    std::unique_ptr<CompactSource> source_;
    std::string text_;  // rendered, not yet read from done_ on
    size_t done_ = 0;
    bool ended_ = false;  // the Program is closed: text_ is all there is
    size_t goal_ = kLeastPieceBytes;
    CompactToXml renderer_;
    Pieces pieces_;
};

// A TextSource reading text (which must outlive the parser).
inline TextSource textSourceOf(CompactXmlText &text) {
    return [&text](char *out, size_t room, bool *last) { return text.read(out, room, last); };
}

}  // namespace hdtrace::reader
