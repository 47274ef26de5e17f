// The column reader over DialectScanner, with libxml2 as the fallback.
//
// DialectColumnBuilder computes exactly what ColumnHandler (EventColumns.cpp)
// computes, from the same attributes in the same order; the tests compare
// the two on every trace the suite generates. Wherever ColumnHandler would
// fail (a number out of range, a time that is not one, a root that is not
// <Program>), this builder answers Unrecognised instead, so that the
// libxml2 reader runs and words the error with its file:line:column.
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/DialectScanner.hpp>
#include <hdtrace/reader/EventColumns.hpp>

namespace hdtrace::reader {
namespace {

using Verdict = DialectHandler::Verdict;

// The per-attribute work is small and runs ten times per call: inlined into
// one loop (a call costs as much as the work), the rare cases kept out of it.
#if defined(__GNUC__)
#define HDTRACE_HOT_INLINE inline __attribute__((always_inline))
#define HDTRACE_COLD __attribute__((noinline, cold))
#else
#define HDTRACE_HOT_INLINE inline
#define HDTRACE_COLD
#endif

// What parseInteger (DecimalNumber.cpp) returns, without the optional.
struct ParsedInteger {
    bool valid = false;
    bool outOfRange = false;  // digits (with an optional '-') beyond 64 bits
    int64_t value = 0;
};

HDTRACE_COLD ParsedInteger parseIntegerSlowly(std::string_view text) {
    ParsedInteger parsed;
    if (text.empty() || text.front() == '+') return parsed;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed.value);
    parsed.valid = error == std::errc() && end == text.data() + text.size();
    parsed.outOfRange = error == std::errc::result_out_of_range;
    return parsed;
}

// Eight decimal digits at text, or -1 if any is not one (SWAR: all eight
// bytes at once, least significant byte first).
HDTRACE_HOT_INLINE int64_t eightDigits(uint64_t bytes) {
    constexpr uint64_t kHigh = 0xf0f0f0f0f0f0f0f0u, kZeros = 0x3030303030303030u;
    // Each byte 0x30..0x39: high nibble 3, and adding 6 leaves it 3.
    if ((bytes & kHigh) != kZeros || ((bytes + 0x0606060606060606u) & kHigh) != kZeros) return -1;
    bytes -= kZeros;
    bytes = bytes * 10 + (bytes >> 8);  // pairs of digits in every other byte
    bytes = (((bytes & 0x000000ff000000ffu) * (100 + (1000000ull << 32))) +
             (((bytes >> 16) & 0x000000ff000000ffu) * (1 + (10000ull << 32)))) >>
            32;
    return static_cast<int64_t>(bytes);
}

HDTRACE_HOT_INLINE int64_t eightDigits(const char *text) {
    uint64_t bytes;
    std::memcpy(&bytes, text, 8);
    return eightDigits(bytes);
}

// 1 to 8 decimal digits at text as a number, or -1 if any is not one. Reads
// 8 bytes (see ScannedAttribute::value): the digits are moved to the top and
// '0's come in below them.
HDTRACE_HOT_INLINE int64_t fewDigits(const char *text, size_t count) {
    uint64_t bytes;
    std::memcpy(&bytes, text, 8);
    const unsigned shift = static_cast<unsigned>(8 - count) * 8;
    bytes = (bytes << shift) | (0x3030303030303030u & ~(~uint64_t{0} << shift));
    return eightDigits(bytes);
}

// The common case inline: an optional '-' and 1 to 16 digits, which cannot
// overflow; anything else goes the way of parseInteger (from_chars).
HDTRACE_HOT_INLINE ParsedInteger parseIntegerValue(std::string_view text) {
    const char *digit = text.data();
    size_t count = text.size();
    const bool negative = count != 0 && *digit == '-';
    digit += negative;
    count -= negative;
    int64_t value;
    if (count == 1 && static_cast<unsigned>(*digit - '0') <= 9) {
        value = *digit - '0';  // ranks, tags, ids: often one digit
    } else if (count - 1 < 8) {
        value = fewDigits(digit, count);
    } else if (count - 9 < 8) {
        const int64_t high = fewDigits(digit, count - 8), low = eightDigits(digit + count - 8);
        value = (high | low) < 0 ? -1 : high * 100000000 + low;
    } else {
        return parseIntegerSlowly(text);
    }
    if (value < 0) return parseIntegerSlowly(text);
    ParsedInteger parsed;
    parsed.valid = true;
    parsed.value = negative ? -value : value;
    return parsed;
}

// Could ColumnHandler::numbersFit refuse this value as beyond 64 bits? Values
// of 18 characters or fewer never are; longer ones are checked (for text
// attributes too, which only sends more traces to libxml2, never fewer).
HDTRACE_HOT_INLINE bool mayOverflow(std::string_view value) {
    return value.size() >= 19 && parseIntegerSlowly(value).outOfRange;
}

HDTRACE_HOT_INLINE bool fitsThirtyTwoBitColumn(const ParsedInteger &parsed) {
    return !parsed.valid ||
           (parsed.value > kNoValue32 && parsed.value <= std::numeric_limits<int32_t>::max());
}

// Byte by byte over a literal: unrolled by the compiler, no call to memcmp.
template <size_t N>
inline bool equals(std::string_view name, const char (&literal)[N]) {
    if (name.size() != N - 1) return false;
    for (size_t i = 0; i < N - 1; ++i)
        if (name[i] != literal[i]) return false;
    return true;
}

inline bool sameBytes(const char *a, const char *b, size_t length) {
    for (size_t i = 0; i < length; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// The ten attributes stored in 32-bit columns (isThirtyTwoBitColumn).
bool isThirtyTwoBitColumn(std::string_view name) {
    switch (name.size()) {
        case 3:
            return equals(name, "tag") || equals(name, "cid") || equals(name, "fid");
        case 4:
            return equals(name, "root");
        case 5:
            return equals(name, "toTag");
        case 6:
            return equals(name, "toRank") || equals(name, "source");
        case 7:
            return equals(name, "fromTag");
        case 8:
            return equals(name, "rootRank") || equals(name, "fromRank");
        default:
            return false;
    }
}

// The attributes of a call the table reads (ColumnHandler::startCall).
enum class CallAttribute : uint8_t {
    Other,
    Cid,
    Fid,
    Rid,
    End,
    Tag,
    Time,
    Size,
    Root,  // root and rootRank
    Name,
    ToTag,
    ToRank,
    Offset,
    Source,
    FromTag,
    FromRank,
    RecvSize,
    SendSize
};

// Dispatch on length and first letter, then compare.
CallAttribute callAttributeOf(std::string_view attribute) {
    switch (attribute.size() << 8 | static_cast<unsigned char>(attribute[0])) {
        case 3 << 8 | 'c':
            return equals(attribute, "cid") ? CallAttribute::Cid : CallAttribute::Other;
        case 3 << 8 | 'f':
            return equals(attribute, "fid") ? CallAttribute::Fid : CallAttribute::Other;
        case 3 << 8 | 'r':
            return equals(attribute, "rid") ? CallAttribute::Rid : CallAttribute::Other;
        case 3 << 8 | 'e':
            return equals(attribute, "end") ? CallAttribute::End : CallAttribute::Other;
        case 3 << 8 | 't':
            return equals(attribute, "tag") ? CallAttribute::Tag : CallAttribute::Other;
        case 4 << 8 | 't':
            return equals(attribute, "time") ? CallAttribute::Time : CallAttribute::Other;
        case 4 << 8 | 's':
            return equals(attribute, "size") ? CallAttribute::Size : CallAttribute::Other;
        case 4 << 8 | 'r':
            return equals(attribute, "root") ? CallAttribute::Root : CallAttribute::Other;
        case 4 << 8 | 'n':
            return equals(attribute, "name") ? CallAttribute::Name : CallAttribute::Other;
        case 5 << 8 | 't':
            return equals(attribute, "toTag") ? CallAttribute::ToTag : CallAttribute::Other;
        case 6 << 8 | 't':
            return equals(attribute, "toRank") ? CallAttribute::ToRank : CallAttribute::Other;
        case 6 << 8 | 'o':
            return equals(attribute, "offset") ? CallAttribute::Offset : CallAttribute::Other;
        case 6 << 8 | 's':
            return equals(attribute, "source") ? CallAttribute::Source : CallAttribute::Other;
        case 7 << 8 | 'f':
            return equals(attribute, "fromTag") ? CallAttribute::FromTag : CallAttribute::Other;
        case 8 << 8 | 'f':
            return equals(attribute, "fromRank") ? CallAttribute::FromRank : CallAttribute::Other;
        case 8 << 8 | 'r':
            return equals(attribute, "rootRank")   ? CallAttribute::Root
                   : equals(attribute, "recvSize") ? CallAttribute::RecvSize
                                                   : CallAttribute::Other;
        case 8 << 8 | 's':
            return equals(attribute, "sendSize") ? CallAttribute::SendSize : CallAttribute::Other;
        default:
            return CallAttribute::Other;
    }
}

struct OpenCall {
    int32_t nameCode = 0;
    int64_t startNs = 0, endNs = 0;
    bool hasStart = false, hasEnd = false;
    int64_t size = -1, sizeFallback = -1, offset = -1, rid = -1, cid = -1, fid = -1;
    int64_t peer = kNoValue32, tag = kNoValue32, recvPeer = kNoValue32, recvTag = kNoValue32;
    int peerPriority = 99, tagPriority = 99;
    bool sendAndReceive = false;
    bool isFileOpen = false;
    std::string_view fileName;  // valid until the call's start tag is handled
};

// Copied into the open call at each call: GCC makes `= OpenCall()` a
// `rep stos` into a temporary and a copy, which costs more than the call's
// attributes.
const OpenCall kFreshCall{};

class DialectColumnBuilder : public DialectHandler {
  public:
    DialectColumnBuilder(EventColumns &columns, const TraceFilter &filter,
                         const LocalToWorldTable *localToWorld)
        : columns_(columns), filter_(filter), localToWorld_(localToWorld) {}
    int timeFractionDigits() const { return timeFractionDigits_; }

    Verdict startElement(int depth, std::string_view name, const ScannedAttribute *attributes,
                         int count, TagShapeId shape) override;
    void endElement(int depth) override;

  private:
    // What the table takes from a call of one tag shape, worked out once.
    struct CallShape {
        uint32_t generation = 0;  // of the scanner's shape described; 0: none
        bool skipped = false;     // <Nested>, or a name the filter leaves out
        bool sendAndReceive = false, isFileOpen = false;
        int32_t nameCode = -1;
        CallAttribute meaning[DialectScanner::kMaxShapeAttributes];
    };

    Verdict startProgram(std::string_view name, const ScannedAttribute *attributes, int count);
    Verdict startCall(std::string_view name, const ScannedAttribute *attributes, int count,
                      TagShapeId shape);
    bool isSkipped(std::string_view name) const;
    bool takeCallAttribute(CallAttribute meaning, std::string_view value);
    Verdict startChild(std::string_view name, const ScannedAttribute *attributes, int count);
    bool valuesBelowCallRead(const ScannedAttribute *attributes, int count);
    void finishCall();
    void growColumns();

  public:
    // Gives the columns their length (rows read); call once after the scan.
    void trimColumns();

  private:
    bool parseTime(std::string_view text, int64_t *nanoseconds);
    HDTRACE_COLD bool parseTimeSlowly(std::string_view text, int64_t *nanoseconds);
    int32_t nameCode(std::string_view name);
    int64_t toWorld(int64_t cid, int64_t rank);

    EventColumns &columns_;
    const TraceFilter &filter_;
    const LocalToWorldTable *localToWorld_;
    int skipBelowDepth_ = 0;
    int64_t timeAdjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    OpenCall call_;
    std::vector<int64_t> completedRids_;
    // The twelve per-row columns grow in blocks of rows, left uninitialised
    // (ColumnMemory.hpp) until finishCall writes them, and are written through
    // these pointers: a push_back per column and row costs more than the value.
    static constexpr size_t kBlockRows = 4096;
    size_t rows_ = 0, allocatedRows_ = 0;
    int32_t *nameCodeAt_ = nullptr, *peerAt_ = nullptr, *tagAt_ = nullptr, *cidAt_ = nullptr,
            *fidAt_ = nullptr, *recvPeerAt_ = nullptr, *recvTagAt_ = nullptr;
    int64_t *startNsAt_ = nullptr, *endNsAt_ = nullptr, *sizeAt_ = nullptr, *offsetAt_ = nullptr,
            *ridAt_ = nullptr;
    std::string openFileName_;
    // Names seen recently, by a cheap hash, in front of the full map: calls
    // come from a few dozen names, and the map keeps 80,000 distinct ones linear.
    struct CacheEntry {
        int32_t code = -1;
    };
    CacheEntry cache_[256];
    std::unordered_map<std::string, int32_t> codeByName_;
    CallShape callShapes_[DialectScanner::kShapeSlots];
};

int32_t DialectColumnBuilder::nameCode(std::string_view name) {
    const size_t slot = (name.size() * 31u + static_cast<unsigned char>(name[0]) * 7u +
                         static_cast<unsigned char>(name[name.size() - 1]) +
                         static_cast<unsigned char>(name[name.size() / 2]) * 3u) &
                        255u;
    CacheEntry &entry = cache_[slot];
    if (entry.code >= 0) {
        const std::string &known = columns_.names[static_cast<size_t>(entry.code)];
        if (known.size() == name.size() && sameBytes(known.data(), name.data(), name.size()))
            return entry.code;
    }
    auto [found, added] =
        codeByName_.try_emplace(std::string(name), static_cast<int32_t>(columns_.names.size()));
    if (added) columns_.names.emplace_back(name);
    entry.code = found->second;
    return found->second;
}

int64_t DialectColumnBuilder::toWorld(int64_t cid, int64_t rank) {
    if (rank < 0 || !localToWorld_) return rank;  // wildcards stay
    auto found = localToWorld_->find(cid);
    if (found == localToWorld_->end() || rank >= static_cast<int64_t>(found->second.size()) ||
        found->second[static_cast<size_t>(rank)] < 0) {
        ++columns_.untranslatedPeers;
        return rank;
    }
    return found->second[static_cast<size_t>(rank)];
}

HDTRACE_HOT_INLINE bool DialectColumnBuilder::parseTime(std::string_view text,
                                                        int64_t *nanoseconds) {
    // Our writer's form inline: 1 to 8 digits, a point, exactly 9 digits.
    // Anything else the way of parseDecimalSeconds.
    const size_t point = text.size() - 10;
    if (point - 1 < 8 && text[point] == '.' && timeFractionDigits_ >= 0) {
        // Times since the run's start: often under ten seconds.
        const unsigned firstSecond = static_cast<unsigned>(text[0] - '0');
        const int64_t seconds = point == 1 ? (firstSecond <= 9 ? int64_t{firstSecond} : -1)
                                           : fewDigits(text.data(), point);
        const unsigned first = static_cast<unsigned>(text[point + 1] - '0');
        const int64_t rest = eightDigits(text.data() + point + 2);
        if ((seconds | rest) >= 0 && first <= 9 &&
            !__builtin_add_overflow(timeAdjustmentNs_,
                                    seconds * 1000000000 + first * 100000000 + rest, nanoseconds))
            return true;
    }
    return parseTimeSlowly(text, nanoseconds);
}

bool DialectColumnBuilder::parseTimeSlowly(std::string_view text, int64_t *nanoseconds) {
    auto parsed = parseDecimalSeconds(text);
    if (!parsed) return false;
    auto absolute = addTimes(timeAdjustmentNs_, parsed->nanoseconds);
    if (!absolute) return false;
    if (timeFractionDigits_ < 0) timeFractionDigits_ = parsed->fractionDigits;
    *nanoseconds = *absolute;
    return true;
}

Verdict DialectColumnBuilder::startElement(int depth, std::string_view name,
                                           const ScannedAttribute *attributes, int count,
                                           TagShapeId shape) {
    if (skipBelowDepth_ > 0) return Verdict::Continue;
    if (depth == 2) return startCall(name, attributes, count, shape);
    if (depth == 1) return startProgram(name, attributes, count);
    if (equals(name, "Nested")) {
        skipBelowDepth_ = depth;  // calls inside calls are not in the table: skipped unread
        return Verdict::Continue;
    }
    if (!valuesBelowCallRead(attributes, count)) return Verdict::Unrecognised;
    if (depth == 3) return startChild(name, attributes, count);
    return Verdict::Continue;
}

// Elements below a call are not in the table (but <For> and <Data>); what
// the Event reader would refuse in them goes to libxml2, which refuses it
// too (ColumnHandler::checkBelowCall).
bool DialectColumnBuilder::valuesBelowCallRead(const ScannedAttribute *attributes, int count) {
    int64_t unused = 0;
    for (int index = 0; index < count; ++index) {
        const std::string_view attribute = attributes[index].name;
        const std::string_view value = attributes[index].value;
        if (mayOverflow(value)) return false;
        if (isThirtyTwoBitColumn(attribute) && !fitsThirtyTwoBitColumn(parseIntegerValue(value)))
            return false;
        if ((equals(attribute, "time") || equals(attribute, "end")) && !parseTime(value, &unused))
            return false;
    }
    return true;
}

Verdict DialectColumnBuilder::startProgram(std::string_view name,
                                           const ScannedAttribute *attributes, int count) {
    if (!equals(name, "Program")) return Verdict::Unrecognised;
    for (int index = 0; index < count; ++index) {
        if (!equals(attributes[index].name, "timeAdjustment")) continue;
        auto parsed = parseDecimalSeconds(attributes[index].value);
        if (!parsed) return Verdict::Unrecognised;
        timeAdjustmentNs_ = parsed->nanoseconds;
    }
    return Verdict::Continue;
}

bool DialectColumnBuilder::isSkipped(std::string_view name) const {
    return equals(name, "Nested") ||
           (!filter_.names.empty() &&
            std::find(filter_.names.begin(), filter_.names.end(), name) == filter_.names.end());
}

// The value of one attribute into call_: the same assignments and priorities
// as ColumnHandler::startCall. false where ColumnHandler would fail.
HDTRACE_HOT_INLINE bool DialectColumnBuilder::takeCallAttribute(CallAttribute meaning,
                                                                std::string_view value) {
    if (mayOverflow(value)) return false;
    // One dispatch per attribute: each case parses its own value (inline).
    const auto orMinusOne = [](const ParsedInteger &number) {
        return number.valid ? number.value : int64_t{-1};
    };
    const auto orNoValue = [](const ParsedInteger &number) {
        return number.valid ? number.value : int64_t{kNoValue32};
    };
    ParsedInteger number;
    switch (meaning) {
        case CallAttribute::Other:
            return true;
        case CallAttribute::Name:
            call_.fileName = value;
            return true;
        case CallAttribute::Time:
            call_.hasStart = true;
            return parseTime(value, &call_.startNs);
        case CallAttribute::End:
            call_.hasEnd = true;
            return parseTime(value, &call_.endNs);
        case CallAttribute::Rid:
            call_.rid = orMinusOne(parseIntegerValue(value));
            return true;
        case CallAttribute::Size:
            call_.size = orMinusOne(parseIntegerValue(value));
            return true;
        case CallAttribute::Offset:
            call_.offset = orMinusOne(parseIntegerValue(value));
            return true;
        case CallAttribute::RecvSize:
        case CallAttribute::SendSize:
            number = parseIntegerValue(value);
            if (call_.sizeFallback < 0) call_.sizeFallback = orMinusOne(number);
            return true;
        case CallAttribute::Cid:
            number = parseIntegerValue(value);
            call_.cid = orMinusOne(number);
            break;
        case CallAttribute::Fid:
            number = parseIntegerValue(value);
            call_.fid = orMinusOne(number);
            break;
        case CallAttribute::Tag:
            number = parseIntegerValue(value);
            if (call_.tagPriority > 3) call_.tag = orNoValue(number), call_.tagPriority = 3;
            break;
        case CallAttribute::ToTag:
            number = parseIntegerValue(value);
            if (call_.tagPriority > 1) call_.tag = orNoValue(number), call_.tagPriority = 1;
            break;
        case CallAttribute::Root:
            number = parseIntegerValue(value);
            if (call_.peerPriority > 3) call_.peer = orNoValue(number), call_.peerPriority = 3;
            break;
        case CallAttribute::ToRank:
            number = parseIntegerValue(value);
            if (call_.peerPriority > 1) call_.peer = orNoValue(number), call_.peerPriority = 1;
            break;
        case CallAttribute::Source:
            number = parseIntegerValue(value);
            if (call_.peerPriority > 4) call_.peer = orNoValue(number), call_.peerPriority = 4;
            break;
        case CallAttribute::FromTag:
            number = parseIntegerValue(value);
            call_.recvTag = orNoValue(number);
            break;
        case CallAttribute::FromRank:
            number = parseIntegerValue(value);
            call_.recvPeer = orNoValue(number);
            break;
    }
    // The ten 32-bit columns: a value beyond them is refused as ColumnHandler does.
    return fitsThirtyTwoBitColumn(number);
}

HDTRACE_HOT_INLINE Verdict DialectColumnBuilder::startCall(std::string_view name,
                                                           const ScannedAttribute *attributes,
                                                           int count, TagShapeId shape) {
    // A shape seen before has its name's code and its attributes' meanings.
    const CallShape *known = nullptr;
    if (shape.slot >= 0) {
        CallShape &described = callShapes_[shape.slot];
        if (described.generation != shape.generation) {
            described.generation = shape.generation;
            described.skipped = isSkipped(name);
            // Codes are given in the order names first appear in calls read.
            if (!described.skipped) described.nameCode = nameCode(name);
            described.sendAndReceive = equals(name, "Sendrecv") || equals(name, "Sendrecv_replace");
            described.isFileOpen = equals(name, "File_open");
            for (int index = 0; index < count; ++index)
                described.meaning[index] = callAttributeOf(attributes[index].name);
        }
        known = &described;
    }
    if (known ? known->skipped : isSkipped(name)) {
        skipBelowDepth_ = 2;
        return Verdict::Continue;
    }
    call_ = kFreshCall;
    completedRids_.clear();
    if (known) {
        call_.nameCode = known->nameCode;
        for (int index = 0; index < count; ++index)
            if (!takeCallAttribute(known->meaning[index], attributes[index].value))
                return Verdict::Unrecognised;
    } else {
        call_.nameCode = nameCode(name);
        for (int index = 0; index < count; ++index)
            if (!takeCallAttribute(callAttributeOf(attributes[index].name),
                                   attributes[index].value))
                return Verdict::Unrecognised;
    }
    if (!call_.hasEnd) call_.endNs = call_.startNs;
    if (filter_.hasTimeWindow()) {
        if (call_.hasStart && call_.startNs > filter_.toNs) return Verdict::Stop;
        if (!call_.hasStart || call_.endNs < filter_.fromNs) {
            skipBelowDepth_ = 2;
            return Verdict::Continue;
        }
    }
    call_.sendAndReceive = known ? known->sendAndReceive
                                 : equals(name, "Sendrecv") || equals(name, "Sendrecv_replace");
    call_.isFileOpen = known ? known->isFileOpen : equals(name, "File_open");
    if (call_.isFileOpen) openFileName_.assign(call_.fileName);
    return Verdict::Continue;
}

Verdict DialectColumnBuilder::startChild(std::string_view name, const ScannedAttribute *attributes,
                                         int count) {
    const bool isFor = equals(name, "For"), isData = equals(name, "Data");
    bool sawRid = false, sawSize = false, sawOffset = false;
    for (int index = 0; index < count; ++index) {
        const std::string_view attribute = attributes[index].name;
        const std::string_view value = attributes[index].value;
        if (isFor && !sawRid && equals(attribute, "rid")) {
            sawRid = true;
            ParsedInteger number = parseIntegerValue(value);
            completedRids_.push_back(number.valid ? number.value : -1);
        } else if (isData && !sawSize && equals(attribute, "size")) {
            // Split collectives carry their access in <Data offset size .../>.
            sawSize = true;
            ParsedInteger number = parseIntegerValue(value);
            if (call_.size < 0) call_.size = number.valid ? number.value : -1;
        } else if (isData && !sawOffset && equals(attribute, "offset")) {
            sawOffset = true;
            ParsedInteger number = parseIntegerValue(value);
            if (call_.offset < 0) call_.offset = number.valid ? number.value : -1;
        }
    }
    return Verdict::Continue;
}

void DialectColumnBuilder::endElement(int depth) {
    if (skipBelowDepth_ > 0) {
        if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
        return;
    }
    if (depth == 2) finishCall();
}

void DialectColumnBuilder::growColumns() {
    allocatedRows_ += kBlockRows;
    for (auto *column :
         {&columns_.startNs, &columns_.endNs, &columns_.size, &columns_.offset, &columns_.rid})
        column->resize(allocatedRows_);
    for (auto *column : {&columns_.nameCode, &columns_.peer, &columns_.tag, &columns_.cid,
                         &columns_.fid, &columns_.recvPeer, &columns_.recvTag})
        column->resize(allocatedRows_);
    nameCodeAt_ = columns_.nameCode.data(), peerAt_ = columns_.peer.data();
    tagAt_ = columns_.tag.data(), cidAt_ = columns_.cid.data(), fidAt_ = columns_.fid.data();
    recvPeerAt_ = columns_.recvPeer.data(), recvTagAt_ = columns_.recvTag.data();
    startNsAt_ = columns_.startNs.data(), endNsAt_ = columns_.endNs.data();
    sizeAt_ = columns_.size.data(), offsetAt_ = columns_.offset.data();
    ridAt_ = columns_.rid.data();
}

void DialectColumnBuilder::trimColumns() {
    for (auto *column :
         {&columns_.startNs, &columns_.endNs, &columns_.size, &columns_.offset, &columns_.rid})
        column->resize(rows_);
    for (auto *column : {&columns_.nameCode, &columns_.peer, &columns_.tag, &columns_.cid,
                         &columns_.fid, &columns_.recvPeer, &columns_.recvTag})
        column->resize(rows_);
}

void DialectColumnBuilder::finishCall() {
    OpenCall &call = call_;
    if (call.size < 0) call.size = call.sizeFallback;
    if (call.recvPeer != kNoValue32) {
        call.recvPeer = toWorld(call.cid, call.recvPeer);
        if (call.peerPriority > 2) call.peer = call.recvPeer, call.peerPriority = 2;
    }
    if (call.recvTag != kNoValue32 && call.tagPriority > 2)
        call.tag = call.recvTag, call.tagPriority = 2;
    if (call.peer != kNoValue32 && call.peerPriority != 2) call.peer = toWorld(call.cid, call.peer);
    const auto row = static_cast<int64_t>(rows_);
    for (int64_t rid : completedRids_) {
        columns_.completionRow.push_back(row);
        columns_.completionRid.push_back(rid);
    }
    if (call.isFileOpen && !openFileName_.empty()) {
        columns_.openRow.push_back(row);
        columns_.openFid.push_back(call.fid);
        columns_.openName.push_back(openFileName_);
    }
    if (rows_ == allocatedRows_) growColumns();
    const size_t at = rows_++;
    nameCodeAt_[at] = call.nameCode;
    startNsAt_[at] = call.startNs;
    endNsAt_[at] = call.endNs;
    sizeAt_[at] = call.size;
    offsetAt_[at] = call.offset;
    ridAt_[at] = call.rid;
    peerAt_[at] = static_cast<int32_t>(call.peer);
    tagAt_[at] = static_cast<int32_t>(call.tag);
    cidAt_[at] = static_cast<int32_t>(call.cid);
    fidAt_[at] = static_cast<int32_t>(call.fid);
    recvPeerAt_[at] = static_cast<int32_t>(call.sendAndReceive ? call.recvPeer : kNoValue32);
    recvTagAt_[at] = static_cast<int32_t>(call.sendAndReceive ? call.recvTag : kNoValue32);
}

}  // namespace

std::optional<ColumnsResult> readEventColumnsByDialect(const std::string &path,
                                                       const TraceOptions &options,
                                                       const LocalToWorldTable *localToWorld,
                                                       std::string *reason) {
    ColumnsResult result;
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && info.st_size > 0)
        result.columns.reserve(static_cast<size_t>(info.st_size) / 100);
    DialectColumnBuilder builder(result.columns, options.filter, localToWorld);
    DialectScanner scanner(path);
    if (scanner.run(builder) == DialectScanner::Outcome::Unrecognised) {
        if (reason) *reason = scanner.reason();
        return std::nullopt;
    }
    builder.trimColumns();
    result.timeFractionDigits = builder.timeFractionDigits();
    return result;
}

std::optional<ColumnsResult> readEventColumnsByDialectSlice(
    const std::string &path, const TraceOptions &options, const LocalToWorldTable *localToWorld,
    std::string_view timeAdjustment, uint64_t from, uint64_t to, bool toIsEndOfFile,
    std::string *reason) {
    ColumnsResult result;
    // Sized from the slice's bytes, as a whole read from the file's (ColumnMemory).
    if (to > from) result.columns.reserve(static_cast<size_t>(to - from) / 100);
    DialectColumnBuilder builder(result.columns, options.filter, localToWorld);
    // The root's start tag, read from the prolog by the caller. The value
    // is copied with room for word-at-a-time reads (ScannedAttribute).
    std::string value(timeAdjustment);
    value.reserve(value.size() + 16);
    const ScannedAttribute root{"timeAdjustment", value};
    if (builder.startElement(1, "Program", &root, 1, TagShapeId{}) != Verdict::Continue) {
        if (reason) *reason = "a root element the column reader refuses";
        return std::nullopt;
    }
    DialectScanner scanner(path);
    if (scanner.runSlice(builder, from, to, toIsEndOfFile) ==
        DialectScanner::Outcome::Unrecognised) {
        if (reason) *reason = scanner.reason();
        return std::nullopt;
    }
    builder.trimColumns();
    result.timeFractionDigits = builder.timeFractionDigits();
    return result;
}

ColumnsResult readEventColumns(const std::string &path, const TraceOptions &options,
                               const LocalToWorldTable *localToWorld) {
    std::string reason;
    if (auto result = readEventColumnsByDialect(path, options, localToWorld, &reason))
        return std::move(*result);
    ColumnsResult result = readEventColumnsWithLibxml2(path, options, localToWorld);
    result.fallback = std::move(reason);
    return result;
}

}  // namespace hdtrace::reader
