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

#include <hdtrace/reader/EventColumns.hpp>

#include "DialectCalls.hpp"  // generated from the dialect: isSendAndReceiveCall, isFileOpenCall
#include "Inlining.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {

// The attributes of a call the table reads.
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
inline CallAttribute callAttributeOf(std::string_view attribute) {
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

// Attributes, of a call or below one, whose integers go into the table's
// 32-bit columns (peer, tag, cid, fid): a value beyond them is refused.
inline bool isThirtyTwoBitColumn(std::string_view name) {
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
        switch (meaning) {
            case CallAttribute::Other:
                return true;
            case CallAttribute::Name:
                if constexpr (std::is_convertible_v<Value, std::string_view>)
                    fileName = text;
                else
                    fileName = values.textOf(text);
                return true;
            case CallAttribute::Time:
                hasStart = true;
                return values.timeValue("time", text, &startNs);
            case CallAttribute::End:
                hasEnd = true;
                return values.timeValue("end", text, &endNs);
            case CallAttribute::Rid:
                rid = orMinusOne(values.integerValue(text));
                return true;
            case CallAttribute::Size:
                size = orMinusOne(values.integerValue(text));
                return true;
            case CallAttribute::Offset:
                offset = orMinusOne(values.integerValue(text));
                return true;
            case CallAttribute::RecvSize:
            case CallAttribute::SendSize:
                number = values.integerValue(text);
                if (sizeFallback < 0) sizeFallback = orMinusOne(number);
                return true;
            // The ten 32-bit columns: the value is checked after the switch.
            case CallAttribute::Cid:
                number = values.integerValue(text);
                cid = orMinusOne(number);
                break;
            case CallAttribute::Fid:
                number = values.integerValue(text);
                fid = orMinusOne(number);
                break;
            case CallAttribute::Tag:
                number = values.integerValue(text);
                if (tagPriority > 3) tag = orNoValue(number), tagPriority = 3;
                break;
            case CallAttribute::ToTag:
                number = values.integerValue(text);
                if (tagPriority > 1) tag = orNoValue(number), tagPriority = 1;
                break;
            case CallAttribute::Root:
                number = values.integerValue(text);
                if (peerPriority > 3) peer = orNoValue(number), peerPriority = 3;
                break;
            case CallAttribute::ToRank:
                number = values.integerValue(text);
                if (peerPriority > 1) peer = orNoValue(number), peerPriority = 1;
                break;
            case CallAttribute::Source:
                number = values.integerValue(text);
                if (peerPriority > 4) peer = orNoValue(number), peerPriority = 4;
                break;
            case CallAttribute::FromTag:
                number = values.integerValue(text);
                recvTag = orNoValue(number);
                break;
            case CallAttribute::FromRank:
                number = values.integerValue(text);
                recvPeer = orNoValue(number);
                break;
#if defined(__GNUC__)
            default:  // every meaning has its case: no range check before the jump
                __builtin_unreachable();
#endif
        }
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

// Finishes calls into the columns. The twelve per-row columns grow in
// blocks of rows, left uninitialised (ColumnMemory.hpp) until a call writes
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

    static constexpr size_t kBlockRows = 4096;
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
    // fromRank/fromTag name the peer of receives, and rank below toRank/toTag.
    if (call.recvPeer != kNoValue32) {
        call.recvPeer = worldRank(localToWorld_, call.cid, call.recvPeer, columns_);
        if (call.peerPriority > 2) call.peer = call.recvPeer, call.peerPriority = 2;
    }
    if (call.recvTag != kNoValue32 && call.tagPriority > 2)
        call.tag = call.recvTag, call.tagPriority = 2;
    if (call.peer != kNoValue32 && call.peerPriority != 2)
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
