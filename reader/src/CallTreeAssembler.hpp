// Puts the calls of a trace, as its elements arrive in document order, into
// a CallTree in pre-order. In a trace a call's nested calls come first, in
// the <Nested> block before its element; the assembler gives the block's
// caller a row when the block opens (the row the caller's element fills
// when it arrives), so that every call goes straight into the columns, its
// caller's row already known. The readers of each form (the XML scanner,
// the compact records) feed it what a call carries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <hdtrace/codec/Inlining.hpp>
#include <hdtrace/reader/CallTree.hpp>

namespace hdtrace::reader {

// What the tree keeps of one call; -1: the call does not carry it.
struct CallValues {
    int64_t startNs = 0;
    int64_t endNs = 0;
    bool hasEnd = false;
    int64_t fid = -1;
    int64_t offset = -1;
    int64_t size = -1;
    int64_t asked = -1;
    bool failed = false;
    std::string_view openedName;  // a file open's name, when it has one
    bool hasOpenedName = false;
};

class CallTreeAssembler {
  public:
    // What an element at a depth is; depth 1 is the root.
    enum class Element { Root, Nested, Call, Child };
    explicit CallTreeAssembler(CallTree &tree, TreeColumns columns = TreeColumns::All)
        : tree_(tree), allColumns_(columns == TreeColumns::All) {}

    // Room for this many rows, when the reader knows about how many come.
    void reserve(size_t rows);
    // The columns end at the last row (they grow in steps ahead of the
    // rows): done when the root ends, and by a reader that stops before.
    void trim();
    // Rows written so far.
    size_t rows() const { return rows_; }

    // False where the element is not where a trace can have it (the reader
    // then leaves the trace to the event reader, which says what is wrong).
    bool startRoot();
    bool startNested(int depth);
    bool startCall(int depth, std::string_view name, const CallValues &values) {
        return startCall(depth, code(name), values);
    }
    // The same with the name's code (code()), for readers that keep it.
    bool startCall(int depth, int32_t nameCode, const CallValues &values);
    // A child element of the call at depth - 1 (<Data>, <For>, <Info>):
    // dataSize/dataOffset of a <Data>, else -1.
    bool startChild(int depth, bool isData, int64_t dataSize, int64_t dataOffset);
    bool endElement(int depth);
    // Whether the trace ended with everything it started complete.
    bool finished() const { return openDepth_ == 0 && awaitedCallers_ == 0; }
    // Whether the element at depth - 1 is a call (so one at depth is its child).
    bool parentIsCall(int depth) const {
        return depth >= 2 && depth - 1 <= openDepth_ && kinds_[depth - 1] == Element::Call;
    }
    // The code of a call name in the tree's names.
    int32_t code(std::string_view name);

  private:
    bool push(int depth, Element kind);
    HDTRACE_COLD void growDepths(int depth);
    HDTRACE_COLD void addOpen(int64_t row, const CallValues &values);
    // Every column to rows rows.
    void resizeColumns(size_t rows);
    // A row for a call at depth whose parent is open at depth - 1.
    int64_t appendRow(int depth);
    void fillRow(int64_t row, int32_t nameCode, const CallValues &values);
    // The row of the call whose <Nested> block is open at depth, else -1.
    int64_t callerRow(int depth) const {
        return kinds_[static_cast<size_t>(depth)] == Element::Nested
                   ? callerOfBlock_[static_cast<size_t>(depth)]
                   : -1;
    }

    CallTree &tree_;
    // False: nameCode, depth and size only (TreeColumns::NamesDepthsSizes).
    // One branch a row, always taken the same way.
    const bool allColumns_;
    std::vector<Element> kinds_;  // by depth: the open elements
    // By depth: the row of the call a <Nested> block there is for, from the
    // block's start until that call arrives (after the block ends); -1: none.
    std::vector<int64_t> callerOfBlock_;
    std::vector<int64_t> callRow_;  // by depth: the row of an open call
    int openDepth_ = 0;
    int64_t awaitedCallers_ = 0;  // rows given to blocks whose call has not come
    int64_t topRow_ = 0;
    // Rows written, and the columns' length: the columns grow in steps, so
    // that writing a row is stores only, without a check per column.
    size_t rows_ = 0;
    size_t columnRows_ = 0;
    static constexpr size_t kRecentNames = 32;
    std::unordered_map<std::string, int32_t> codes_;
    // The first names met, viewing the map's keys (which never move).
    std::vector<std::pair<std::string_view, int32_t>> recent_;
};

// --- The work per element, inline in the readers' loops (a call would cost
// as much as the work).

HDTRACE_HOT_INLINE bool CallTreeAssembler::push(int depth, Element kind) {
    if (depth != openDepth_ + 1) return false;
    if (static_cast<size_t>(depth) + 1 >= kinds_.size()) growDepths(depth);
    kinds_[static_cast<size_t>(depth)] = kind;
    openDepth_ = depth;
    return true;
}

HDTRACE_HOT_INLINE int64_t CallTreeAssembler::appendRow(int depth) {
    if (rows_ == columnRows_) resizeColumns(std::max<size_t>(1024, columnRows_ * 2));
    CallTree &tree = tree_;
    const size_t row = rows_++;
    tree.nameCode[row] = -1;
    tree.depth[row] = static_cast<int8_t>(depth - 2);  // depth 2: the top level
    if (allColumns_) {
        tree.parent[row] = callerRow(depth - 1);
        tree.topRow[row] = topRow_;
        tree.dataSize[row] = -1;
        tree.dataOffset[row] = -1;
    }
    return static_cast<int64_t>(row);
}

HDTRACE_HOT_INLINE void CallTreeAssembler::fillRow(int64_t row, int32_t nameCode,
                                                   const CallValues &values) {
    CallTree &tree = tree_;
    const auto at = static_cast<size_t>(row);
    tree.nameCode[at] = nameCode;
    tree.size[at] = values.size;
    if (!allColumns_) return;
    tree.startNs[at] = values.startNs;
    tree.endNs[at] = values.hasEnd ? values.endNs : values.startNs;
    tree.fid[at] = static_cast<int32_t>(values.fid);
    tree.offset[at] = values.offset;
    tree.asked[at] = values.asked;
    tree.failed[at] = values.failed ? 1 : 0;
    if (values.hasOpenedName) addOpen(row, values);
}

HDTRACE_HOT_INLINE bool CallTreeAssembler::startNested(int depth) {
    if (depth < 2 || depth - 1 != openDepth_) return false;
    const Element parent = kinds_[static_cast<size_t>(depth - 1)];
    if (parent != Element::Root && parent != Element::Nested) return false;
    // A second block before its call: not what a trace holds.
    if (callerOfBlock_[static_cast<size_t>(depth)] >= 0) return false;
    callerOfBlock_[static_cast<size_t>(depth)] = appendRow(depth);
    ++awaitedCallers_;
    return push(depth, Element::Nested);
}

HDTRACE_HOT_INLINE bool CallTreeAssembler::startCall(int depth, int32_t nameCode,
                                                     const CallValues &values) {
    if (depth < 2 || depth - 1 != openDepth_) return false;
    const Element parent = kinds_[static_cast<size_t>(depth - 1)];
    if (parent != Element::Root && parent != Element::Nested) return false;
    int64_t &caller = callerOfBlock_[static_cast<size_t>(depth)];
    int64_t row = caller;
    if (row >= 0) {
        caller = -1;
        --awaitedCallers_;
    } else {
        row = appendRow(depth);
    }
    fillRow(row, nameCode, values);
    callRow_[static_cast<size_t>(depth)] = row;
    return push(depth, Element::Call);
}

HDTRACE_HOT_INLINE bool CallTreeAssembler::startChild(int depth, bool isData, int64_t dataSize,
                                                      int64_t dataOffset) {
    if (!parentIsCall(depth) || depth - 1 != openDepth_) return false;
    if (isData && allColumns_) {
        const auto row = static_cast<size_t>(callRow_[static_cast<size_t>(depth - 1)]);
        // The first <Data> counts, as the event readers take it.
        if (tree_.dataSize[row] < 0 && tree_.dataOffset[row] < 0) {
            tree_.dataSize[row] = dataSize;
            tree_.dataOffset[row] = dataOffset;
        }
    }
    return push(depth, Element::Child);
}

HDTRACE_HOT_INLINE bool CallTreeAssembler::endElement(int depth) {
    if (depth != openDepth_ || depth < 1) return false;
    // The calls of a <Nested> block one level down belong to the call after
    // it, which must have come before this element ends.
    if (callerOfBlock_[static_cast<size_t>(depth) + 1] >= 0) return false;
    if (depth == 2 && kinds_[2] == Element::Call) ++topRow_;
    if (depth == 1) trim();  // the trace's end
    --openDepth_;
    return true;
}

}  // namespace hdtrace::reader
