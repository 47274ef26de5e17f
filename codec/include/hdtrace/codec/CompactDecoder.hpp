// CompactDecoder: the decoder of the record layer of a compact trace
// (docs/format/compact.md, "Records"; codes in CompactFormat.hpp). It reads
// the records of one frame, as the container gave them decompressed, and
// reports the elements in document order through calls shaped like a SAX
// parser's, with each attribute's value as an XML parser would return it
// from the XML form of the same trace. It reads no file: the reader's
// CompactTraceReader feeds it the frames of a trace.
//
// How to use it
// -------------
// 1. Implement CompactHandler:
//      frameStart(timeAdjustmentSeconds)  the frame's Program was read
//      startElement(name, attributes)     an element begins: a call, an
//                                         "Event", "Nested", or a child of
//                                         a call ("For", "Data", "Info", ...)
//      endElement(name)                   it ends (every start has its end;
//                                         a leaf's end follows at once)
//    attributes (CompactAttributes) answers as an attribute list does:
//    size(), name(i), value(i), find(name, &value), with value() the text
//    an XML parser would return (entities decoded; integers and times in
//    the writer's exact text, e.g. "12" or "3.000001234"). It also answers
//    without text: kind(i) (Integer, Text, Time) and integer(i), which for a
//    Time is nanoseconds after the trace's timeAdjustment. Everything the
//    handler gets is valid during the call only.
// 2. CompactFrameDecoder::decode(records, size, handler) for each frame, or
//    decodeFrame() with the handler's own type (direct calls, and static
//    elements without an attribute list: CompactHandler::kTakesStaticElements).
//    Each frame decodes on its own; one decoder per thread.
// 3. A handler of its own type may stop the decoding between two top-level
//    elements (CompactHandler::kMayPause): decodeFrame() then returns
//    false, and resumeFrame() goes on from there, as long as the frame's
//    records stay where they are. So a frame can be turned into text a
//    piece at a time.
//
// Structure reported: the top level holds calls and Events, each possibly
// preceded by a "Nested" element that holds the calls made inside it (and
// their own Nested blocks); a call's children follow its start. Element
// and attribute names are whatever the writer was given (C API users may
// write any), so the handler checks what it needs.
//
// Errors: damage inside the records (an unknown code, a string or shape
// index not defined in the frame, a value past the frame's end, an element
// left open at its end, a table from another dialect definition) throws
// CompactRecordProblem with the byte in the records and what is wrong.
// Decoding allocates at most in proportion to the frame's decoded size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/Format.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/codec/Inlining.hpp>

namespace hdtrace {

class CompactHandler;

// Nested blocks deeper than this are refused: the writer nests at most
// HD_LOG_MAX_DEPTH levels, and the bound keeps the decoder's counters small.
constexpr uint32_t kMaxNestedDepth = 1024;

// The attributes of the element being reported.
class CompactAttributes {
  public:
    enum class Kind { Integer, Text, Time };

    // --- As an XML parser's attribute list: the element's XML form.
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
    friend void startProgramElement(CompactHandler &, int64_t);
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

// The values of an element of a static shape (compact::staticShapes()), by
// attribute index in the shape: numbers (integers; times as nanoseconds
// after timeAdjustment) and texts (kText values, unescaped). Valid during
// the call only.
struct StaticElement {
    uint32_t shape;
    const int64_t *numbers;
    const std::string_view *texts;
};

class CompactHandler {
  public:
    // A handler that the decoder is given as its own type (decodeFrame,
    // CompactTraceReader::readFrames, CompactSource::next) may take the
    // elements of static shapes without an attribute list: it sets this to
    // true and defines
    //   bool startStaticElement(std::string_view name, const StaticElement &)
    // which returns false, having done nothing, to be given the element
    // through startElement instead. Its end comes through endElement.
    static constexpr bool kTakesStaticElements = false;
    // A handler of its own type may set this to true and define
    //   bool pauseWanted() const
    // which the decoder asks between two top-level elements: true stops
    // the frame's decoding there (CompactFrameDecoder::resumeFrame).
    static constexpr bool kMayPause = false;

    virtual ~CompactHandler() = default;
    // A frame begins (CompactFrameDecoder only): its Program's timeAdjustment.
    virtual void frameStart(int64_t /*timeAdjustmentSeconds*/) {}
    virtual void startElement(std::string_view name, const CompactAttributes &attributes) = 0;
    virtual void endElement(std::string_view name) = 0;
};

// Thrown inside decode(): where in the frame's records, and what is wrong.
struct CompactRecordProblem {
    size_t position;  // in the frame's decoded records
    std::string problem;
};

// Decodes one frame's records. Reusable: its tables are reset per frame.
class CompactFrameDecoder {
  public:
    CompactFrameDecoder();
    // Throws CompactRecordProblem on damage.
    void decode(const unsigned char *records, size_t size, CompactHandler &handler) {
        decodeFrame(records, size, handler);
    }
    // The same with the handler's own type: its calls are direct (and
    // inlined where it is final), and it may take static elements
    // (CompactHandler::kTakesStaticElements).
    // True when the frame was decoded to its end; false when the handler
    // paused it (kMayPause): resumeFrame() goes on.
    template <class Handler>
    bool decodeFrame(const unsigned char *records, size_t size, Handler &handler);
    // The same for a frame whose times are gathered (GatheredTimes.hpp),
    // as it was decompressed: its times are read where they are. Problems
    // are placed in the gathered bytes.
    template <class Handler>
    bool decodeGatheredFrame(const unsigned char *gathered, size_t size, Handler &handler);
    // Whether the last frame given stopped where its handler paused it.
    bool paused() const { return resumeAt_ != nullptr; }
    // Goes on with the paused frame, whose records must not have moved or
    // changed; true once it is decoded to its end.
    template <class Handler>
    bool resumeFrame(Handler &handler) {
        const unsigned char *at = resumeAt_;
        resumeAt_ = nullptr;
        return decodeRecordsFrom(at, handler);
    }
    // Leaves a paused frame undecoded.
    void abandonFrame() { resumeAt_ = nullptr; }
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
        if (*in != end_ && **in < 0x80) return *(*in)++;  // most values: one byte
        uint64_t value;
        if (!compact::getVarint(in, end_, &value)) failVarint(*in, what);
        return value;
    }
    [[noreturn]] void failVarint(const unsigned char *at, const char *what) const;
    // The next value of a frame's gathered times.
    uint64_t gatheredTime(const char *what) {
        if (times_ != timesEnd_ && *times_ < 0x80) return *times_++;
        uint64_t value;
        if (!compact::getVarint(&times_, timesEnd_, &value)) failGatheredTime(what);
        return value;
    }
    [[noreturn]] void failGatheredTime(const char *what) const;
    // A time value's difference from the previous one (the value a frame
    // without gathered times holds in place): in a gathered frame, the
    // change of that difference since the last value of the same slot.
    int64_t timeDifference(const unsigned char **in, int64_t *slot, const char *what) {
        if (!gathered_) return compact::unzigzag(varint(in, what));
        return *slot = compact::wrappingSum(*slot, compact::unzigzag(gatheredTime(what)));
    }
    std::string_view stringAt(const unsigned char **in, const char *what);
    void readProgram(const unsigned char **in);
    void readString(const unsigned char **in);
    void readShape(const unsigned char **in);
    // Reads the values of an element of shape `shape` into attributes_.
    std::string_view readElement(const unsigned char **in, uint64_t shape);
    // Reads one value of coding (not kRaw); field: its previous value
    // (kFieldDelta) or, in a gathered frame, its slot (a time), endBase:
    // what the element's end is coded from (set by its time), text: where
    // a kText value goes.
    int64_t readValue(const unsigned char **in, uint8_t coding, int64_t *field, int64_t *endBase,
                      std::string_view *text);
    // Reads the values of an element of static shape `shape`, which has no
    // raw attribute text, into numbers_ and texts_; kCodings: the shape's
    // codings, known when compiled, so that no loop runs over the values
    // and no switch on each one's coding; kGathered: the frame's times are
    // gathered. Each static shape has the one of its codings
    // (StaticReaders, in the .cpp), which the element loop calls through
    // staticReaders_.
    template <bool kGathered, uint8_t... kCodings>
    void readStaticShape(const unsigned char **in, uint32_t shape);
    using StaticReader = void (CompactFrameDecoder::*)(const unsigned char **in, uint32_t shape);
    struct StaticReaders;
    // attributes_ from what readStaticShape read.
    void staticAttributes(uint32_t shape);
    void resetFrame(const unsigned char *records, size_t size, const unsigned char *times,
                    const unsigned char *timesEnd);
    // The frame's Program, then its elements (decodeRecordsFrom).
    template <class Handler>
    bool decodeRecords(Handler &handler);
    // The elements from `in`, a top-level place; false where the handler
    // pauses (resumeAt_ set), true at the frame's end, checked whole.
    template <class Handler>
    bool decodeRecordsFrom(const unsigned char *in, Handler &handler);
    // Per static shape: whether it has raw attribute text (read by
    // readElement). Bytes, not bits: the loop reads one for every element.
    static const std::vector<uint8_t> &staticShapesWithRaw();

    const unsigned char *begin_ = nullptr;
    const unsigned char *end_ = nullptr;
    const unsigned char *resumeAt_ = nullptr;  // where a paused frame goes on; null: none
    int64_t timeAdjustmentSeconds_ = 0;
    std::vector<std::string_view> strings_;
    std::vector<compact::ShapeAttribute> dynamicAttributes_;
    std::vector<DynamicShape> dynamicShapes_;
    int64_t previousTime_ = 0;
    bool endsAreTimes_ = true;  // records of version 2 on: an end is the next previous time
    // Records of version 3 on: a <Nested> block gives its owner's start
    // (blockStarts_ while it is open), and the owner, the element after
    // the block (followsBlock_), codes its end from the block's last
    // time or end (blockEnd_).
    bool blocksGiveStarts_ = true;
    std::vector<int64_t> blockStarts_;
    int64_t blockEnd_ = 0;
    bool followsBlock_ = false;
    // The static shapes of the frame's table (its dynamic shapes follow).
    uint32_t staticCount_ = 0;
    int64_t previousIds_[compact::kIdKindCount] = {};
    // kFieldDelta: by staticFieldOffset(shape) + attribute; in a gathered
    // frame also each time's slot (a time attribute is never kFieldDelta).
    std::vector<int64_t> fields_;
    // A gathered frame's times (gathered_), and the slots of its dynamic
    // shapes' times (by attribute in dynamicAttributes_) and of its
    // <Nested> blocks' starts.
    bool gathered_ = false;
    const unsigned char *times_ = nullptr;
    const unsigned char *timesEnd_ = nullptr;
    std::vector<int64_t> dynamicTimes_;
    int64_t blockStartSlot_ = 0;
    // By static shape: the reader of its values in this frame (plain or gathered).
    const StaticReader *staticReaders_ = nullptr;
    std::vector<int64_t> numbers_;  // a static element's values (readStaticShape)
    std::vector<std::string_view> texts_;
    const std::vector<uint8_t> &withRaw_ = staticShapesWithRaw();
    // The static table and where each shape's fields start in fields_,
    // looked up once: the element loop reads them for every element.
    const compact::StaticShape *const staticShapes_ = compact::staticShapes();
    std::vector<uint32_t> fieldOffsets_;
    CompactAttributes attributes_;
    CompactAttributes noAttributes_;
};

// Gives handler the Program element of a trace whose frames say
// timeAdjustmentSeconds (each frame's Program is read, not reported).
void startProgramElement(CompactHandler &handler, int64_t timeAdjustmentSeconds);

// --- The decoding loop, a template on the handler

HDTRACE_HOT_INLINE int64_t CompactFrameDecoder::readValue(const unsigned char **in, uint8_t coding,
                                                          int64_t *field, int64_t *endBase,
                                                          std::string_view *text) {
    using namespace compact;
    switch (coding) {
        case kInteger:
            return unzigzag(varint(in, "an integer"));
        case kFieldDelta:
            return *field = wrappingSum(*field, unzigzag(varint(in, "an integer")));
        case kText:
            *text = stringAt(in, "a text value");
            return 0;
        case kTime:
            previousTime_ = wrappingSum(previousTime_, timeDifference(in, field, "a time"));
            *endBase = followsBlock_ ? blockEnd_ : previousTime_;
            return previousTime_;
        case kEnd: {
            const int64_t end = wrappingSum(*endBase, timeDifference(in, field, "an end"));
            if (endsAreTimes_) previousTime_ = end;
            return end;
        }
        default: {
            int64_t &previous = previousIds_[coding - kIdDelta];
            return previous = wrappingSum(previous, unzigzag(varint(in, "an id")));
        }
    }
}

template <class Handler>
bool CompactFrameDecoder::decodeFrame(const unsigned char *records, size_t size, Handler &handler) {
    resetFrame(records, size, nullptr, nullptr);
    return decodeRecords(handler);
}

template <class Handler>
bool CompactFrameDecoder::decodeGatheredFrame(const unsigned char *gathered, size_t size,
                                              Handler &handler) {
    using compact::kGatheredTrailerBytes;
    size_t recordsBytes = 0;
    if (!compact::gatheredParts(gathered, size, &recordsBytes)) {
        resetFrame(gathered, size, nullptr, nullptr);  // places the problem in these bytes
        fail(gathered + (size < kGatheredTrailerBytes ? 0 : size - kGatheredTrailerBytes),
             "the trailer of a frame with gathered times is cut or points past it");
    }
    resetFrame(gathered, recordsBytes, gathered + recordsBytes,
               gathered + size - kGatheredTrailerBytes);
    return decodeRecords(handler);
}

template <class Handler>
bool CompactFrameDecoder::decodeRecords(Handler &handler) {
    using namespace compact;
    const unsigned char *in = begin_;
    if (in == end_ || *in != kProgram) fail(in, "the frame does not begin with its Program");
    ++in;
    readProgram(&in);
    handler.frameStart(timeAdjustmentSeconds_);
    return decodeRecordsFrom(in, handler);
}

template <class Handler>
bool CompactFrameDecoder::decodeRecordsFrom(const unsigned char *in, Handler &handler) {
    using namespace compact;
    const uint64_t staticCount = staticCount_;
    // A pause comes only between top-level elements, where these are 0 and
    // false: a frame goes on from there with them so.
    uint32_t nestedDepth = 0;
    std::string_view openElement;  // the call whose children are being listed
    bool inChildren = false;
    while (in != end_) {
        if constexpr (Handler::kMayPause) {
            if (!inChildren && nestedDepth == 0 && handler.pauseWanted()) {
                resumeAt_ = in;
                return false;
            }
        }
        const unsigned char *at = in;
        const uint64_t code = varint(&in, "an operation");
        switch (code) {
            case kEndElement:
                if (!inChildren) fail(at, "an element end without an open element");
                inChildren = false;
                handler.endElement(openElement);
                continue;
            case kNestedOpen:
                if (inChildren) fail(at, "a <Nested> block among a call's children");
                if (++nestedDepth > kMaxNestedDepth) fail(at, "<Nested> blocks nest too deep");
                if (blocksGiveStarts_) {
                    previousTime_ = wrappingSum(
                        previousTime_,
                        timeDifference(&in, &blockStartSlot_, "a <Nested> block's start"));
                    blockStarts_.push_back(previousTime_);
                    followsBlock_ = false;
                }
                handler.startElement("Nested", noAttributes_);
                continue;
            case kNestedClose:
                if (inChildren || nestedDepth == 0) fail(at, "a </Nested> without its <Nested>");
                --nestedDepth;
                if (blocksGiveStarts_) {
                    blockEnd_ = previousTime_;
                    previousTime_ = blockStarts_.back();
                    blockStarts_.pop_back();
                    followsBlock_ = true;
                }
                handler.endElement("Nested");
                continue;
            case kProgram:
                fail(at, "a second Program in the frame");
            case kString:
                readString(&in);
                continue;
            case kShape:
                readShape(&in);
                continue;
            default:
                break;
        }
        if (code < kFirstElementCode) fail(at, "unknown operation " + std::to_string(code));
        const bool hasChildren = (code - kFirstElementCode) & 1;
        const uint64_t shape = (code - kFirstElementCode) >> 1;
        std::string_view element;
        if (shape < staticCount && !withRaw_[shape]) {
            const auto known = static_cast<uint32_t>(shape);
            element = staticShapes_[known].element;
            (this->*staticReaders_[known])(&in, known);
            followsBlock_ = false;
            if (hasChildren && inChildren) fail(at, "a child element with children of its own");
            bool taken = false;
            if constexpr (Handler::kTakesStaticElements)
                taken = handler.startStaticElement(
                    element, StaticElement{known, numbers_.data(), texts_.data()});
            if (!taken) {
                staticAttributes(known);
                handler.startElement(element, attributes_);
            }
        } else {
            element = readElement(&in, shape);
            followsBlock_ = false;
            if (hasChildren && inChildren) fail(at, "a child element with children of its own");
            handler.startElement(element, attributes_);
        }
        if (hasChildren) {
            inChildren = true;
            openElement = element;
        } else {
            handler.endElement(element);
        }
    }
    if (inChildren) fail(in, "the frame ends inside <" + std::string(openElement) + ">");
    if (nestedDepth > 0) fail(in, "the frame ends inside a <Nested> block");
    if (gathered_ && times_ != timesEnd_)
        fail(times_, "gathered times left over after the frame's last time");
    return true;
}

}  // namespace hdtrace
