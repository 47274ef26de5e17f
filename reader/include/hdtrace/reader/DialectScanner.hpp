// A scanner for the dialect of XML that HDTrace's traces use (NOTES.md):
// elements with attributes, whitespace between them, an optional
// <?xml version="1.0" encoding="UTF-8"?> prolog, attribute values in single
// or double quotes with the five predefined entities and character
// references. It reads the file in fixed-size chunks, so memory stays
// bounded by the chunk size whatever the file's length.
//
// It never reports an error itself. Anything it does not fully recognise
// (comments, processing instructions, CDATA, a DTD, text, a non-UTF-8 or
// non-XML character, a malformed or mismatched tag, nesting deeper than the
// readers' limit, a tag longer than a chunk, a file that ends early, a file
// that cannot be opened) ends the scan as Unrecognised with the reason, and
// the caller reads the file with libxml2 instead, which gives the same
// result or the exact error (file:line:column). So the scanner may refuse
// more than libxml2, never less.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::reader {

struct ScannedAttribute {
    std::string_view name;
    std::string_view value;  // references decoded
};

class DialectHandler {
  public:
    enum class Verdict { Continue, Stop, Unrecognised };
    virtual ~DialectHandler() = default;
    // depth 1 is the root. attributes are valid during the call only.
    virtual Verdict startElement(int depth, std::string_view name,
                                 const ScannedAttribute *attributes, int count) = 0;
    virtual void endElement(int depth) = 0;
};

class DialectScanner {
  public:
    enum class Outcome { Complete, Stopped, Unrecognised };
    // The same limit as SaxFileParser::kMaxElementDepth.
    static constexpr int kMaxDepth = 256;
    static constexpr int kMaxAttributes = 64;
    static constexpr size_t kMaxNameBytes = 1000;
    // Bytes after the data: a NUL sentinel, and room for 16-byte loads.
    static constexpr size_t kPadding = 64;
    static constexpr size_t kShortName = 32;

    explicit DialectScanner(std::string path, size_t chunkBytes = 256 * 1024);
    ~DialectScanner();
    DialectScanner(const DialectScanner &) = delete;
    DialectScanner &operator=(const DialectScanner &) = delete;

    Outcome run(DialectHandler &handler);
    // Why the scan ended as Unrecognised.
    const std::string &reason() const { return reason_; }

  private:
    enum class TagResult { Done, NeedMore, Stopped, Unrecognised };
    bool open();
    bool refill(const char *keepFrom);
    bool skipProlog();
    TagResult scanTag(const char *&position, DialectHandler &handler);
    TagResult scanEndTag(const char *&position, DialectHandler &handler);
    TagResult scanStartTag(const char *&position, DialectHandler &handler);
    TagResult scanValue(const char *&position, char quote, int attributeIndex,
                        std::string_view *value);
    TagResult unrecognised(const char *why);

    std::string path_;
    int fd_ = -1;
    std::vector<char> buffer_;
    size_t capacity_ = 0;  // usable bytes of buffer_ (the rest holds a sentinel)
    const char *end_ = nullptr;
    size_t consumedBefore_ = 0;
    bool endOfFile_ = false;
    int depth_ = 0;
    bool rootSeen_ = false;
    bool rootClosed_ = false;
    // The names of the open elements, by depth: short ones inline (copied by
    // one fixed-size move), longer ones in long_.
    struct OpenName {
        char text[kShortName];
        size_t length;
        std::string long_;
    };
    std::vector<OpenName> openNames_;
    std::array<ScannedAttribute, kMaxAttributes> attributes_{};
    std::array<std::string, kMaxAttributes> decoded_;
    std::string reason_;
};

}  // namespace hdtrace::reader
