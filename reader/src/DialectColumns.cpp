// The column reader over DialectScanner, with libxml2 as the fallback.
//
// DialectColumnBuilder is the columns sink of the trace grammar
// (TraceGrammar.hpp) over the scanner: it computes exactly what
// ColumnHandler (EventColumns.cpp) computes over libxml2, from the same
// attributes in the same order; the tests compare the two on every trace
// the suite generates. Wherever the grammar or ColumnHandler would fail (a
// number out of range, a time that is not one, a root that is not
// <Program>), this builder answers Unrecognised instead, so that the
// libxml2 reader runs and words the error with its file:line:column. The
// grammar's rules and what the attributes mean and how a call becomes a
// row are theirs in common (TraceGrammar.hpp, CallRecord.hpp); this
// builder's own part is speed: the roles of a tag shape's element and
// attributes worked out once, numbers and times parsed word at a time.
#include <sys/stat.h>

#include <charconv>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "CallRecord.hpp"
#include "ColumnReaders.hpp"
#include "DialectBytes.hpp"
#include "DialectNumbers.hpp"
#include "DialectScanner.hpp"
#include "DialectTagScan.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {
namespace {

using Verdict = DialectHandler::Verdict;

// Could the grammar refuse this value as beyond 64 bits? Values
// of 18 characters or fewer never are; longer ones are checked (for text
// attributes too, which only sends more traces to libxml2, never fewer).
HDTRACE_HOT_INLINE bool mayOverflow(std::string_view value) {
    return value.size() >= 19 && parseIntegerSlowly(value).outOfRange;
}

HDTRACE_HOT_INLINE bool fitsThirtyTwoBitColumn(const ParsedInteger &parsed) {
    return !parsed.valid || withinThirtyTwoBitColumn(parsed.value);
}

// Copied into the open call at each call: GCC makes `= OpenCall()` a
// `rep stos` into a temporary and a copy, which costs more than the call's
// attributes.
const OpenCall kFreshCall{};

// final: the scanner calls it directly (DialectScanner::runWith).
class DialectColumnBuilder final : public DialectHandler {
  public:
    DialectColumnBuilder(EventColumns &columns, const TraceFilter &filter,
                         const LocalToWorldTable *localToWorld)
        : columns_(columns),
          filter_(filter),
          hasTimeWindow_(filter.hasTimeWindow()),
          rows_(columns, localToWorld) {}
    int timeFractionDigits() const { return timeFractionDigits_; }

    Verdict startElement(int depth, std::string_view name, const ScannedAttribute *attributes,
                         int count, const TagShapeId &shape) override;
    void endElement(int depth) override;

    // The parsing OpenCall::take asks for, word at a time.
    HDTRACE_HOT_INLINE ParsedInteger integerValue(std::string_view text) {
        return parseIntegerValue(text);
    }
    HDTRACE_HOT_INLINE bool timeValue(std::string_view, std::string_view text,
                                      int64_t *nanoseconds) {
        return parseTime(text, nanoseconds);
    }

  private:
    // What the table takes from a call of one tag shape, worked out once.
    struct CallShape {
        uint32_t generation = 0;  // of the scanner's shape described; 0: none
        bool skipped = false;     // <Nested>, or a name the filter leaves out
        bool sendAndReceive = false, isFileOpen = false;
        int32_t nameCode = -1;
        // The attributes whose values the table takes (not CallAttribute::Other).
        int takenCount = 0;
        uint8_t takenIndex[DialectScanner::kMaxShapeAttributes];
        CallAttribute takenMeaning[DialectScanner::kMaxShapeAttributes];
    };
    // What the table takes from an element below a call, and what it checks
    // there, worked out from its name and attribute names: once per tag
    // shape, or for the one tag where the tag has no shape.
    struct ChildShape {
        uint32_t generation = 0;  // of the scanner's shape described; 0: none
        bool nested = false;      // <Nested>: skipped unread
        // Attributes checked (bit i: attribute i): 32-bit columns, times.
        uint64_t thirtyTwoBit = 0, times = 0;
        // The attributes taken: <For rid>, <Data size offset>; -1: none.
        int rid = -1, size = -1, offset = -1;
    };
    static_assert(DialectScanner::kMaxAttributes <= 64, "one bit per attribute");
    void describeChild(ChildShape &described, std::string_view name,
                       const ScannedAttribute *attributes, int count);

    Verdict startProgram(std::string_view name, const ScannedAttribute *attributes, int count);
    Verdict startCall(std::string_view name, const ScannedAttribute *attributes, int count,
                      const TagShapeId &shape);
    bool takeCallAttribute(CallAttribute meaning, std::string_view value);
    Verdict startBelowCall(int depth, std::string_view name, const ScannedAttribute *attributes,
                           int count, const TagShapeId &shape);
    Verdict startBelowCallWithoutShape(int depth, std::string_view name,
                                       const ScannedAttribute *attributes, int count);
    Verdict readBelowCall(int depth, const ScannedAttribute *attributes, int count,
                          const ChildShape &described, bool shortValues);

  public:
    // Gives the columns their length (rows read); call once after the scan.
    void trimColumns() { rows_.trim(); }

  private:
    bool parseTime(std::string_view text, int64_t *nanoseconds);
    HDTRACE_COLD bool parseTimeSlowly(std::string_view text, int64_t *nanoseconds);
    int32_t nameCode(std::string_view name);

    EventColumns &columns_;
    const TraceFilter &filter_;
    const bool hasTimeWindow_;  // of filter_, looked up once
    CallRowWriter rows_;
    int skipBelowDepth_ = 0;
    int64_t timeAdjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    OpenCall call_;
    std::vector<int64_t> completedRids_;
    std::string openFileName_;
    // Names seen recently, by a cheap hash, in front of the full map: calls
    // come from a few dozen names, and the map keeps 80,000 distinct ones linear.
    struct CacheEntry {
        int32_t code = -1;
    };
    CacheEntry cache_[256];
    std::unordered_map<std::string, int32_t> codeByName_;
    CallShape callShapes_[DialectScanner::kShapeSlots];
    ChildShape childShapes_[DialectScanner::kShapeSlots];
};

int32_t DialectColumnBuilder::nameCode(std::string_view name) {
    const size_t slot = (name.size() * 31u + static_cast<unsigned char>(name[0]) * 7u +
                         static_cast<unsigned char>(name[name.size() - 1]) +
                         static_cast<unsigned char>(name[name.size() / 2]) * 3u) &
                        255u;
    CacheEntry &entry = cache_[slot];
    if (entry.code >= 0) {
        const std::string &known = columns_.names[static_cast<size_t>(entry.code)];
        if (dialect::sameName(known, name)) return entry.code;
    }
    auto [found, added] =
        codeByName_.try_emplace(std::string(name), static_cast<int32_t>(columns_.names.size()));
    if (added) columns_.names.emplace_back(name);
    entry.code = found->second;
    return found->second;
}

HDTRACE_HOT_INLINE bool DialectColumnBuilder::parseTime(std::string_view text,
                                                        int64_t *nanoseconds) {
    // Our writer's form inline, once the first time has set the fraction's
    // digits; anything else the way of parseDecimalSeconds.
    if (timeFractionDigits_ >= 0 && parseWriterTime(text, timeAdjustmentNs_, nanoseconds))
        return true;
    return parseTimeSlowly(text, nanoseconds);
}

bool DialectColumnBuilder::parseTimeSlowly(std::string_view text, int64_t *nanoseconds) {
    return grammar::readTime(timeAdjustmentNs_, text, nanoseconds, &timeFractionDigits_) ==
           grammar::TimeRead::Ok;
}

HDTRACE_HOT_INLINE Verdict DialectColumnBuilder::startElement(int depth, std::string_view name,
                                                              const ScannedAttribute *attributes,
                                                              int count, const TagShapeId &shape) {
    if (skipBelowDepth_ > 0) return Verdict::Continue;
    if (depth == 2) return startCall(name, attributes, count, shape);
    if (depth == 1) return startProgram(name, attributes, count);
    return startBelowCall(depth, name, attributes, count, shape);
}

Verdict DialectColumnBuilder::startProgram(std::string_view name,
                                           const ScannedAttribute *attributes, int count) {
    if (!grammar::isRoot(name)) return Verdict::Unrecognised;
    for (int index = 0; index < count; ++index) {
        if (!grammar::isTimeAdjustment(attributes[index].name)) continue;
        auto parsed = parseDecimalSeconds(attributes[index].value);
        if (!parsed) return Verdict::Unrecognised;
        timeAdjustmentNs_ = parsed->nanoseconds;
    }
    return Verdict::Continue;
}

// The value of one attribute into call_ (OpenCall::take), parsed here.
// false where ColumnHandler would fail.
HDTRACE_HOT_INLINE bool DialectColumnBuilder::takeCallAttribute(CallAttribute meaning,
                                                                std::string_view value) {
    if (mayOverflow(value)) return false;
    return call_.take(meaning, value, *this);
}

HDTRACE_HOT_INLINE Verdict DialectColumnBuilder::startCall(std::string_view name,
                                                           const ScannedAttribute *attributes,
                                                           int count, const TagShapeId &shape) {
    // A shape seen before has its name's code and its attributes' meanings.
    const CallShape *known = nullptr;
    if (shape.slot >= 0) {
        CallShape &described = callShapes_[shape.slot];
        if (described.generation != shape.generation) {
            described.generation = shape.generation;
            described.skipped = isSkippedCall(name, filter_);
            // Codes are given in the order names first appear in calls read.
            if (!described.skipped) described.nameCode = nameCode(name);
            described.sendAndReceive = isSendAndReceiveCall(name);
            described.isFileOpen = isFileOpenCall(name);
            described.takenCount = 0;
            for (int index = 0; index < count; ++index) {
                const CallAttribute meaning = callAttributeOf(attributes[index].name);
                if (meaning == CallAttribute::Other) continue;
                described.takenIndex[described.takenCount] = static_cast<uint8_t>(index);
                described.takenMeaning[described.takenCount++] = meaning;
            }
        }
        known = &described;
    }
    if (known ? known->skipped : isSkippedCall(name, filter_)) {
        skipBelowDepth_ = 2;
        return Verdict::Continue;
    }
    call_ = kFreshCall;
    completedRids_.clear();
    if (known) {
        call_.nameCode = known->nameCode;
        // Values of 16 bytes or more are checked for numbers beyond 64 bits
        // (what ColumnHandler refuses) in every attribute, the table's or not.
        if (!shape.shortValues)
            for (int index = 0; index < count; ++index)
                if (mayOverflow(attributes[index].value)) return Verdict::Unrecognised;
        for (int taken = 0; taken < known->takenCount; ++taken)
            if (!call_.take(known->takenMeaning[taken], attributes[known->takenIndex[taken]].value,
                            *this))
                return Verdict::Unrecognised;
    } else {
        call_.nameCode = nameCode(name);
        for (int index = 0; index < count; ++index)
            if (!takeCallAttribute(callAttributeOf(attributes[index].name),
                                   attributes[index].value))
                return Verdict::Unrecognised;
    }
    switch (call_.closeStartTag(filter_, hasTimeWindow_)) {
        case CallStart::Stop:
            return Verdict::Stop;
        case CallStart::Skip:
            skipBelowDepth_ = 2;
            return Verdict::Continue;
        case CallStart::Read:
            break;
    }
    call_.sendAndReceive = known ? known->sendAndReceive : isSendAndReceiveCall(name);
    call_.isFileOpen = known ? known->isFileOpen : isFileOpenCall(name);
    if (call_.isFileOpen) openFileName_.assign(call_.fileName);
    return Verdict::Continue;
}

// An element below a call, with its attributes' meanings worked out once
// per tag shape. Inlined: <For> children of waits are a quarter of a
// trace's tags, and the call's saving of registers cost as much as their
// work.
HDTRACE_HOT_INLINE Verdict DialectColumnBuilder::startBelowCall(int depth, std::string_view name,
                                                                const ScannedAttribute *attributes,
                                                                int count,
                                                                const TagShapeId &shape) {
    if (shape.slot < 0) return startBelowCallWithoutShape(depth, name, attributes, count);
    ChildShape &known = childShapes_[shape.slot];
    if (known.generation != shape.generation) {
        describeChild(known, name, attributes, count);
        known.generation = shape.generation;
    }
    return readBelowCall(depth, attributes, count, known, shape.shortValues);
}

// A tag the scanner keeps no shape for (too many attributes, a long name):
// described for itself.
HDTRACE_COLD Verdict DialectColumnBuilder::startBelowCallWithoutShape(
    int depth, std::string_view name, const ScannedAttribute *attributes, int count) {
    ChildShape described;
    describeChild(described, name, attributes, count);
    return readBelowCall(depth, attributes, count, described, false);
}

// Elements below a call are not in the table (but <For> and <Data>); what
// the grammar or the columns would refuse in them goes to libxml2, which
// refuses it too (SaxTraceGrammar, ColumnHandler::startBelowCall).
HDTRACE_HOT_INLINE Verdict DialectColumnBuilder::readBelowCall(int depth,
                                                               const ScannedAttribute *attributes,
                                                               int count,
                                                               const ChildShape &described,
                                                               bool shortValues) {
    if (described.nested) {
        skipBelowDepth_ = depth;  // calls inside calls are not in the table: skipped unread
        return Verdict::Continue;
    }
    if (!shortValues)
        for (int index = 0; index < count; ++index)
            if (mayOverflow(attributes[index].value)) return Verdict::Unrecognised;
    for (uint64_t bits = described.thirtyTwoBit; bits != 0; bits &= bits - 1)
        if (!fitsThirtyTwoBitColumn(parseIntegerValue(attributes[__builtin_ctzll(bits)].value)))
            return Verdict::Unrecognised;
    int64_t unused = 0;
    for (uint64_t bits = described.times; bits != 0; bits &= bits - 1)
        if (!parseTime(attributes[__builtin_ctzll(bits)].value, &unused))
            return Verdict::Unrecognised;
    if (depth != 3) return Verdict::Continue;
    if (described.rid >= 0) {
        const ParsedInteger number = parseIntegerValue(attributes[described.rid].value);
        completedRids_.push_back(number.valid ? number.value : -1);
    }
    if (described.size >= 0) {
        const ParsedInteger number = parseIntegerValue(attributes[described.size].value);
        call_.takeDataSize(number.valid, number.value);
    }
    if (described.offset >= 0) {
        const ParsedInteger number = parseIntegerValue(attributes[described.offset].value);
        call_.takeDataOffset(number.valid, number.value);
    }
    return Verdict::Continue;
}

void DialectColumnBuilder::describeChild(ChildShape &described, std::string_view name,
                                         const ScannedAttribute *attributes, int count) {
    described = ChildShape();
    described.nested = grammar::isNestedBlock(name);
    const bool isFor = grammar::isCompletion(name), isData = grammar::isDataAccess(name);
    for (int index = 0; index < count; ++index) {
        const std::string_view attribute = attributes[index].name;
        const uint64_t bit = uint64_t{1} << index;
        if (isThirtyTwoBitColumn(attribute)) described.thirtyTwoBit |= bit;
        if (grammar::isTime(attribute)) described.times |= bit;
        const CallAttribute meaning = callAttributeOf(attribute);
        if (isFor && described.rid < 0 && meaning == CallAttribute::Request)
            described.rid = index;
        else if (isData && described.size < 0 && meaning == CallAttribute::Bytes)
            described.size = index;
        else if (isData && described.offset < 0 && meaning == CallAttribute::Offset)
            described.offset = index;
    }
}

HDTRACE_HOT_INLINE void DialectColumnBuilder::endElement(int depth) {
    if (skipBelowDepth_ > 0) {
        if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
        return;
    }
    if (depth == 2) rows_.finish(call_, completedRids_, openFileName_);
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
    if (scanner.runWith(builder) == DialectScanner::Outcome::Unrecognised) {
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
    if (scanner.runSliceWith(builder, from, to, toIsEndOfFile) ==
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
    if (traceFormOf(path) == TraceForm::Compact)
        return readCompactEventColumns(path, options, localToWorld, std::nullopt);
    std::string reason;
    if (auto result = readEventColumnsByDialect(path, options, localToWorld, &reason))
        return std::move(*result);
    ColumnsResult result = readEventColumnsWithLibxml2(path, options, localToWorld);
    result.fallback = std::move(reason);
    return result;
}

}  // namespace hdtrace::reader
