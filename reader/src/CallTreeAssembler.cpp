#include "CallTreeAssembler.hpp"

#include <algorithm>
#include <iterator>

namespace hdtrace::reader {

int32_t CallTreeAssembler::code(std::string_view name) {
    // A trace has a few dozen names, and a call and its nested calls take
    // turns: a short list, searched newest hit first, beats hashing a copy.
    for (auto &[known, code] : recent_)
        if (known == name) return code;
    auto found = codes_.find(std::string(name));
    if (found == codes_.end()) {
        found = codes_.emplace(std::string(name), static_cast<int32_t>(tree_.names.size())).first;
        tree_.names.emplace_back(name);
    }
    if (recent_.size() < kRecentNames) recent_.emplace_back(found->first, found->second);
    return found->second;
}

void CallTreeAssembler::resizeColumns(size_t rows) {
    CallTree &tree = tree_;
    tree.nameCode.resize(rows);
    tree.depth.resize(rows);
    tree.parent.resize(rows);
    tree.topRow.resize(rows);
    tree.startNs.resize(rows);
    tree.endNs.resize(rows);
    tree.fid.resize(rows);
    tree.offset.resize(rows);
    tree.size.resize(rows);
    tree.asked.resize(rows);
    tree.failed.resize(rows);
    tree.dataSize.resize(rows);
    tree.dataOffset.resize(rows);
    columnRows_ = rows;
}

void CallTreeAssembler::reserve(size_t rows) {
    if (rows > columnRows_) resizeColumns(rows);
}

void CallTreeAssembler::trim() {
    resizeColumns(rows_);
}

bool CallTreeAssembler::push(int depth, Element kind) {
    if (depth != openDepth_ + 1) return false;
    if (static_cast<size_t>(depth) + 1 >= kinds_.size()) {
        kinds_.resize(static_cast<size_t>(depth) + 2);
        callRow_.resize(static_cast<size_t>(depth) + 2);
        callerOfBlock_.resize(static_cast<size_t>(depth) + 2, -1);
    }
    kinds_[static_cast<size_t>(depth)] = kind;
    openDepth_ = depth;
    return true;
}

int64_t CallTreeAssembler::appendRow(int depth) {
    if (rows_ == columnRows_) resizeColumns(std::max<size_t>(1024, columnRows_ * 2));
    CallTree &tree = tree_;
    const size_t row = rows_++;
    tree.nameCode[row] = -1;
    tree.depth[row] = static_cast<int8_t>(depth - 2);  // depth 2: the top level
    tree.parent[row] = callerRow(depth - 1);
    tree.topRow[row] = topRow_;
    tree.dataSize[row] = -1;
    tree.dataOffset[row] = -1;
    return static_cast<int64_t>(row);
}

void CallTreeAssembler::fillRow(int64_t row, int32_t nameCode, const CallValues &values) {
    CallTree &tree = tree_;
    const auto at = static_cast<size_t>(row);
    tree.nameCode[at] = nameCode;
    tree.startNs[at] = values.startNs;
    tree.endNs[at] = values.hasEnd ? values.endNs : values.startNs;
    tree.fid[at] = static_cast<int32_t>(values.fid);
    tree.offset[at] = values.offset;
    tree.size[at] = values.size;
    tree.asked[at] = values.asked;
    tree.failed[at] = values.failed ? 1 : 0;
    if (values.hasOpenedName) {
        // A file open nested in another comes before its caller's row is
        // filled: the opens stay in row order as the rows are.
        const auto place = static_cast<size_t>(std::distance(
            tree.openRow.begin(), std::upper_bound(tree.openRow.begin(), tree.openRow.end(), row)));
        tree.openRow.insert(tree.openRow.begin() + static_cast<std::ptrdiff_t>(place), row);
        tree.openFid.insert(tree.openFid.begin() + static_cast<std::ptrdiff_t>(place),
                            static_cast<int32_t>(values.fid));
        tree.openName.emplace(tree.openName.begin() + static_cast<std::ptrdiff_t>(place),
                              values.openedName);
    }
}

bool CallTreeAssembler::startRoot() {
    return openDepth_ == 0 && push(1, Element::Root);
}

bool CallTreeAssembler::startNested(int depth) {
    if (depth < 2 || depth - 1 != openDepth_) return false;
    const Element parent = kinds_[static_cast<size_t>(depth - 1)];
    if (parent != Element::Root && parent != Element::Nested) return false;
    // A second block before its call: not what a trace holds.
    if (callerOfBlock_[static_cast<size_t>(depth)] >= 0) return false;
    callerOfBlock_[static_cast<size_t>(depth)] = appendRow(depth);
    ++awaitedCallers_;
    return push(depth, Element::Nested);
}

bool CallTreeAssembler::startCall(int depth, int32_t nameCode, const CallValues &values) {
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

bool CallTreeAssembler::startChild(int depth, bool isData, int64_t dataSize, int64_t dataOffset) {
    if (!parentIsCall(depth) || depth - 1 != openDepth_) return false;
    if (isData) {
        const auto row = static_cast<size_t>(callRow_[static_cast<size_t>(depth - 1)]);
        // The first <Data> counts, as the event readers take it.
        if (tree_.dataSize[row] < 0 && tree_.dataOffset[row] < 0) {
            tree_.dataSize[row] = dataSize;
            tree_.dataOffset[row] = dataOffset;
        }
    }
    return push(depth, Element::Child);
}

bool CallTreeAssembler::endElement(int depth) {
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
