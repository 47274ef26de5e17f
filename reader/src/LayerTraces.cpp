#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/reader/LayerTraces.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "DialectCalls.hpp"  // generated from the dialect: kOwnTraceLayers

namespace hdtrace::reader {

namespace {

bool isRegularFile(const std::string &path) {
    struct stat status;
    return stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// A top-level call with the rows it holds, as one block of the merged tree.
struct Block {
    int64_t key;    // where it goes: its start, or the start of the outer call holding it
    bool inner;     // at one key, the outer call first
    int64_t first;  // its first row in its own tree
    int64_t end;    // one past its last row
};

// Where each top-level call's rows begin in a tree in pre-order.
std::vector<int64_t> blockStarts(const CallTree &tree) {
    std::vector<int64_t> starts;
    for (size_t row = 0; row < tree.rows(); ++row)
        if (tree.depth[row] == 0) starts.push_back(static_cast<int64_t>(row));
    return starts;
}

template <class Values>
void appendRow(Values &to, const Values &from, int64_t row) {
    to.push_back(from[static_cast<size_t>(row)]);
}

}  // namespace

std::vector<LayerTracePath> layerTracePaths(const std::string &mainPath) {
    const std::string base = traceBasePath(mainPath);
    std::vector<LayerTracePath> found;
    for (std::string_view layer : kOwnTraceLayers) {
        for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix}) {
            std::string path = base + "." + std::string(layer) + std::string(suffix);
            if (isRegularFile(path)) {
                found.push_back({std::string(layer), std::move(path)});
                break;
            }
        }
    }
    return found;
}

CallTree nestCallTreeBeneath(const CallTree &outer, const CallTree &inner) {
    const std::vector<int64_t> outerStarts = blockStarts(outer);
    const std::vector<int64_t> innerStarts = blockStarts(inner);
    const auto endOf = [](const std::vector<int64_t> &starts, size_t index, size_t rows) {
        return index + 1 < starts.size() ? starts[index + 1] : static_cast<int64_t>(rows);
    };

    // The outer call each inner top-level call lies within: the last that
    // starts at or before it, if it also ends at or after it (-1: none).
    std::vector<int64_t> outerTopStart;
    outerTopStart.reserve(outerStarts.size());
    for (int64_t row : outerStarts)
        outerTopStart.push_back(outer.startNs[row]);
    std::vector<int64_t> holder(innerStarts.size(), -1);  // an outer row
    std::vector<Block> blocks;
    blocks.reserve(outerStarts.size() + innerStarts.size());
    for (size_t index = 0; index < outerStarts.size(); ++index)
        blocks.push_back({outerTopStart[index], false, outerStarts[index],
                          endOf(outerStarts, index, outer.rows())});
    for (size_t index = 0; index < innerStarts.size(); ++index) {
        const int64_t head = innerStarts[index];
        const auto after =
            std::upper_bound(outerTopStart.begin(), outerTopStart.end(), inner.startNs[head]);
        int64_t key = inner.startNs[head];
        if (after != outerTopStart.begin()) {
            const int64_t candidate =
                outerStarts[static_cast<size_t>(std::distance(outerTopStart.begin(), after) - 1)];
            if (inner.endNs[head] <= outer.endNs[candidate]) {
                holder[index] = candidate;
                key = outer.startNs[candidate];
            }
        }
        blocks.push_back({key, true, head, endOf(innerStarts, index, inner.rows())});
    }
    std::stable_sort(blocks.begin(), blocks.end(), [](const Block &a, const Block &b) {
        return std::tie(a.key, a.inner, a.first) < std::tie(b.key, b.inner, b.first);
    });

    // Where each row of either tree lands.
    std::vector<int64_t> outerPlace(outer.rows()), innerPlace(inner.rows());
    int64_t next = 0;
    for (const Block &block : blocks) {
        std::vector<int64_t> &place = block.inner ? innerPlace : outerPlace;
        for (int64_t row = block.first; row < block.end; ++row)
            place[row] = next++;
    }

    CallTree merged;
    const size_t rows = outer.rows() + inner.rows();
    std::unordered_map<std::string, int32_t> codeOfName;
    std::vector<int32_t> outerCode, innerCode;
    for (const auto *tree : {&outer, &inner}) {
        std::vector<int32_t> &codes = tree == &outer ? outerCode : innerCode;
        for (const std::string &name : tree->names) {
            const auto [at, added] =
                codeOfName.try_emplace(name, static_cast<int32_t>(merged.names.size()));
            if (added) merged.names.push_back(name);
            codes.push_back(at->second);
        }
    }
    merged.nameCode.reserve(rows);
    merged.depth.reserve(rows);
    merged.parent.reserve(rows);
    merged.topRow.reserve(rows);
    int64_t topLevelCalls = 0;
    for (const Block &block : blocks) {
        const CallTree &tree = block.inner ? inner : outer;
        // The outer call holding this inner block, -1 for none.
        int64_t heldBy = -1;
        if (block.inner) {
            const auto index =
                std::lower_bound(innerStarts.begin(), innerStarts.end(), block.first) -
                innerStarts.begin();
            heldBy = holder[static_cast<size_t>(index)];
        }
        for (int64_t row = block.first; row < block.end; ++row) {
            merged.nameCode.push_back((block.inner ? innerCode : outerCode)[tree.nameCode[row]]);
            const int8_t depth = static_cast<int8_t>(tree.depth[row] + (heldBy >= 0 ? 1 : 0));
            merged.depth.push_back(depth);
            const int64_t parent = tree.parent[row];
            if (parent >= 0)
                merged.parent.push_back((block.inner ? innerPlace : outerPlace)[parent]);
            else
                merged.parent.push_back(heldBy >= 0 ? outerPlace[heldBy] : -1);
            if (depth == 0) ++topLevelCalls;
            merged.topRow.push_back(topLevelCalls - 1);
            appendRow(merged.startNs, tree.startNs, row);
            appendRow(merged.endNs, tree.endNs, row);
            appendRow(merged.fid, tree.fid, row);
            appendRow(merged.offset, tree.offset, row);
            appendRow(merged.size, tree.size, row);
            appendRow(merged.asked, tree.asked, row);
            appendRow(merged.failed, tree.failed, row);
            appendRow(merged.dataSize, tree.dataSize, row);
            appendRow(merged.dataOffset, tree.dataOffset, row);
        }
    }
    merged.openRow.reserve(inner.openRow.size());
    for (int64_t row : inner.openRow)
        merged.openRow.push_back(innerPlace[row]);
    merged.openFid = inner.openFid;
    merged.openName = inner.openName;
    return merged;
}

CallTreeResult readCallTreeWithLayers(const std::string &mainPath, const TraceOptions &options) {
    CallTreeResult result = readCallTree(mainPath, options);
    const std::vector<LayerTracePath> layers = layerTracePaths(mainPath);
    // Innermost layer first, so that each outer one goes above all below it.
    for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer) {
        CallTreeResult above = readCallTree(layer->path, options);
        result.tree = nestCallTreeBeneath(above.tree, result.tree);
        if (above.damage)
            result.damage = result.damage ? *above.damage + "; " + *result.damage : above.damage;
    }
    return result;
}

}  // namespace hdtrace::reader
