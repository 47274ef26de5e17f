#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/codec/XmlReferences.hpp>

namespace hdtrace {

using namespace hdtrace::compact;

namespace {

bool isNameStart(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' ||
           static_cast<unsigned char>(c) >= 0x80;
}
bool isNameChar(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}
bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// An attribute value as an XML parser returns it: entity and character
// references decoded, blanks normalised to spaces. False when a reference
// is not well-formed.
bool decodeAttributeValue(std::string_view text, std::string &out) {
    out.clear();
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\t' || c == '\n' || c == '\r') {
            out += ' ';
            continue;
        }
        if (c == '<') return false;
        if (c != '&') {
            out += c;
            continue;
        }
        const size_t semicolon = text.find(';', i);
        if (semicolon == std::string_view::npos) return false;
        if (!decodeReference(text.substr(i + 1, semicolon - i - 1), out)) return false;
        i = semicolon;
    }
    return true;
}

}  // namespace

// --- CompactAttributes

void CompactAttributes::clear() {
    slotCount_ = 0;
    entryCount_ = 0;
    decodedUsed_ = 0;
    staticShape_ = -1;
}

void CompactAttributes::addSlot(const Slot &slot) {
    add(slot.name, slot.coding, slot.number, slot.text);
}

bool CompactAttributes::addRaw(std::string_view raw) {
    size_t i = 0;
    for (;;) {
        while (i < raw.size() && isBlank(raw[i]))
            ++i;
        if (i == raw.size()) return true;
        if (!isNameStart(raw[i])) return false;
        const size_t nameStart = i;
        while (i < raw.size() && isNameChar(raw[i]))
            ++i;
        const std::string_view name = raw.substr(nameStart, i - nameStart);
        while (i < raw.size() && isBlank(raw[i]))
            ++i;
        if (i == raw.size() || raw[i] != '=') return false;
        ++i;
        while (i < raw.size() && isBlank(raw[i]))
            ++i;
        if (i == raw.size() || (raw[i] != '\'' && raw[i] != '"')) return false;
        const char quote = raw[i++];
        const size_t close = raw.find(quote, i);
        if (close == std::string_view::npos) return false;
        if (decodedUsed_ == decoded_.size()) decoded_.emplace_back();
        std::string &value = decoded_[decodedUsed_++];
        if (!decodeAttributeValue(raw.substr(i, close - i), value)) return false;
        addEntry(name, Kind::Text, 0, value);
        i = close + 1;
        if (i < raw.size() && !isBlank(raw[i])) return false;
    }
}

std::string_view CompactAttributes::value(int index) const {
    const Entry &e = entry(index);
    if (e.kind == Kind::Text) return e.text;
    const size_t offset = static_cast<size_t>(index) * kMaxNumberChars;
    if (e.formatted < 0) {
        char *start = text_.data() + offset;
        char *end = e.kind == Kind::Time ? formatRelativeTime(start, e.number)
                                         : formatInteger(start, e.number);
        e.formatted = static_cast<int>(end - start);
    }
    return std::string_view(text_.data() + offset, static_cast<size_t>(e.formatted));
}

void CompactAttributes::finish() {
    // Room for every number's text now, so that value() never moves the
    // text of another value it returned.
    const size_t needed = static_cast<size_t>(entryCount_) * kMaxNumberChars;
    if (text_.size() < needed) text_.resize(needed);
}

bool CompactAttributes::find(std::string_view attributeName, std::string_view *valueOut) const {
    for (int index = 0; index < size(); ++index) {
        if (name(index) == attributeName) {
            *valueOut = value(index);
            return true;
        }
    }
    return false;
}

// --- CompactFrameDecoder

namespace compact {
namespace {
#include "CompactShapes.inc"
}  // namespace
}  // namespace compact

template <bool kGathered, uint8_t... kCodings>
void CompactFrameDecoder::readStaticShape(const unsigned char **in, uint32_t shape) {
    using namespace compact;
    static_assert(((kCodings != kRaw) && ...), "raw attribute text is read by readElement");
    // The cursor, the frame's end and the previous time in locals:
    // stores of the values (64-bit integers) could otherwise change the
    // members of the same type, which the compiler would then read
    // again for every value.
    int64_t *const fields = fields_.data() + fieldOffsets_[shape];
    int64_t *const numbers = numbers_.data();
    std::string_view *const texts = texts_.data();
    const unsigned char *const end = end_;
    const unsigned char *at = *in;
    const auto next = [&](const char *what) -> uint64_t {
        if (at != end && *at < 0x80) return *at++;
        uint64_t value;
        if (!compact::getVarint(&at, end, &value)) failVarint(at, what);
        return value;
    };
    int64_t previousTime = previousTime_;
    int64_t endBase = 0;
    const auto timeDifference = [&](uint32_t index, const char *what) -> int64_t {
        if constexpr (kGathered)
            return fields[index] = wrappingSum(fields[index], unzigzag(gatheredTime(what)));
        else
            return unzigzag(next(what));
    };
    uint32_t index = 0;
    const auto readOne = [&](auto codingConstant) {
        constexpr uint8_t coding = decltype(codingConstant)::value;
        int64_t value = 0;
        if constexpr (coding == kInteger) {
            value = unzigzag(next("an integer"));
        } else if constexpr (coding == kFieldDelta) {
            value = fields[index] = wrappingSum(fields[index], unzigzag(next("an integer")));
        } else if constexpr (coding == kText) {
            *in = at;
            texts[index] = stringAt(in, "a text value");
            at = *in;
        } else if constexpr (coding == kTime) {
            value = previousTime = wrappingSum(previousTime, timeDifference(index, "a time"));
            endBase = followsBlock_ ? blockEnd_ : previousTime;
        } else if constexpr (coding == kEnd) {
            value = wrappingSum(endBase, timeDifference(index, "an end"));
            if (endsAreTimes_) previousTime = value;
        } else {
            static_assert(coding >= kIdDelta && coding < kIdDelta + kIdKindCount,
                          "a static shape's coding without its case here");
            int64_t &previous = previousIds_[coding - kIdDelta];
            value = previous = wrappingSum(previous, unzigzag(next("an id")));
        }
        numbers[index++] = value;
    };
    (readOne(std::integral_constant<uint8_t, kCodings>{}), ...);
    (void)readOne;
    (void)timeDifference;
    (void)endBase;
    previousTime_ = previousTime;
    *in = at;
}

// The reader of each static shape: readStaticShape of its codings, read
// from the generated table when compiled.
struct CompactFrameDecoder::StaticReaders {
    static constexpr uint32_t kCount =
        sizeof compact::kStaticShapeTable / sizeof compact::kStaticShapeTable[0];
    template <bool kGathered, size_t kShape, size_t... kIndex>
    static constexpr StaticReader readerOf(std::index_sequence<kIndex...>) {
        constexpr const compact::ShapeAttribute *attributes =
            compact::kStaticShapeTable[kShape].attributes;
        // A shape with raw attribute text has none: readElement reads it.
        if constexpr (((attributes[kIndex].coding == compact::kRaw) || ...))
            return nullptr;
        else
            return &CompactFrameDecoder::readStaticShape<kGathered, attributes[kIndex].coding...>;
    }
    template <bool kGathered, size_t... kShape>
    static constexpr std::array<StaticReader, kCount> table(std::index_sequence<kShape...>) {
        return {readerOf<kGathered, kShape>(
            std::make_index_sequence<compact::kStaticShapeTable[kShape].count>{})...};
    }
    static const StaticReader *of(bool gathered) {
        static constexpr std::array<StaticReader, kCount> kPlain =
            table<false>(std::make_index_sequence<kCount>{});
        static constexpr std::array<StaticReader, kCount> kGathered =
            table<true>(std::make_index_sequence<kCount>{});
        return gathered ? kGathered.data() : kPlain.data();
    }
};

CompactFrameDecoder::CompactFrameDecoder() {
    uint32_t widest = 0;
    for (uint32_t shape = 0; shape < staticShapeCount(); ++shape) {
        widest = std::max(widest, staticShapes()[shape].count);
        fieldOffsets_.push_back(staticFieldOffset(shape));
    }
    numbers_.resize(widest);
    texts_.resize(widest);
}

const std::vector<uint8_t> &CompactFrameDecoder::staticShapesWithRaw() {
    static const std::vector<uint8_t> withRaw = [] {
        std::vector<uint8_t> flags(staticShapeCount(), 0);
        for (uint32_t shape = 0; shape < staticShapeCount(); ++shape) {
            const StaticShape &known = staticShapes()[shape];
            for (uint32_t index = 0; index < known.count; ++index)
                if (known.attributes[index].coding == kRaw) flags[shape] = 1;
        }
        return flags;
    }();
    return withRaw;
}

void CompactFrameDecoder::resetFrame(const unsigned char *records, size_t size,
                                     const unsigned char *times, const unsigned char *timesEnd) {
    begin_ = records;
    end_ = records + size;
    resumeAt_ = nullptr;
    gathered_ = times != nullptr;
    staticReaders_ = StaticReaders::of(gathered_);
    times_ = times;
    timesEnd_ = timesEnd;
    dynamicTimes_.clear();
    blockStartSlot_ = 0;
    strings_.clear();
    dynamicAttributes_.clear();
    dynamicShapes_.clear();
    previousTime_ = 0;
    blockStarts_.clear();
    followsBlock_ = false;
    for (int64_t &previous : previousIds_)
        previous = 0;
    fields_.assign(staticFieldCount(), 0);
}

void CompactFrameDecoder::staticAttributes(uint32_t shape) {
    const StaticShape &known = staticShapes()[shape];
    attributes_.clear();
    for (uint32_t index = 0; index < known.count; ++index) {
        const ShapeAttribute &attribute = known.attributes[index];
        const bool text = attribute.coding == kText;
        attributes_.add(attribute.name, attribute.coding, text ? 0 : numbers_[index],
                        text ? texts_[index] : std::string_view());
    }
    attributes_.finish();
    attributes_.staticShape_ = static_cast<int>(shape);
}

void CompactFrameDecoder::fail(const unsigned char *at, const std::string &problem) const {
    throw CompactRecordProblem{static_cast<size_t>(at - begin_), problem};
}

void CompactFrameDecoder::failGatheredTime(const char *what) const {
    fail(times_, std::string(what) +
                     ": the gathered times end before it, or it is longer than "
                     "64 bits");
}

void CompactFrameDecoder::failVarint(const unsigned char *at, const char *what) const {
    fail(at, std::string(what) + " is cut or longer than 64 bits");
}

std::string_view CompactFrameDecoder::stringAt(const unsigned char **in, const char *what) {
    const unsigned char *at = *in;
    const uint64_t index = varint(in, what);
    if (index >= strings_.size())
        fail(at, std::string(what) + " names string " + std::to_string(index) +
                     ", but the frame defines " + std::to_string(strings_.size()));
    return strings_[index];
}

void CompactFrameDecoder::readProgram(const unsigned char **in) {
    const unsigned char *at = *in;
    const uint64_t version = varint(in, "the records' version");
    if (version < kFirstRecordsVersion || version > kRecordsVersion)
        fail(at, "records of version " + std::to_string(version) + ", this reader knows versions " +
                     std::to_string(kFirstRecordsVersion) + " to " +
                     std::to_string(kRecordsVersion));
    if (gathered_ && version < 3)
        fail(at, "records of version " + std::to_string(version) + " with gathered times");
    endsAreTimes_ = version >= 2;
    blocksGiveStarts_ = version >= 3;
    at = *in;
    const uint64_t fingerprint = varint(in, "the shape table's fingerprint");
    staticCount_ =
        fingerprint > UINT32_MAX ? 0 : staticShapeCountFor(static_cast<uint32_t>(fingerprint));
    if (staticCount_ == 0)
        fail(at, "written with another definition of the dialect (shape table " +
                     std::to_string(fingerprint) + ", this reader's " +
                     std::to_string(staticShapesFingerprint()) + ")");
    timeAdjustmentSeconds_ = unzigzag(varint(in, "timeAdjustment"));
}

void CompactFrameDecoder::readString(const unsigned char **in) {
    const unsigned char *at = *in;
    const uint64_t length = varint(in, "a string's length");
    if (length > static_cast<uint64_t>(end_ - *in))
        fail(at, "a string of " + std::to_string(length) + " bytes runs past the frame's end");
    strings_.emplace_back(reinterpret_cast<const char *>(*in), static_cast<size_t>(length));
    *in += length;
}

void CompactFrameDecoder::readShape(const unsigned char **in) {
    DynamicShape shape;
    shape.element = stringAt(in, "a shape's element name");
    const unsigned char *at = *in;
    const uint64_t count = varint(in, "a shape's attribute count");
    // Each attribute takes at least two bytes: a bound from the frame.
    if (count > static_cast<uint64_t>(end_ - *in) / 2)
        fail(at, "a shape of " + std::to_string(count) + " attributes runs past the frame's end");
    shape.first = dynamicAttributes_.size();
    shape.count = static_cast<uint32_t>(count);
    bool timeSeen = false;
    for (uint64_t index = 0; index < count; ++index) {
        ShapeAttribute attribute;
        attribute.name = stringAt(in, "an attribute name");
        if (*in == end_) fail(*in, "a shape is cut before its last coding");
        attribute.coding = **in;
        if (!isKnownCoding(attribute.coding))
            fail(*in, "unknown coding " + std::to_string(attribute.coding));
        if (attribute.coding == kEnd && !timeSeen) fail(*in, "an end coded before any time");
        if (attribute.coding == kFieldDelta)
            fail(*in, "a field difference in a shape defined in the frame");
        if (attribute.coding == kTime) timeSeen = true;
        ++*in;
        dynamicAttributes_.push_back(attribute);
    }
    dynamicTimes_.resize(dynamicAttributes_.size(), 0);
    dynamicShapes_.push_back(shape);
}

std::string_view CompactFrameDecoder::readElement(const unsigned char **in, uint64_t shape) {
    const ShapeAttribute *attributes;
    uint32_t count;
    std::string_view element;
    const uint64_t staticCount = staticCount_;
    uint32_t fieldBase = 0;
    if (shape < staticCount) {
        const StaticShape &known = staticShapes()[shape];
        fieldBase = staticFieldOffset(static_cast<uint32_t>(shape));
        element = known.element;
        attributes = known.attributes;
        count = known.count;
    } else if (shape - staticCount < dynamicShapes_.size()) {
        const DynamicShape &defined = dynamicShapes_[shape - staticCount];
        element = defined.element;
        attributes = dynamicAttributes_.data() + defined.first;
        count = defined.count;
    } else {
        fail(*in, "shape " + std::to_string(shape) + " is neither known nor defined in the frame");
    }
    attributes_.clear();
    int64_t endBase = 0;
    bool rawSeen = false;
    for (uint32_t index = 0; index < count; ++index) {
        const ShapeAttribute &attribute = attributes[index];
        std::string_view text;
        if (attribute.coding == kRaw) {
            const unsigned char *at = *in;
            text = stringAt(in, "raw attribute text");
            rawSeen = true;
            attributes_.add(attribute.name, attribute.coding, 0, text);
            if (!attributes_.addRaw(text))
                fail(at, "raw attribute text of <" + std::string(element) +
                             "> is not a list of name='value'");
            continue;
        }
        // Shapes defined in a frame have no kFieldDelta (readShape): their
        // slot is for a gathered time only.
        int64_t *field =
            shape < staticCount
                ? fields_.data() + fieldBase + index
                : dynamicTimes_.data() + dynamicShapes_[shape - staticCount].first + index;
        const int64_t number = readValue(in, attribute.coding, field, &endBase, &text);
        attributes_.add(attribute.name, attribute.coding, number, text);
    }
    attributes_.finish();
    if (shape < staticCount && !rawSeen) attributes_.staticShape_ = static_cast<int>(shape);
    return element;
}

void startProgramElement(CompactHandler &handler, int64_t timeAdjustmentSeconds) {
    CompactAttributes program;
    CompactAttributes::Slot slot{"timeAdjustment", kInteger, timeAdjustmentSeconds, {}};
    program.addSlot(slot);
    program.finish();
    handler.startElement("Program", program);
}

}  // namespace hdtrace
