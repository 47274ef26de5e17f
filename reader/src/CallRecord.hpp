// The record of one top-level call while its element is open, and the rules
// that make it a row of EventColumns: which attribute fills which column,
// which call the filter keeps, how peers, completions and file opens are
// finished. Both column builders, ColumnHandler (EventColumns.cpp, over
// libxml2) and DialectColumnBuilder (DialectColumns.cpp, over the dialect
// scanner), must produce the same columns, so each rule is written here once.
// The scanner runs these for every call and attribute: they are inline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <hdtrace/codec/Inlining.hpp>
#include <hdtrace/reader/EventColumns.hpp>

#include "DialectCalls.hpp"  // generated from the dialect: attribute meanings, call kinds
#include "TraceGrammar.hpp"

namespace hdtrace::reader {

// What each attribute is to the table (CallAttribute, callAttributeOf) and
// which fill 32-bit columns (isThirtyTwoBitColumn) come from the layers of
// the dialect, generated into DialectCalls.hpp.

// Within the 32-bit columns (the lowest int32 is their "no value").
inline bool withinThirtyTwoBitColumn(int64_t value) {
    return value > kNoValue32 && value <= std::numeric_limits<int32_t>::max();
}

// Calls the table leaves out unread: <Nested> (calls inside calls) and
// names the filter does not ask for.
inline bool isSkippedCall(std::string_view name, const TraceFilter &filter) {
    return grammar::isNestedBlock(name) || !grammar::nameWanted(filter, name);
}

// An integer attribute's value, as OpenCall::take reads it.
struct IntegerValue {
    bool valid = false;  // the text is an integer at all
    int64_t value = 0;
};

using grammar::CallStart;

// The values of one top-level call while its element is open.
// (The small members first: no padding, 128 bytes to reset per call.)
struct OpenCall {
    int32_t nameCode = 0;
    bool hasStart = false, hasEnd = false;
    bool sendAndReceive = false;
    bool isFileOpen = false;
    // Several attributes name the peer (and the tag): the lowest priority wins.
    int peerPriority = 99, tagPriority = 99;
    int64_t startNs = 0, endNs = 0;
    int64_t size = -1, sizeFallback = -1, offset = -1, rid = -1, cid = -1, fid = -1;
    int64_t peer = kNoValue32, tag = kNoValue32, recvPeer = kNoValue32, recvTag = kNoValue32;
    std::string_view fileName;  // valid until the call's start tag is handled

    // One attribute of the call's start tag, by its meaning: which column
    // it fills, and which of several naming the peer or the tag wins (the
    // lowest priority). The builder parses: values.integerValue(text) gives
    // .valid (an integer at all; if not, the column gets its "no value") and
    // .value; values.timeValue(attribute, text, &nanoseconds) is false for a
    // text that is no time. false: such a time, or an integer beyond its
    // 32-bit column. text is the value's text, or what the builder decoded
    // it into (a compact trace's typed values), which values.textOf(text)
    // then gives as text.
    template <class Value, class Values>
    HDTRACE_HOT_INLINE bool take(CallAttribute meaning, const Value &text, Values &values) {
        const auto orMinusOne = [](const auto &number) {
            return number.valid ? number.value : int64_t{-1};
        };
        const auto orNoValue = [](const auto &number) {
            return number.valid ? number.value : int64_t{kNoValue32};
        };
        decltype(values.integerValue(text)) number{};
        // Case labels of every (column, priority) the dialect has: no decoding
        // before the jump; the priority is taken only where it decides. (The
        // labels are macros, which clang-format cannot tell from statements.)
        // clang-format off
        switch (meaning) {
            HDTRACE_ATTRIBUTE_CASES_OTHER
            HDTRACE_ATTRIBUTE_CASES_ASKED  // the C library's: the call tree reads them
            HDTRACE_ATTRIBUTE_CASES_ERROR
                return true;
            HDTRACE_ATTRIBUTE_CASES_OPENED_NAME
                if constexpr (std::is_convertible_v<Value, std::string_view>)
                    fileName = text;
                else
                    fileName = values.textOf(text);
                return true;
            HDTRACE_ATTRIBUTE_CASES_TIME
                hasStart = true;
                return values.timeValue(grammar::kStartTime, text, &startNs);
            HDTRACE_ATTRIBUTE_CASES_END
                hasEnd = true;
                return values.timeValue(grammar::kEndTime, text, &endNs);
            HDTRACE_ATTRIBUTE_CASES_REQUEST
                rid = orMinusOne(values.integerValue(text));
                return true;
            HDTRACE_ATTRIBUTE_CASES_OFFSET
                offset = orMinusOne(values.integerValue(text));
                return true;
            HDTRACE_ATTRIBUTE_CASES_BYTES
                // The first of the column's attributes is the size; the others
                // (a collective's per-side sizes) stand in where it is absent.
                number = values.integerValue(text);
                if (priorityOf(meaning) == 0)
                    size = orMinusOne(number);
                else if (sizeFallback < 0)
                    sizeFallback = orMinusOne(number);
                return true;
            // The 32-bit columns: the value is checked after the switch.
            HDTRACE_ATTRIBUTE_CASES_COMMUNICATOR
                number = values.integerValue(text);
                cid = orMinusOne(number);
                break;
            HDTRACE_ATTRIBUTE_CASES_FILE
                number = values.integerValue(text);
                fid = orMinusOne(number);
                break;
            HDTRACE_ATTRIBUTE_CASES_TAG
                number = values.integerValue(text);
                if (tagPriority > priorityOf(meaning))
                    tag = orNoValue(number), tagPriority = priorityOf(meaning);
                break;
            HDTRACE_ATTRIBUTE_CASES_PEER
                number = values.integerValue(text);
                if (peerPriority > priorityOf(meaning))
                    peer = orNoValue(number), peerPriority = priorityOf(meaning);
                break;
            HDTRACE_ATTRIBUTE_CASES_RECEIVED_TAG
                number = values.integerValue(text);
                recvTag = orNoValue(number);
                break;
            HDTRACE_ATTRIBUTE_CASES_RECEIVED_FROM
                number = values.integerValue(text);
                recvPeer = orNoValue(number);
                break;
#if defined(__GNUC__)
            default:  // every value has its case: no range check before the jump
                __builtin_unreachable();
#endif
        }
        // clang-format on
        return !number.valid || withinThirtyTwoBitColumn(number.value);
    }

    // After the start tag's attributes: whether the call is read, given the
    // filter's time window.
    HDTRACE_HOT_INLINE CallStart closeStartTag(const TraceFilter &filter) {
        return closeStartTag(filter, filter.hasTimeWindow());
    }
    // The same, with filter.hasTimeWindow() worked out once by the caller.
    HDTRACE_HOT_INLINE CallStart closeStartTag(const TraceFilter &filter, bool hasTimeWindow) {
        if (!hasEnd) endNs = startNs;
        return grammar::windowDecision(filter, hasTimeWindow, *this);
    }

    // <Data offset size .../> below the call (first of each in the element):
    // split collectives carry their access there.
    void takeDataSize(bool valid, int64_t value) {
        if (size < 0) size = valid ? value : -1;
    }
    void takeDataOffset(bool valid, int64_t value) {
        if (offset < 0) offset = valid ? value : -1;
    }
};

// A rank of communicator cid as a world rank, through localToWorld (the
// project's communicator tables); the rank itself, counted in
// columns.untranslatedPeers, when the tables do not have it.
int64_t lookUpWorldRank(const LocalToWorldTable &localToWorld, int64_t cid, int64_t rank,
                        EventColumns &columns);

inline int64_t worldRank(const LocalToWorldTable *localToWorld, int64_t cid, int64_t rank,
                         EventColumns &columns) {
    if (rank < 0 || !localToWorld) return rank;  // wildcards stay
    return lookUpWorldRank(*localToWorld, cid, rank, columns);
}

// Finishes calls into the columns. The twelve per-row columns grow by
// doubling, their rows left uninitialised (ColumnMemory.hpp) until a call writes
// them, and are written through pointers: a push_back per column and row
// costs more than the value. trim() gives them their length at the end.
class CallRowWriter {
  public:
    CallRowWriter(EventColumns &columns, const LocalToWorldTable *localToWorld)
        : columns_(columns), localToWorld_(localToWorld) {}

    // The call's row, and its completions (the rids its <For> children
    // name) and file open, in the rows of their own columns.
    HDTRACE_HOT_INLINE void finish(OpenCall &call, const std::vector<int64_t> &completedRids,
                                   const std::string &openFileName);
    // Gives the columns their length (rows written); call once at the end.
    void trim();

  private:
    void grow();
    // Rows every per-row column holds without moving.
    size_t reservedRows() const;
    // Every column to the given number of rows (grow and trim).
    void resizeColumns(size_t rows);

    static constexpr size_t kFewestRowsAdded = 64;
    EventColumns &columns_;
    const LocalToWorldTable *localToWorld_;
    size_t rows_ = 0, allocatedRows_ = 0;
    int32_t *nameCodeAt_ = nullptr, *peerAt_ = nullptr, *tagAt_ = nullptr, *cidAt_ = nullptr,
            *fidAt_ = nullptr, *recvPeerAt_ = nullptr, *recvTagAt_ = nullptr;
    int64_t *startNsAt_ = nullptr, *endNsAt_ = nullptr, *sizeAt_ = nullptr, *offsetAt_ = nullptr,
            *ridAt_ = nullptr;
};

HDTRACE_HOT_INLINE void CallRowWriter::finish(OpenCall &call,
                                              const std::vector<int64_t> &completedRids,
                                              const std::string &openFileName) {
    if (call.size < 0) call.size = call.sizeFallback;
    // The received-from peer and tag name the peer of receives, at their
    // priority among the peers and tags (below a send's).
    if (call.recvPeer != kNoValue32) {
        call.recvPeer = worldRank(localToWorld_, call.cid, call.recvPeer, columns_);
        if (call.peerPriority > kReceivedFromPriority)
            call.peer = call.recvPeer, call.peerPriority = kReceivedFromPriority;
    }
    if (call.recvTag != kNoValue32 && call.tagPriority > kReceivedTagPriority)
        call.tag = call.recvTag, call.tagPriority = kReceivedTagPriority;
    if (call.peer != kNoValue32 && call.peerPriority != kReceivedFromPriority)
        call.peer = worldRank(localToWorld_, call.cid, call.peer, columns_);
    const auto row = static_cast<int64_t>(rows_);
    for (int64_t rid : completedRids) {
        columns_.completionRow.push_back(row);
        columns_.completionRid.push_back(rid);
    }
    if (call.isFileOpen && !openFileName.empty()) {
        columns_.openRow.push_back(row);
        columns_.openFid.push_back(call.fid);
        columns_.openName.push_back(openFileName);
    }
    if (rows_ == allocatedRows_) grow();
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

}  // namespace hdtrace::reader
