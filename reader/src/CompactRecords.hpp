// CompactRecords: the decoder of the record layer of a compact trace
// (docs/format/compact.md, "Records"; codes in hdtrace/CompactFormat.hpp).
// It is a source of the trace grammar (TraceGrammar.hpp), as libxml2 is for
// XML: it reports the elements of a trace in document order, with their
// names and attribute values, through calls shaped like SaxHandler's.
//
// How to use it
// -------------
// 1. Implement CompactHandler:
//      startElement(name, attributes)   an element begins: "Program", a call,
//                                       an "Event", "Nested", or a child of a
//                                       call ("For", "Data", "Info", ...)
//      endElement(name)                 it ends (every start has its end; a
//                                       leaf's end follows its start at once)
//    attributes (CompactAttributes) answers as AttributeList does: size(),
//    name(i), value(i), find(name, &value), with value() the text an XML
//    parser would return for the XML form of the trace (entities decoded;
//    integers and times in the writer's exact text, e.g. "12" or
//    "3.000001234"). It also answers without text: kind(i) (Integer, Text,
//    Time) and integer(i), which for a Time is nanoseconds after the
//    trace's timeAdjustment (add timeAdjustmentSeconds * 1e9 for absolute
//    time; the grammar's readTime() gives the same numbers from the text).
//    Everything the handler gets is valid during the call only.
// 2. Whole trace, as the XML reader sees it:
//      FrameFile file(path);                       // or {partial = true}
//      CompactTraceReader reader(file);
//      reader.read(handler);      // Program start, every frame, Program end
//    or a part of it: reader.readFrames(handler, positions) with positions
//    into file.frames() (e.g. FrameFile::framesInWindow): Program start, the
//    listed frames in the given order, Program end. Each frame decodes on
//    its own: frames may be read by different readers on different threads
//    (one CompactTraceReader, and one FrameFile, per thread).
// 3. One frame at a time: CompactFrameDecoder::decode(payload, size, handler)
//    on what FrameFile::readFrame gave; it calls handler.frameStart(
//    timeAdjustmentSeconds) first, then the frame's elements (no Program).
//
// Structure reported: the top level holds calls and Events, each possibly
// preceded by a "Nested" element that holds the calls made inside it (and
// their own Nested blocks); a call's children follow its start. Element
// and attribute names are whatever the writer was given (C API users may
// write any), so the handler checks what it needs, as with XML.
//
// Errors: damage inside a frame's records (an unknown code, a string or
// shape index not defined in the frame, a value past the frame's end, an
// element left open at its end, a table from another dialect definition)
// throws FrameError: "file: byte O: frame N: record byte B: problem", O the
// frame's header offset in the file, B the position in its decoded records.
// Decoding allocates at most in proportion to the frame's decoded size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/CompactFormat.hpp>
#include <hdtrace/Format.hpp>

#include "FrameFile.hpp"

namespace hdtrace::reader {

// The attributes of the element being reported.
class CompactAttributes {
  public:
    enum class Kind { Integer, Text, Time };

    // --- As AttributeList: the attributes of the element's XML form.
    int size() const { return entryCount_; }
    std::string_view name(int index) const { return entry(index).name; }
    std::string_view value(int index) const;
    bool find(std::string_view attributeName, std::string_view *valueOut) const;

    // --- Without text.
    Kind kind(int index) const { return entry(index).kind; }
    // Integer: the value. Time: nanoseconds after timeAdjustment. Text: 0.
    int64_t integer(int index) const { return entry(index).number; }

    // --- The coded form, for renderers that reproduce the XML text
    // exactly: slots in written order; a kRaw slot is attribute text
    // written as it was given (C API), which size()/name()/value() show
    // split into its attributes.
    int slotCount() const { return slotCount_; }
    struct Slot {
        std::string_view name;  // empty for kRaw
        uint8_t coding;         // compact::Coding
        int64_t number;         // integers and times
        std::string_view text;  // kText (unescaped) and kRaw (as written)
    };
    const Slot &slot(int index) const { return slots_[static_cast<size_t>(index)]; }

    // --- For readers that work out an element's layout once: the number of
    // the static shape (compact::staticShapes()) the element was written
    // with, or -1 (a shape defined in the frame, or raw attribute text).
    // Elements of one static shape have the same name, and the same
    // attribute names and kinds at the same indexes.
    int staticShape() const { return staticShape_; }

  private:
    friend class CompactFrameDecoder;
    friend class CompactTraceReader;
    struct Entry {
        std::string_view name;
        Kind kind;
        int64_t number;
        std::string_view text;  // Text: the value
        mutable int formatted;  // Integer or Time: length in text_ once formatted, else -1
    };
    const Entry &entry(int index) const { return entries_[static_cast<size_t>(index)]; }
    void clear();
    // One attribute as the decoder read it: its slot and, unless it is
    // kRaw (split by addRaw()), its entry. Written field by field from the
    // values, never read back: copying a just-built struct makes the CPU
    // wait for its narrow stores to forward into wide loads. The storage
    // only grows; an element's attributes reuse the last one's.
    void add(std::string_view name, uint8_t coding, int64_t number, std::string_view text) {
        Slot &slot = grow(slots_, &slotCount_);
        setValue(slot, name, number, text);
        slot.coding = coding;
        if (coding == compact::kRaw) return;
        Kind kind = Kind::Integer;
        if (coding == compact::kText)
            kind = Kind::Text;
        else if (coding == compact::kTime || coding == compact::kEnd)
            kind = Kind::Time;
        addEntry(name, kind, number, text);
    }
    void addEntry(std::string_view name, Kind kind, int64_t number, std::string_view text) {
        Entry &entry = grow(entries_, &entryCount_);
        setValue(entry, name, number, text);
        entry.kind = kind;
        entry.formatted = -1;
    }
    template <class Item>
    static void setValue(Item &item, std::string_view name, int64_t number, std::string_view text) {
        item.name = name;
        item.number = number;
        item.text = text;
    }
    template <class Item>
    static Item &grow(std::vector<Item> &items, int *used) {
        if (static_cast<size_t>(*used) == items.size()) items.emplace_back();
        return items[static_cast<size_t>((*used)++)];
    }
    void addSlot(const Slot &slot);
    void finish();  // after the last slot
    // Splits raw attribute text into entries; false when it is not a
    // sequence of name='value' or name="value".
    bool addRaw(std::string_view raw);

    std::vector<Slot> slots_;
    std::vector<Entry> entries_;
    int slotCount_ = 0;   // in use in slots_
    int entryCount_ = 0;  // in use in entries_
    int staticShape_ = -1;
    // Formatted numbers (kMaxNumberChars each, by entry) and decoded raw values.
    mutable std::vector<char> text_;
    std::deque<std::string> decoded_;  // a deque: growing moves no string
    size_t decodedUsed_ = 0;
};

class CompactHandler {
  public:
    virtual ~CompactHandler() = default;
    // A frame begins (CompactFrameDecoder only): its Program's timeAdjustment.
    virtual void frameStart(int64_t /*timeAdjustmentSeconds*/) {}
    virtual void startElement(std::string_view name, const CompactAttributes &attributes) = 0;
    virtual void endElement(std::string_view name) = 0;
};

// Thrown inside decode(); CompactTraceReader turns it into a FrameError.
struct CompactRecordProblem {
    size_t position;  // in the frame's decoded records
    std::string problem;
};

// Decodes one frame's records. Reusable: its tables are reset per frame.
class CompactFrameDecoder {
  public:
    CompactFrameDecoder();
    // Throws CompactRecordProblem on damage.
    void decode(const unsigned char *records, size_t size, CompactHandler &handler);
    int64_t timeAdjustmentSeconds() const { return timeAdjustmentSeconds_; }

  private:
    struct DynamicShape {
        std::string_view element;
        size_t first;  // in dynamicAttributes_
        uint32_t count;
    };
    [[noreturn]] void fail(const unsigned char *at, const std::string &problem) const;
    // Inline: it runs for every value of every record.
    uint64_t varint(const unsigned char **in, const char *what) {
        uint64_t value;
        if (!compact::getVarint(in, end_, &value)) failVarint(*in, what);
        return value;
    }
    [[noreturn]] void failVarint(const unsigned char *at, const char *what) const;
    std::string_view stringAt(const unsigned char **in, const char *what);
    void readProgram(const unsigned char **in);
    void readString(const unsigned char **in);
    void readShape(const unsigned char **in);
    // Reads the values of an element of shape `shape` into attributes_.
    std::string_view readElement(const unsigned char **in, uint64_t shape);

    const unsigned char *begin_ = nullptr;
    const unsigned char *end_ = nullptr;
    int64_t timeAdjustmentSeconds_ = 0;
    std::vector<std::string_view> strings_;
    std::vector<compact::ShapeAttribute> dynamicAttributes_;
    std::vector<DynamicShape> dynamicShapes_;
    int64_t previousTime_ = 0;
    bool endsAreTimes_ = true;  // records of version 2 on: an end is the next previous time
    // The static shapes of the frame's table (its dynamic shapes follow).
    uint32_t staticCount_ = 0;
    int64_t previousIds_[compact::kIdKindCount] = {};
    std::vector<int64_t> fields_;  // kFieldDelta: by staticFieldOffset(shape) + attribute
    CompactAttributes attributes_;
    CompactAttributes noAttributes_;
};

// The elements of a whole compact trace (or of some of its frames), framed
// by its Program element, as an XML parser reports them.
class CompactTraceReader {
  public:
    explicit CompactTraceReader(FrameFile &file) : file_(file) {}
    // Every frame in file order. Throws FrameError on damage (with a
    // partial FrameFile, damage of the container instead ends the read
    // after the last good frame; see FrameFile::damage()).
    void read(CompactHandler &handler);
    void readFrames(CompactHandler &handler, const std::vector<size_t> &positions);
    // The trace's timeAdjustment, known once a frame was read.
    int64_t timeAdjustmentSeconds() const { return decoder_.timeAdjustmentSeconds(); }

  private:
    // False when a partial read stopped at damage before this frame.
    bool readFrame(size_t position, CompactHandler &handler, bool *programOpen);

    FrameFile &file_;
    CompactFrameDecoder decoder_;
    std::vector<unsigned char> records_;
};

}  // namespace hdtrace::reader
