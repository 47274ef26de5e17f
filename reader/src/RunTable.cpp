#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/EveryCore.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/RunTable.hpp>
#include <hdtrace/reader/SortedRuns.hpp>
#include <hdtrace/reader/TraceReader.hpp>

namespace hdtrace::reader {
namespace {

int32_t labelNumber(const Project &project, const std::string &label, const char *what) {
    auto value = parseInteger(label);
    if (!value || *value < INT32_MIN || *value > INT32_MAX)
        throw ReadError(
            project.path, 0, 0,
            std::string("topology ") + what + " label '" + label + "' is not an integer");
    return static_cast<int32_t>(*value);
}

bool isFile(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// A column the table's maker left empty (a caller that fills only the
// columns it needs, as the clocks' binding does) stays empty.
template <typename T>
void permute(Column<T> &values, const std::vector<size_t> &order) {
    if (values.empty()) return;
    Column<T> sorted;
    sorted.resize(order.size());  // left unset: every row is written below
    T *const to = sorted.data();
    const T *const from = values.data();
    for (size_t row = 0; row < order.size(); ++row)
        to[row] = from[order[row]];
    values = std::move(sorted);
}

}  // namespace

LocalToWorldTable localToWorldOf(const Project &project, int32_t rank) {
    LocalToWorldTable table;
    for (const Communicator &communicator : project.communicators) {
        const CommunicatorMember *own = nullptr;
        int64_t size = 0;
        for (const CommunicatorMember &member : communicator.members) {
            if (!own && member.global == rank) own = &member;
            size = std::max(size, member.local + 1);
        }
        if (!own || table.count(own->cid)) continue;
        std::vector<int32_t> worlds(static_cast<size_t>(size), -1);
        for (const CommunicatorMember &member : communicator.members)
            if (member.local >= 0) worlds[static_cast<size_t>(member.local)] = member.global;
        table.emplace(own->cid, std::move(worlds));
    }
    return table;
}

std::vector<RunTrace> traceList(const Project &project) {
    std::vector<RunTrace> traces;
    for (const TopologyLeaf &leaf : project.leaves) {
        if (leaf.labels.size() < 3)
            throw ReadError(project.path, 0, 0,
                            "topology leaf with " + std::to_string(leaf.labels.size()) +
                                " levels, expected host, rank and thread");
        traces.push_back({labelNumber(project, leaf.labels[1], "rank"),
                          labelNumber(project, leaf.labels[2], "thread"), leaf.tracePath});
    }
    std::stable_sort(traces.begin(), traces.end(), [](const RunTrace &a, const RunTrace &b) {
        return std::make_pair(a.rank, a.thread) < std::make_pair(b.rank, b.thread);
    });
    return traces;
}

bool ranksAreLocal(const Project &project, const std::vector<RunTrace> &traces) {
    if (project.distributionStyle == DistributionStyle::Implementation) return false;
    if (project.distributionStyle == DistributionStyle::Class) return true;
    // Neither: our writer's nine fraction digits tell our traces.
    for (const RunTrace &trace : traces) {
        if (!isFile(trace.path)) continue;
        TraceOptions options;
        options.partial = true;
        TraceReader traceReader(trace.path, options);
        Event event;
        traceReader.next(event);
        const int digits = traceReader.timeFractionDigits();
        if (digits >= 0) return digits != 9;
    }
    return false;
}

void RunTable::reorder(const std::vector<size_t> &order) {
    permute(nameCode, order);
    permute(rank, order);
    permute(thread, order);
    permute(peer, order);
    permute(tag, order);
    permute(cid, order);
    permute(fid, order);
    permute(recvPeer, order);
    permute(recvTag, order);
    permute(startNs, order);
    permute(endNs, order);
    permute(size, order);
    permute(offset, order);
    permute(rid, order);
    if (completionRow.empty() && openRow.empty()) return;
    Column<int64_t> newRow;
    newRow.resize(order.size());  // unset: order names every row once
    for (size_t row = 0; row < order.size(); ++row)
        newRow[order[row]] = static_cast<int64_t>(row);
    for (std::vector<int64_t> *rows : {&completionRow, &openRow})
        for (int64_t &row : *rows)
            row = newRow[static_cast<size_t>(row)];
}

void RunTable::sortByStart() {
    const size_t count = rows();
    // Earlier start first; equal starts in the order of the rows (stable).
    const int64_t *const start = startNs.data();
    const auto before = [start](int64_t left, int64_t right) {
        return start[left] < start[right] || (start[left] == start[right] && left < right);
    };
    std::vector<size_t> order;
    order.reserve(count);
    std::optional<TraceChains> chains;
    bool tracesInOrder = rank.size() == count && thread.size() == count;
    if (tracesInOrder) {
        chains.emplace(count);
        for (size_t row = 0; row < count && tracesInOrder; ++row) {
            const int64_t previous =
                chains->add(static_cast<int64_t>(row), rank[row], thread[row]).previous;
            tracesInOrder = previous < 0 || before(previous, static_cast<int64_t>(row));
        }
    }
    if (tracesInOrder) {
        // Each trace's rows are in order already (the usual case: a trace is
        // written in start order, and a clock's correction keeps it so): a
        // merge of the traces.
        chains->merge(before, [&order](int64_t row) { order.push_back(static_cast<size_t>(row)); });
    } else {
        for (size_t row = 0; row < count; ++row)
            order.push_back(row);
        std::stable_sort(order.begin(), order.end(), [&before](size_t left, size_t right) {
            return before(static_cast<int64_t>(left), static_cast<int64_t>(right));
        });
    }
    for (size_t row = 0; row < count; ++row)
        if (order[row] != row) return reorder(order);
}

RunTable readRunTable(const Project &project, const std::vector<RunTrace> &traces,
                      const RunReadOptions &options) {
    std::vector<const RunTrace *> present;
    for (const RunTrace &trace : traces) {
        if (isFile(trace.path))
            present.push_back(&trace);
        else if (!options.partial)
            throw ReadError(trace.path, 0, 0, "trace named by the topology does not exist");
    }
    // The traces are read on every core at once.
    std::vector<ColumnsResult> read(present.size());
    forEachOnEveryCore(present.size(), [&](size_t index) {
        TraceOptions traceOptions;
        traceOptions.partial = options.partial;
        traceOptions.filter = options.filter;
        LocalToWorldTable localToWorld;
        if (options.localRanks) localToWorld = localToWorldOf(project, present[index]->rank);
        read[index] = readEventColumns(present[index]->path, traceOptions,
                                       options.localRanks ? &localToWorld : nullptr);
    });

    RunTable table;
    std::unordered_map<std::string, int32_t> codes;
    for (size_t index = 0; index < present.size(); ++index) {
        EventColumns &columns = read[index].columns;
        std::vector<int32_t> recode;
        for (const std::string &name : columns.names) {
            auto [entry, added] = codes.try_emplace(name, static_cast<int32_t>(table.names.size()));
            if (added) table.names.push_back(name);
            recode.push_back(entry->second);
        }
        const int64_t base = static_cast<int64_t>(table.rows());
        for (int32_t code : columns.nameCode)
            table.nameCode.push_back(recode[static_cast<size_t>(code)]);
        table.rank.insert(table.rank.end(), columns.rows(), present[index]->rank);
        table.thread.insert(table.thread.end(), columns.rows(), present[index]->thread);
        auto append = [](auto &to, const auto &from) {
            to.insert(to.end(), from.begin(), from.end());
        };
        append(table.peer, columns.peer);
        append(table.tag, columns.tag);
        append(table.cid, columns.cid);
        append(table.fid, columns.fid);
        append(table.recvPeer, columns.recvPeer);
        append(table.recvTag, columns.recvTag);
        append(table.startNs, columns.startNs);
        append(table.endNs, columns.endNs);
        append(table.size, columns.size);
        append(table.offset, columns.offset);
        append(table.rid, columns.rid);
        for (int64_t row : columns.completionRow)
            table.completionRow.push_back(row + base);
        append(table.completionRid, columns.completionRid);
        for (int64_t row : columns.openRow)
            table.openRow.push_back(row + base);
        append(table.openFid, columns.openFid);
        append(table.openName, columns.openName);
        table.untranslatedPeers += columns.untranslatedPeers;
        if (read[index].damage) table.damage.push_back(std::move(*read[index].damage));
        columns = EventColumns();  // frees the trace's columns as soon as copied
    }
    if (present.size() > 1) table.sortByStart();
    return table;
}

}  // namespace hdtrace::reader
