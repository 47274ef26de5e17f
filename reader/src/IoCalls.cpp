#include <algorithm>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <hdtrace/codec/Inlining.hpp>
#include <hdtrace/reader/IoCalls.hpp>

namespace hdtrace::reader {
namespace {

// A file's name comes from the last open of its id that ended before the
// call did, as a walk over the events, meeting each call at its end, sees
// it. In pre-order a call ends after the calls nested in it, so ordering the
// rows by (the last row of their subtree, deepest first) orders them by
// their ends: that number is a row's end key.
class EndKeys {
  public:
    explicit EndKeys(const CallTree &tree) : lastRow_(tree.rows()), depth_(tree.depth.data()) {
        const size_t rows = tree.rows();
        int deepest = 0;
        for (size_t row = 0; row < rows; ++row) {
            lastRow_[row] = static_cast<int64_t>(row);
            deepest = std::max(deepest, static_cast<int>(tree.depth[row]));
        }
        // Children follow their parent: going backwards, a row's subtree is
        // complete when the row is reached.
        for (size_t row = rows; row-- > 0;) {
            const int64_t parent = tree.parent[row];
            if (parent >= 0) lastRow_[parent] = std::max(lastRow_[parent], lastRow_[row]);
        }
        levels_ = deepest + 1;
    }

    int64_t of(int64_t row) const { return lastRow_[row] * levels_ + (levels_ - 1 - depth_[row]); }

  private:
    Column<int64_t> lastRow_;
    const int8_t *depth_;
    int64_t levels_ = 1;
};

// The file of each call with a file id: the index of the open that named
// it, or the opens' count plus the id's place among the ids no open named.
class FileNamer {
  public:
    FileNamer(const CallTree &tree, std::vector<int32_t> &unnamedFids)
        : openCount_(static_cast<int32_t>(tree.openName.size())), unnamedFids_(unnamedFids) {
        for (size_t index = 0; index < tree.openRow.size(); ++index) {
            if (tree.openFid[index] < 0) continue;
            if (!keys_) keys_.emplace(tree);
            opens_.push_back(
                {tree.openFid[index], static_cast<int32_t>(index), keys_->of(tree.openRow[index])});
        }
        std::sort(opens_.begin(), opens_.end(), [](const Open &left, const Open &right) {
            if (left.fid != right.fid) return left.fid < right.fid;
            if (left.endKey != right.endKey) return left.endKey < right.endKey;
            return left.index < right.index;
        });
        rangeBegin_ = rangeEnd_ = opens_.cbegin();
    }

    int32_t fileOf(int32_t fid, int64_t row) {
        if (fid != rangeFid_) {
            rangeFid_ = fid;
            rangeBegin_ =
                std::lower_bound(opens_.cbegin(), opens_.cend(), fid,
                                 [](const Open &open, int32_t value) { return open.fid < value; });
            rangeEnd_ =
                std::upper_bound(rangeBegin_, opens_.cend(), fid,
                                 [](int32_t value, const Open &open) { return value < open.fid; });
            unnamedFile_ = -1;
        }
        if (rangeBegin_ != rangeEnd_) {
            const int64_t key = keys_->of(row);
            const auto after = std::upper_bound(
                rangeBegin_, rangeEnd_, key,
                [](int64_t value, const Open &open) { return value < open.endKey; });
            if (after != rangeBegin_) return std::prev(after)->index;
        }
        // An id is listed among the unnamed ones once a call needs it so.
        if (unnamedFile_ < 0) {
            const auto [place, added] =
                unnamedIndex_.try_emplace(fid, static_cast<int32_t>(unnamedFids_.size()));
            if (added) unnamedFids_.push_back(fid);
            unnamedFile_ = place->second;
        }
        return openCount_ + unnamedFile_;
    }

  private:
    struct Open {
        int32_t fid;
        int32_t index;  // in the tree's opens
        int64_t endKey;
    };

    int32_t openCount_;
    std::vector<int32_t> &unnamedFids_;
    std::optional<EndKeys> keys_;
    std::vector<Open> opens_;
    int32_t rangeFid_ = -1;
    std::vector<Open>::const_iterator rangeBegin_, rangeEnd_;
    std::unordered_map<int32_t, int32_t> unnamedIndex_;
    int32_t unnamedFile_ = -1;  // rangeFid_'s place among the unnamed ids, -1: not looked up
};

template <typename T>
T atLeastZero(T value) {
    return value < 0 ? T{0} : value;
}

void checkKindsCover(const CallTree &tree, const IoCallKinds &kinds) {
    const size_t names = tree.names.size();
    if (kinds.layer.size() < names || kinds.kind.size() < names ||
        kinds.countsDone.size() < names || kinds.callCode.size() < names)
        throw std::invalid_argument("the I/O kinds describe " + std::to_string(kinds.layer.size()) +
                                    " call names, the tree has " + std::to_string(names));
}

[[noreturn]] HDTRACE_COLD void throwNoName(size_t row, int32_t code) {
    throw std::invalid_argument("call tree row " + std::to_string(row) + " has no name (code " +
                                std::to_string(code) + ")");
}

// The name code of a tree's row, checked against its names. Inlined into
// the loops over every row, with the error out of line.
inline int32_t nameCodeOf(const int32_t *nameCode, size_t names, size_t row) {
    const int32_t code = nameCode[row];
    if (static_cast<uint32_t>(code) >= names) throwNoName(row, code);
    return code;
}

}  // namespace

void IoCallColumns::resize(size_t rows) {
    rank.resize(rows);
    thread.resize(rows);
    call.resize(rows);
    layer.resize(rows);
    kind.resize(rows);
    fid.resize(rows);
    file.resize(rows);
    offset.resize(rows);
    requested.resize(rows);
    done.resize(rows);
    startNs.resize(rows);
    endNs.resize(rows);
    depth.resize(rows);
    parent.resize(rows);
    failed.resize(rows);
    parentCall.resize(rows);
}

size_t countIoCalls(const CallTree &tree, const IoCallKinds &kinds) {
    checkKindsCover(tree, kinds);
    const int32_t *const nameCode = tree.nameCode.data();
    const int8_t *const layerOf = kinds.layer.data();
    size_t count = 0;
    for (size_t row = 0; row < tree.rows(); ++row)
        count += layerOf[nameCodeOf(nameCode, tree.names.size(), row)] >= 0;
    return count;
}

std::vector<int32_t> selectIoCalls(const CallTree &tree, const IoCallKinds &kinds, int32_t rank,
                                   int32_t thread, IoCallColumns &columns, size_t first) {
    checkKindsCover(tree, kinds);
    // Room is checked as rows are written: counting them first would be a
    // second pass over the tree (the caller has counted them to size the
    // columns).
    const size_t room = first <= columns.rows() ? columns.rows() - first : 0;
    const size_t rows = tree.rows();
    const size_t names = tree.names.size();
    // Every column through a local pointer: the stores into the byte
    // columns may alias anything, and would make the compiler load each
    // column's address again for every row.
    const int32_t *const nameCode = tree.nameCode.data();
    const int8_t *const layerOf = kinds.layer.data();
    const IoKind *const kindOf = kinds.kind.data();
    const uint8_t *const countsDoneOf = kinds.countsDone.data();
    const int32_t *const callCodeOf = kinds.callCode.data();
    const int8_t *const depthIn = tree.depth.data();
    const int64_t *const parentIn = tree.parent.data();
    const int64_t *const sizeIn = tree.size.data();
    const int64_t *const offsetIn = tree.offset.data();
    const int64_t *const dataSizeIn = tree.dataSize.data();
    const int64_t *const dataOffsetIn = tree.dataOffset.data();
    const int64_t *const askedIn = tree.asked.data();
    const int64_t *const startIn = tree.startNs.data();
    const int64_t *const endIn = tree.endNs.data();
    const int32_t *const fidIn = tree.fid.data();
    const uint8_t *const failedIn = tree.failed.data();
    int32_t *const rankOut = columns.rank.data() + first;
    int32_t *const threadOut = columns.thread.data() + first;
    int32_t *const callOut = columns.call.data() + first;
    int8_t *const layerOut = columns.layer.data() + first;
    int8_t *const kindOut = columns.kind.data() + first;
    int32_t *const fidOut = columns.fid.data() + first;
    int32_t *const fileOut = columns.file.data() + first;
    int64_t *const offsetOut = columns.offset.data() + first;
    int64_t *const requestedOut = columns.requested.data() + first;
    int64_t *const doneOut = columns.done.data() + first;
    int64_t *const startOut = columns.startNs.data() + first;
    int64_t *const endOut = columns.endNs.data() + first;
    int8_t *const depthOut = columns.depth.data() + first;
    int64_t *const parentOut = columns.parent.data() + first;
    uint8_t *const failedOut = columns.failed.data() + first;
    int32_t *const parentCallOut = columns.parentCall.data() + first;

    // In pre-order a row's parent is the last row met one level up: per
    // depth, that row and the I/O row nearest above or at it.
    constexpr int kDepths = 128;
    int64_t rowAt[kDepths];
    int64_t ioAt[kDepths];
    std::fill(rowAt, rowAt + kDepths, int64_t{-2});
    std::vector<int32_t> unnamedFids;
    FileNamer files(tree, unnamedFids);
    const auto base = static_cast<int64_t>(first);
    size_t at = 0;
    for (size_t row = 0; row < rows; ++row) {
        const int depth = depthIn[row];
        const int64_t above = parentIn[row];
        if (depth < 0 || (depth == 0) != (above < 0) || (depth > 0 && rowAt[depth - 1] != above))
            throw std::invalid_argument("call tree row " + std::to_string(row) +
                                        " is not in pre-order under its parent row " +
                                        std::to_string(above));
        const int64_t ioAbove = depth > 0 ? ioAt[depth - 1] : -1;
        rowAt[depth] = static_cast<int64_t>(row);
        const int32_t code = nameCodeOf(nameCode, names, row);
        const int8_t layer = layerOf[code];
        if (layer < 0) {
            ioAt[depth] = ioAbove;
            continue;
        }
        if (at == room)
            throw std::invalid_argument("the I/O call columns have no room for more than " +
                                        std::to_string(room) + " rows from row " +
                                        std::to_string(first));
        ioAt[depth] = base + static_cast<int64_t>(at);
        const IoKind kind = kindOf[code];
        const bool countsDone = countsDoneOf[code] != 0;
        const bool moves = kind != IoKind::Meta;
        // A split collective's begin has its bytes in its <Data> child.
        const bool own = countsDone || sizeIn[row] >= 0;
        const int64_t bytes = own ? sizeIn[row] : dataSizeIn[row];
        const int64_t offset = own ? offsetIn[row] : dataOffsetIn[row];
        const int64_t done = moves ? atLeastZero(bytes) : 0;
        const int32_t fid = fidIn[row];
        rankOut[at] = rank;
        threadOut[at] = thread;
        callOut[at] = callCodeOf[code];
        layerOut[at] = layer;
        kindOut[at] = static_cast<int8_t>(kind);
        fidOut[at] = fid;
        fileOut[at] = fid >= 0 ? files.fileOf(fid, static_cast<int64_t>(row)) : -1;
        offsetOut[at] = moves && offset >= 0 ? offset : -1;
        requestedOut[at] = countsDone ? atLeastZero(askedIn[row]) : done;
        doneOut[at] = done;
        startOut[at] = startIn[row];
        endOut[at] = endIn[row];
        depthOut[at] = static_cast<int8_t>(depth);
        parentOut[at] = ioAbove;
        failedOut[at] = failedIn[row] != 0;
        parentCallOut[at] = above >= 0 ? callCodeOf[nameCode[above]] : -1;
        ++at;
    }
    return unnamedFids;
}

void codeIoFiles(IoCallColumns &columns, size_t first, size_t count,
                 const std::vector<int32_t> &fileCodes) {
    if (first > columns.rows() || columns.rows() - first < count)
        throw std::invalid_argument("no rows " + std::to_string(first) + " to " +
                                    std::to_string(first + count) + " to name files in");
    int32_t *const file = columns.file.data() + first;
    const auto known = static_cast<int64_t>(fileCodes.size());
    for (size_t row = 0; row < count; ++row) {
        const int32_t index = file[row];
        if (index < 0) continue;
        if (index >= known)
            throw std::invalid_argument("file index " + std::to_string(index) + " of row " +
                                        std::to_string(first + row) + " has no code (" +
                                        std::to_string(known) + " given)");
        file[row] = fileCodes[index];
    }
}

}  // namespace hdtrace::reader
