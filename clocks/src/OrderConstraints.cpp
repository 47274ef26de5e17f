#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include <hdtrace/clocks/OrderConstraints.hpp>

#include "DialectRoles.hpp"

namespace hdtrace::clocks {
namespace {

using Waits = dialect::CollectiveShape;

Waits waitsOf(const std::string &name) {
    static const std::unordered_map<std::string, Waits> waits = [] {
        std::unordered_map<std::string, Waits> byName;
        for (const auto &[call, shape] : dialect::kBlockingCollectiveShapes)
            byName.emplace(call, shape);
        return byName;
    }();
    auto found = waits.find(name);
    return found == waits.end() ? Waits::None : found->second;
}

// Calls that take a place in the order of a communicator's collectives,
// whether or not the repair constrains them.
bool isCollective(const std::string &name) {
    static const std::unordered_set<std::string> collectives = [] {
        std::unordered_set<std::string> names;
        for (std::string_view call : dialect::kOrderedCollectives)
            names.emplace(call);
        return names;
    }();
    return collectives.count(name) > 0;
}

bool completesElsewhere(const std::string &name) {
    return dialect::receiveCompletesThroughRequest(name);
}

uint64_t pack(int64_t high, int64_t low) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(high)) << 32) | static_cast<uint32_t>(low);
}

void receiveConstraints(const RunTable &table, const std::vector<MessagePair> &pairs,
                        OrderConstraints &out) {
    // (rank, thread, rid) -> [(start, row)] of the Wait/Test calls completing it.
    std::map<std::tuple<int32_t, int32_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>>
        completions;
    bool completionsRead = false;
    for (const MessagePair &pair : pairs) {
        const size_t receive = static_cast<size_t>(pair.recvRow);
        int64_t done = pair.recvRow;
        if (completesElsewhere(table.name(receive))) {
            if (!completionsRead) {
                completionsRead = true;
                for (size_t k = 0; k < table.completionRow.size(); ++k) {
                    const size_t row = static_cast<size_t>(table.completionRow[k]);
                    if (dialect::startsThroughChildren(table.name(row)))
                        continue;  // starts requests, completes none
                    completions[{table.rank[row], table.thread[row], table.completionRid[k]}]
                        .emplace_back(table.startNs[row], static_cast<int64_t>(row));
                }
                for (auto &[_, found] : completions)
                    std::sort(found.begin(), found.end());
            }
            // The receive's own request: for Startall, the one its <For> started.
            auto found =
                completions.find({table.rank[receive], table.thread[receive], pair.recvRid});
            if (found == completions.end()) continue;
            auto first = std::lower_bound(found->second.begin(), found->second.end(),
                                          std::make_pair(table.startNs[receive], INT64_MIN));
            if (first == found->second.end()) continue;  // never completed in the trace
            done = first->second;
        }
        out.sendRows.push_back(pair.sendRow);
        out.doneRows.push_back(done);
    }
}

void collectiveConstraints(const RunTable &table, const CommunicatorIndex &communicators,
                           OrderConstraints &out) {
    // (communicator, rank) -> its collective calls in start order, keys in first-seen order.
    std::vector<std::pair<uint64_t, std::vector<int64_t>>> calls;
    std::unordered_map<uint64_t, size_t> callsAt;
    // The rows in start order: as they stand, in a table sorted by start
    // (order left empty), else through a stable sort.
    const size_t rowCount = table.rows();
    std::vector<size_t> order;
    if (!std::is_sorted(table.startNs.begin(), table.startNs.end())) {
        order.resize(rowCount);
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return table.startNs[a] < table.startNs[b]; });
    }
    std::vector<char> collective(table.names.size());
    for (size_t code = 0; code < table.names.size(); ++code)
        collective[code] = isCollective(table.names[code]);
    for (size_t place = 0; place < rowCount; ++place) {
        const size_t row = order.empty() ? place : order[place];
        if (!collective[static_cast<size_t>(table.nameCode[row])]) continue;
        const int64_t index = communicators.find(table.rank[row], table.cid[row]);
        if (index < 0) continue;
        const uint64_t key = pack(index, table.rank[row]);
        auto [entry, added] = callsAt.try_emplace(key, calls.size());
        if (added) calls.emplace_back(key, std::vector<int64_t>());
        calls[entry->second].second.push_back(static_cast<int64_t>(row));
    }
    // Instance (communicator, k): the k-th collective of every member, members in first-seen order.
    std::vector<std::pair<int64_t, std::vector<int64_t>>> instances;
    std::unordered_map<uint64_t, size_t> instanceAt;
    for (const auto &[key, rows] : calls) {
        const int64_t index = static_cast<int64_t>(key >> 32);
        for (size_t k = 0; k < rows.size(); ++k) {
            auto [entry, added] =
                instanceAt.try_emplace(pack(index, static_cast<int64_t>(k)), instances.size());
            if (added) instances.emplace_back(index, std::vector<int64_t>());
            instances[entry->second].second.push_back(rows[k]);
        }
    }
    for (size_t instance = 0; instance < instances.size(); ++instance) {
        const auto &[index, rows] = instances[instance];
        const int32_t kindCode = table.nameCode[static_cast<size_t>(rows[0])];
        const Waits waits = waitsOf(table.names[static_cast<size_t>(kindCode)]);
        if (waits == Waits::None || rows.size() != communicators.size(index)) continue;
        if (std::any_of(rows.begin(), rows.end(), [&](int64_t row) {
                return table.nameCode[static_cast<size_t>(row)] != kindCode;
            }))
            continue;
        const int64_t id = static_cast<int64_t>(instance);
        auto add = [&](std::vector<int64_t> &to, std::vector<int64_t> &ids, int64_t row) {
            to.push_back(row);
            ids.push_back(id);
        };
        if (waits == Waits::AllToAll) {
            for (int64_t row : rows) {
                add(out.sources, out.sourceInstance, row);
                add(out.sinks, out.sinkInstance, row);
            }
            continue;
        }
        const int32_t rootRank = table.peer[static_cast<size_t>(rows[0])];
        std::vector<int64_t> roots;
        for (int64_t row : rows)
            if (table.rank[static_cast<size_t>(row)] == rootRank) roots.push_back(row);
        if (roots.size() != 1) continue;
        for (int64_t row : rows) {
            if (waits == Waits::FromRoot) {
                if (row == roots[0])
                    add(out.sources, out.sourceInstance, row);
                else
                    add(out.sinks, out.sinkInstance, row);
            } else {
                add(out.sources, out.sourceInstance, row);
            }
        }
        if (waits == Waits::ToRoot) add(out.sinks, out.sinkInstance, roots[0]);
    }
    out.instances = static_cast<int64_t>(instances.size());
}

}  // namespace

OrderConstraints orderConstraints(const RunTable &table, const std::vector<MessagePair> &pairs,
                                  const CommunicatorIndex &communicators) {
    OrderConstraints constraints;
    receiveConstraints(table, pairs, constraints);
    collectiveConstraints(table, communicators, constraints);
    return constraints;
}

}  // namespace hdtrace::clocks
