// CompactEncoder: turns the items of a finished top-level state or event
// (CompactItems.hpp) into one record of the record layer
// (CompactFormat.hpp, docs/format/compact.md "Records") and appends it to
// a RecordSink (the writer's FrameWriter). It keeps the frame's tables
// (strings, dynamic shapes, previous times and ids) and starts them afresh
// whenever a record begins a new frame, so that every frame decodes on its
// own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <hdtrace/codec/CallPlans.hpp>
#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/RecordSink.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

namespace hdtrace {

class CompactEncoder {
  public:
    // An encoder of records into sink, which must outlive it. Appends the
    // first frame's Program (time: the trace's creation, nanoseconds after
    // timeAdjustment), so that even an empty trace says its timeAdjustment;
    // nullptr when the sink refuses it, with its errno value in *error.
    static std::unique_ptr<CompactEncoder> create(RecordSink &sink, int64_t timeAdjustmentSeconds,
                                                  int64_t createdNanoseconds, int *error);

    // items: one top-level element with what precedes it (<Nested>) and
    // its children; time: its start. 0 or an errno value (the sink's;
    // EMSGSIZE when the record exceeds a frame).
    int append(std::string_view items, int64_t time);
    // The common case without a copy into items: one top-level element
    // without children or nested states, its entries (CompactItems.hpp)
    // with its times among them.
    int appendElement(std::string_view name, std::string_view entries, int64_t time);
    // The bytes of the record appended last, before compression.
    size_t lastRecordBytes() const { return record_.size(); }
    // A top-level call given as the values of its own attributes in the
    // plan's order (TraceWriter gathers them so when they come in that
    // order), its times, its child elements (their plans, and their values
    // one after the other) and its nested states, each a leaf call (their
    // plans, values, and start and end times one pair after the other).
    // Coded in place in the frame being filled when the record does not
    // start a frame; the bytes are those append() codes from the same items.
    using Children = TypedChildren;
    using Nested = TypedNested;
    // texts: where the text values' handles point.
    int appendCall(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                   const Children &children, const Nested &nested, std::string_view texts);

    // A call with nested states and no children (the C library calls
    // beneath an MPI-IO call): appendCall's bytes, and where no element has
    // a text, by a shorter way.
    int appendNestedCall(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                         const Nested &nested, std::string_view texts);

    // The most common call: appendCall with neither children nor nested
    // states; the same bytes, by a shorter way.
    int appendLeafCall(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                       std::string_view texts = {}) {
        return plan.hasText ? appendLeafWithTexts(plan, values, start, end, texts)
                            : appendLeafNumbers(plan, values, start, end);
    }

  private:
    explicit CompactEncoder(RecordSink &sink) : sink_(sink) {}
    void startFrame();
    void beginRecord();  // the frame's Program first, when the record opens a frame
    template <class Encode>
    int appendRecord(Encode encode, int64_t time);
    // Encodes items into record_; false when they are not well-formed
    // (a bug of the caller: nothing is appended).
    bool encode(std::string_view items);
    // The start of the element a <Nested> block belongs to, which follows
    // the block: in points after the block's <Nested> item.
    int64_t blockOwnerStart(const char *in, const char *end) const;
    // Both paths code a <Nested> block by these: its opening with the
    // owner's start, which becomes the previous time (at out; returns the
    // end), and, after its </Nested>, the owner's start as the previous
    // time again; closeBlock returns the block's last time or end, which
    // the owner's end is coded from.
    static constexpr size_t kMaxBlockOpenBytes = 1 + kMaxVarintBytes;
    unsigned char *openBlock(unsigned char *out, int64_t ownerStart);
    int64_t closeBlock(int64_t ownerStart);
    bool encodeElement(std::string_view name, const char *entries, const char *entriesEnd,
                       bool open);
    // Most elements: a static shape found in the cache, no strings, coded
    // in one pass. False (nothing coded) when the element is not such.
    bool encodeKnownWithoutText(std::string_view name, const char *entries, const char *entriesEnd,
                                bool open);
    // Codes one number of an element (coding: integer, time, end or id) at
    // out; returns the end. endBase: what the element's end is coded from
    // (set by its time); field: the attribute's place among the static
    // shapes' (kFieldDelta).
    unsigned char *codeNumber(unsigned char *out, uint8_t coding, int64_t value, int64_t *endBase,
                              uint32_t field);
    // The shape of an element (defining it in the frame when it is new).
    uint32_t findShape(std::string_view name, const char *entries, const char *entriesEnd);
    bool shapeMatches(uint32_t shape, std::string_view name, const char *entries,
                      const char *entriesEnd) const;
    // The frame's index of a string, defined in the record when it is new.
    uint32_t stringIndex(std::string_view text);
    // The frame's index of a string, and whether it is new there (the
    // caller then defines it with putStringDefinition before its use).
    std::pair<uint32_t, bool> internString(std::string_view text);
    static unsigned char *putStringDefinition(unsigned char *out, std::string_view text);

    struct DynamicShape {
        std::string element;
        std::vector<std::pair<std::string, uint8_t>> attributes;  // name, coding
    };
    struct CachedShape {
        uint64_t hash = 0;
        uint32_t shape = 0;
        uint32_t frame = 0;  // a dynamic shape holds in this frame only
        bool isStatic = false;
        bool hasText = false;  // of its values, some are strings
    };
    static constexpr size_t kShapeCacheSize = 256;
    // The values of one element as its plan codes them, at out; returns
    // the end. The frame's previous values and ids follow them.
    // kWithTexts: the texts' values are textIndices' (the strings' indices).
    template <bool kWithTexts>
    unsigned char *codeValues(unsigned char *out, const CallPlan &plan, const int64_t *values,
                              const uint32_t *textIndices);
    // An element of a plan with texts: their strings defined first where
    // the frame lacks them, then its code and values.
    unsigned char *codeElementWithTexts(unsigned char *out, uint64_t code, const CallPlan &plan,
                                        const int64_t *values, std::string_view texts);
    unsigned char *codeElement(unsigned char *out, uint64_t code, const CallPlan &plan,
                               const int64_t *values, std::string_view texts);
    // A call's <Nested> block at out; returns the end, and in endBase what
    // the call's end is coded from. kWithTexts: some element may have texts.
    template <bool kWithTexts>
    unsigned char *codeNestedBlock(unsigned char *out, int64_t start, const Nested &nested,
                                   std::string_view texts, int64_t *endBase);
    unsigned char *codeCall(unsigned char *out, const CallPlan &plan, const int64_t *values,
                            int64_t start, int64_t end, const Children &children,
                            const Nested &nested, std::string_view texts);
    // A leaf call's times after its element at out, and its record (from
    // begin) committed to the sink.
    int commitLeaf(unsigned char *begin, unsigned char *out, int64_t start, int64_t end);
    int appendLeafNumbers(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end);
    int appendLeafWithTexts(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                            std::string_view texts);
    int appendCallRecord(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                         const Children &children, const Nested &nested, std::string_view texts,
                         size_t maxBytes);
    static size_t maxCallBytes(const CallPlan &plan, const Children &children, const Nested &nested,
                               std::string_view texts);

    // What every call's record uses first, together: the sink, the
    // frame's number, previous values, times and ids, the plans by name.
    RecordSink &sink_;
    uint32_t frameNumber_ = 0;
    // The previous value of each static shape's attribute in this frame
    // (kFieldDelta), zero at the frame's start.
    std::vector<int64_t> fields_;
    int64_t previousTime_ = 0;
    int64_t previousIds_[6] = {};
    // The general encoder's open <Nested> blocks: each one's owner's start
    // (the previous time again after its </Nested>). followsBlock_: the
    // next element is the owner of the block just closed, whose end is
    // coded from blockEnd_, the last time or end in the block.
    std::vector<int64_t> blockStarts_;
    int64_t blockEnd_ = 0;
    bool followsBlock_ = false;
    const compact::StaticShape *shapes_ = compact::staticShapes();

    int64_t timeAdjustmentSeconds_ = 0;
    bool frameStarts_ = true;  // the next record is the first of its frame
    std::unordered_map<std::string, uint32_t> strings_;
    std::unordered_map<std::string, uint32_t> dynamicShapes_;
    std::vector<DynamicShape> dynamicShapeList_;  // by number - static count
    CachedShape shapeCache_[kShapeCacheSize];
    // Shapes with more attributes than this take the general path.
    static constexpr uint32_t kMaxFastFields = 64;
    std::vector<uint32_t> textIndicesOverflow_;
    std::string key_;      // the element's shape key, reused
    TextBuffer record_;    // the record being encoded
    TextBuffer values_;    // the values of the element being encoded
    std::string scratch_;  // a looked-up string
    // Strings by a hash of their text, before strings_; an entry holds in
    // the frame it was made in only (frames start with no strings).
    struct CachedString {
        std::string text;
        uint32_t index = 0;
        uint32_t frame = 0;
    };
    static constexpr size_t kStringCacheSize = 16;
    CachedString stringCache_[kStringCacheSize];
    // The text each static shape's text attribute had last (by its field,
    // as fields_), which the next call's mostly repeats.
    std::vector<CachedString> lastTexts_;
};

}  // namespace hdtrace
