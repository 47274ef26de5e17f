// Appends XML to a string in the layout and with the escapes of libxml2's
// text writer with an indentation of one space, which wrote the project
// before: a project stays the same byte for byte, at a fraction of the cost
// per element (a project has millions of them). Element and attribute names
// are the caller's constants; values may be any bytes (xmlText() below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::merger {

// Text that XML 1.0 can carry: bytes that are not UTF-8 are taken as Latin-1
// and control characters other than tab, LF and CR become their symbol in
// the Unicode Control Pictures block, as the trace writer does.
std::string xmlText(const std::string &text);

class XmlOutput {
  public:
    // out: where the XML goes. outerDepth: elements open around what is
    // written, for a part rendered apart and put in with appendElements().
    explicit XmlOutput(std::string &out, size_t outerDepth = 0)
        : out_(out), outerDepth_(outerDepth) {}

    void startElement(const char *tag);
    void attribute(const char *name, const std::string &value);
    void attribute(const char *name, int64_t value);
    void text(const std::string &value);
    void endElement();      // <a/> when the element is empty
    void fullEndElement();  // <a></a> when the element is empty
    // Elements rendered apart (by an XmlOutput whose outer depth is this
    // one's depth) as the next children of the open element.
    void appendElements(std::string_view elements);
    bool anyOpen() const { return !open_.empty(); }

  private:
    enum class Content : uint8_t { None, Elements, Text };
    struct OpenElement {
        const char *tag;  // the caller's, alive until the element ends
        Content content;
    };

    // The open elements, innermost last. A project nests a few levels deep,
    // so they are held inline and an XmlOutput made for each rank's types
    // allocates nothing; deeper nesting goes on in a vector.
    class OpenElements {
      public:
        bool empty() const { return size_ == 0; }
        size_t size() const { return size_; }
        OpenElement &back() { return size_ <= kInline ? inline_[size_ - 1] : deeper_.back(); }
        void push_back(const OpenElement &element) {
            if (size_ < kInline)
                inline_[size_] = element;
            else
                deeper_.push_back(element);
            ++size_;
        }
        void pop_back() {
            if (size_ > kInline) deeper_.pop_back();
            --size_;
        }

      private:
        static constexpr size_t kInline = 8;
        OpenElement inline_[kInline];
        std::vector<OpenElement> deeper_;
        size_t size_ = 0;
    };

    void closeStartTag();
    void indent();

    std::string &out_;
    size_t outerDepth_;
    OpenElements open_;
};

}  // namespace hdtrace::merger
