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
    if (allColumns_) {
        forEachRowColumn(tree_, [rows](auto &column) { column.resize(rows); });
    } else {
        tree_.nameCode.resize(rows);
        tree_.depth.resize(rows);
        tree_.size.resize(rows);
    }
    columnRows_ = rows;
}

void CallTreeAssembler::reserve(size_t rows) {
    if (rows > columnRows_) resizeColumns(rows);
}

void CallTreeAssembler::trim() {
    resizeColumns(rows_);
}

void CallTreeAssembler::growDepths(int depth) {
    kinds_.resize(static_cast<size_t>(depth) + 2);
    callRow_.resize(static_cast<size_t>(depth) + 2);
    callerOfBlock_.resize(static_cast<size_t>(depth) + 2, -1);
}

void CallTreeAssembler::addOpen(int64_t row, const CallValues &values) {
    CallTree &tree = tree_;
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

bool CallTreeAssembler::startRoot() {
    return openDepth_ == 0 && push(1, Element::Root);
}

}  // namespace hdtrace::reader
