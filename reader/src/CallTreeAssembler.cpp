#include "CallTreeAssembler.hpp"

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

bool CallTreeAssembler::push(int depth, Element kind) {
    if (depth != openDepth_ + 1) return false;
    if (static_cast<size_t>(depth) >= kinds_.size()) {
        kinds_.resize(static_cast<size_t>(depth) + 1);
        openNode_.resize(static_cast<size_t>(depth) + 1);
        pending_.resize(static_cast<size_t>(depth) + 2);
    }
    kinds_[static_cast<size_t>(depth)] = kind;
    openDepth_ = depth;
    return true;
}

bool CallTreeAssembler::startRoot() {
    return openDepth_ == 0 && push(1, Element::Root);
}

bool CallTreeAssembler::startNested(int depth) {
    if (depth < 2 || depth - 1 != openDepth_) return false;
    const Element parent = kinds_[static_cast<size_t>(depth - 1)];
    if (parent != Element::Root && parent != Element::Nested) return false;
    // A second block before its call: not what a trace holds.
    if (!pending_[static_cast<size_t>(depth)].empty()) return false;
    return push(depth, Element::Nested);
}

bool CallTreeAssembler::startCall(int depth, std::string_view name, const CallValues &values) {
    if (depth < 2 || depth - 1 != openDepth_) return false;
    const Element parent = kinds_[static_cast<size_t>(depth - 1)];
    if (parent != Element::Root && parent != Element::Nested) return false;
    const auto node = static_cast<uint32_t>(nodes_.size());
    Node &added = nodes_.emplace_back();
    added.nameCode = code(name);
    added.values = values;
    if (values.hasOpenedName) {
        added.openedName.assign(values.openedName);
        added.values.openedName = {};
    }
    std::vector<uint32_t> &adopted = pending_[static_cast<size_t>(depth)];
    added.childBegin = static_cast<uint32_t>(children_.size());
    added.childCount = static_cast<uint32_t>(adopted.size());
    children_.insert(children_.end(), adopted.begin(), adopted.end());
    adopted.clear();
    if (!push(depth, Element::Call)) return false;
    openNode_[static_cast<size_t>(depth)] = node;
    return true;
}

bool CallTreeAssembler::startChild(int depth, bool isData, int64_t dataSize, int64_t dataOffset) {
    if (!parentIsCall(depth) || depth - 1 != openDepth_) return false;
    if (isData) {
        Node &call = nodes_[openNode_[static_cast<size_t>(depth - 1)]];
        // The first <Data> counts, as the event readers take it.
        if (call.dataSize < 0 && call.dataOffset < 0) {
            call.dataSize = dataSize;
            call.dataOffset = dataOffset;
        }
    }
    return push(depth, Element::Child);
}

bool CallTreeAssembler::endElement(int depth) {
    if (depth != openDepth_ || depth < 1) return false;
    // The calls of a <Nested> block one level down belong to the call after
    // it, which must have come before this element ends.
    if (!pending_[static_cast<size_t>(depth) + 1].empty()) return false;
    const Element kind = kinds_[static_cast<size_t>(depth)];
    if (kind == Element::Call) {
        const uint32_t node = openNode_[static_cast<size_t>(depth)];
        if (depth == 2) {
            emit(node, 0, -1);
            ++topRow_;
            nodes_.clear();
            children_.clear();
        } else {
            pending_[static_cast<size_t>(depth - 1)].push_back(node);
        }
    }
    --openDepth_;
    return true;
}

void CallTreeAssembler::emit(uint32_t index, int depth, int64_t parent) {
    const Node &node = nodes_[index];
    const auto row = static_cast<int64_t>(tree_.rows());
    const CallValues &values = node.values;
    tree_.nameCode.push_back(node.nameCode);
    tree_.depth.push_back(static_cast<int8_t>(depth));
    tree_.parent.push_back(parent);
    tree_.topRow.push_back(topRow_);
    tree_.startNs.push_back(values.startNs);
    tree_.endNs.push_back(values.hasEnd ? values.endNs : values.startNs);
    tree_.fid.push_back(static_cast<int32_t>(values.fid));
    tree_.offset.push_back(values.offset);
    tree_.size.push_back(values.size);
    tree_.asked.push_back(values.asked);
    tree_.failed.push_back(values.failed ? 1 : 0);
    tree_.dataSize.push_back(node.dataSize);
    tree_.dataOffset.push_back(node.dataOffset);
    if (values.hasOpenedName) {
        tree_.openRow.push_back(row);
        tree_.openFid.push_back(static_cast<int32_t>(values.fid));
        tree_.openName.push_back(node.openedName);
    }
    for (uint32_t child = 0; child < node.childCount; ++child)
        emit(children_[node.childBegin + child], depth + 1, row);
}

}  // namespace hdtrace::reader
