// A scanner for the dialect of XML that HDTrace's traces use (docs/format/trace.md):
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
//
// Speed: a trace repeats a few dozen tag shapes (an element name and its
// attribute names in order, with the exact bytes between them, values in
// single quotes). The scanner keeps the shape of the last start tag of each
// name; a tag that repeats it byte for byte outside its values is matched by
// comparing those bytes (16 at a time), without reading names or checking
// for repeats again, and the handler is told the shape, so that it can keep
// per-shape work (what each attribute means) too. Any other tag is scanned
// in full and becomes its name's shape. Where values end comes from an index
// of the chunk built once per read, one bit per byte: quotes, and bytes
// that a plain value cannot hold. So matching walks from quote to quote
// with bit operations instead of testing bytes one value after the other.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::reader {

struct ScannedAttribute {
    std::string_view name;
    // References decoded. At least 16 bytes after the value's first byte
    // are readable (word-at-a-time number parsing), whatever its length.
    std::string_view value;
};

// A start tag's shape: tags with the same slot and generation have the same
// element name and attribute names in the same order. slot -1: no shape.
struct TagShapeId {
    int slot = -1;
    uint32_t generation = 0;
    // Every value is shorter than 16 bytes (known only of a tag that matched
    // its shape): none is a number beyond 64 bits.
    bool shortValues = false;
};

class DialectHandler {
  public:
    enum class Verdict { Continue, Stop, Unrecognised };
    virtual ~DialectHandler() = default;
    // depth 1 is the root. attributes are valid during the call only.
    virtual Verdict startElement(int depth, std::string_view name,
                                 const ScannedAttribute *attributes, int count,
                                 const TagShapeId &shape) = 0;
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
    // Shapes: 2-way sets by name; what a shape holds at most.
    static constexpr int kShapeSets = 128;
    static constexpr int kShapeSlots = 2 * kShapeSets;
    static constexpr int kMaxShapeAttributes = 24;
    static constexpr size_t kMaxShapeGap = 16;  // bytes between two values

    explicit DialectScanner(std::string path, size_t chunkBytes = 256 * 1024);
    ~DialectScanner();
    DialectScanner(const DialectScanner &) = delete;
    DialectScanner &operator=(const DialectScanner &) = delete;

    Outcome run(DialectHandler &handler);
    // run for a handler of a class with DialectHandler's two member
    // functions, called directly: a final class's calls are inlined into the
    // scan. Defined in reader/src/DialectTagScan.hpp, which the caller includes.
    template <class Handler>
    Outcome runWith(Handler &handler);
    // Scans bytes [from, to) of the file as the inside of an open root
    // element <Program> (depth 1), for a slice of a trace in the writer's
    // layout (TraceSlices.hpp): from is the start of a line; the bytes end
    // at a line start (to < the file's size) with only the root open, or at
    // the end of the file with the root closed. A start tag that begins a
    // line at another depth than 2, or one at depth 2 that does not, is not
    // the writer's layout and ends the scan as Unrecognised, as a
    // truncated or mismatched slice does.
    Outcome runSlice(DialectHandler &handler, uint64_t from, uint64_t to, bool toIsEndOfFile);
    template <class Handler>
    Outcome runSliceWith(Handler &handler, uint64_t from, uint64_t to, bool toIsEndOfFile);
    // Why the scan ended as Unrecognised.
    const std::string &reason() const { return reason_; }

  private:
    enum class TagResult { Done, NeedMore, Stopped, Unrecognised };
    bool open();
    // What run and runSlice do before the scan; false with reason_ set.
    bool startFile(const char *&position);
    bool startSlice(uint64_t from, uint64_t to, bool toIsEndOfFile);
    template <class Handler>
    Outcome scan(const char *position, Handler &handler);
    bool refill(const char *keepFrom);
    bool mapChunk(size_t keepOffset, size_t keep);
    void indexChunk();
    bool anySpecial(size_t from, size_t to) const;
    bool skipProlog(const char *&position);
    template <class Handler>
    TagResult scanTag(const char *&position, Handler &handler);
    template <class Handler>
    TagResult scanEndTag(const char *&position, Handler &handler);
    template <class Handler>
    TagResult scanStartTag(const char *&position, Handler &handler);
    template <class Handler>
    void closeElement(Handler &handler);
    // What scanStartTag does without the handler: the tag's name, shape and
    // attributes, the open element pushed.
    struct StartTag {
        std::string_view name;
        const ScannedAttribute *attributes = nullptr;
        int count = 0;
        bool selfClosing = false;
        TagShapeId shape;
    };
    TagResult readStartTag(const char *&position, StartTag *tag);
    // Scans the attributes after a start tag's name: the last shape of the
    // name if the tag repeats it, else in full (learning its shape).
    bool matchShape(int slot, const char *&cursor);
    struct QuoteWord {
        size_t word;
        uint64_t quotes;
    };
    QuoteWord nextQuoteWordAfter(size_t word) const;
    TagResult scanAttributes(const char *&cursor, int *count, bool *selfClosing,
                             const char **gapStarts, const char **gapEnds,
                             const char **attributeNames);
    int findShape(std::string_view name) const;
    int learnShape(std::string_view name, const char *const *gapStarts, const char *const *gapEnds,
                   int count, bool selfClosing, const char *const *attributeNames);
    TagResult scanValue(const char *&position, char quote, int attributeIndex,
                        std::string_view *value);
    TagResult unrecognised(const char *why);

    static constexpr size_t kPageBytes = 4096;
    std::string path_;
    int fd_ = -1;
    size_t fileBytes_ = 0;  // as of the last look
    size_t capacity_ = 0;   // bytes of a chunk at most (the sentinel comes after)
    // The chunk: [begin_, end_), begin_ at file offset chunkOffset_, end_ a
    // NUL sentinel and kPadding readable bytes. Either buffer_ filled by
    // read(2) or, when asked (mapped_, see open()), a mapping of the file
    // (mapArea_ holds it and the zeroed pages after), with read(2) where
    // mapping fails.
    const char *begin_ = nullptr;
    const char *end_ = nullptr;
    size_t chunkOffset_ = 0;
    bool mapped_ = false;
    void *mapArea_ = nullptr;
    size_t mapBytes_ = 0;
    std::vector<char> buffer_;
    bool endOfFile_ = false;
    int depth_ = 0;
    bool rootSeen_ = false;
    bool rootClosed_ = false;
    // Slices (runSlice): the file offset where reading stops (the slice's
    // end), the byte before the chunk (line starts), and the end of data's
    // meaning.
    bool slice_ = false;
    bool sliceEndsFile_ = false;
    uint64_t readEnd_ = UINT64_MAX;
    char byteBeforeChunk_ = '\n';
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
    // The bytes from the end of the name or of a value up to and including
    // the next value's opening quote ("gaps"), then from the last value to
    // the tag's '>' (the end gap). Compared 16 bytes at a time: kept padded.
    struct TagShape {
        uint32_t generation = 0;  // 0: empty
        int count = 0;
        bool selfClosing = false;
        uint8_t nameLength = 0;
        uint16_t nameMask = 0;  // the name's bytes of a 16-byte compare, if it has 16 or fewer
        char name[kShortName + 16];
        struct Gap {
            char bytes[kMaxShapeGap];
            uint16_t mask;  // its bytes of a 16-byte compare
            uint8_t length;
        };
        Gap gaps[kMaxShapeAttributes + 1];
        // Handed to the handler: names into gap, set once; values set per
        // tag, with whether all are short (TagShapeId::shortValues).
        ScannedAttribute attributes[kMaxShapeAttributes];
        bool shortValues = false;
    };
    std::vector<TagShape> shapes_;
    // The shapes' and open names' tables of a scanner that ended, kept for
    // the thread's next one (some 360 KB that a run's many small traces
    // would otherwise each make and zero).
    struct Tables {
        std::vector<TagShape> shapes;
        std::vector<OpenName> openNames;
    };
    static Tables &sparesOfThisThread();
    // The index of the chunk: bit i of word i / 64 is byte i of the chunk.
    std::vector<uint64_t> quoteBits_;    // '\''
    std::vector<uint64_t> specialBits_;  // control, DEL, non-ASCII, '&', '<'
    size_t indexWords_ = 0;
    std::array<bool, kShapeSets> recentWay_{};  // per set: the way used last
    // By a hash of the 8 bytes after '<': the slot of the shape last read there.
    std::array<int16_t, 256> shapeByHead_;
    uint32_t generations_ = 0;
};

}  // namespace hdtrace::reader
