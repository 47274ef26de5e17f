#include <algorithm>
#include <climits>
#include <numeric>
#include <stdexcept>

#include <hdtrace/clocks/OrderRepair.hpp>

namespace hdtrace::clocks {

int64_t RepairSteps::at(int64_t ns) const {
    // The last break at or before ns.
    auto after = std::upper_bound(breaks.begin(), breaks.end(), ns);
    return after == breaks.begin() ? 0 : shifts[static_cast<size_t>(after - breaks.begin()) - 1];
}

RepairResult repairOrder(const RunTable &table, const OrderConstraints &constraints) {
    RepairResult result;
    const size_t rows = table.rows();
    if (constraints.sendRows.empty() && constraints.sinks.empty()) return result;
    const auto &start = table.startNs, &end = table.endNs;

    // Every row by (start, end, row): respects each trace's order. The table
    // comes sorted by start, so this is mostly a check.
    std::vector<size_t> visit(rows);
    std::iota(visit.begin(), visit.end(), 0);
    auto byTime = [&](size_t a, size_t b) {
        return start[a] != start[b] ? start[a] < start[b] : end[a] < end[b];
    };
    if (!std::is_sorted(visit.begin(), visit.end(), byTime))
        std::stable_sort(visit.begin(), visit.end(), byTime);
    // Each trace's rows in that order: the order in which the shifts add up.
    std::vector<size_t> laneOrder = visit;
    std::stable_sort(laneOrder.begin(), laneOrder.end(), [&](size_t a, size_t b) {
        return table.rank[a] != table.rank[b] ? table.rank[a] < table.rank[b]
                                              : table.thread[a] < table.thread[b];
    });
    std::vector<int64_t> previous(rows, -1);  // the row before in its trace
    for (size_t k = 1; k < rows; ++k)
        if (table.rank[laneOrder[k]] == table.rank[laneOrder[k - 1]] &&
            table.thread[laneOrder[k]] == table.thread[laneOrder[k - 1]])
            previous[laneOrder[k]] = static_cast<int64_t>(laneOrder[k - 1]);

    // The sends each row waits for (as a receive's completion), in CSR form.
    std::vector<size_t> firstSend(rows + 1, 0);
    for (int64_t done : constraints.doneRows)
        ++firstSend[static_cast<size_t>(done) + 1];
    std::partial_sum(firstSend.begin(), firstSend.end(), firstSend.begin());
    std::vector<int64_t> sendsOf(constraints.sendRows.size());
    {
        std::vector<size_t> fill(firstSend.begin(), firstSend.end() - 1);
        for (size_t k = 0; k < constraints.doneRows.size(); ++k)
            sendsOf[fill[static_cast<size_t>(constraints.doneRows[k])]++] = constraints.sendRows[k];
    }
    std::vector<int64_t> sourceOf(rows, -1), sinkOf(rows, -1);
    for (size_t k = 0; k < constraints.sources.size(); ++k)
        sourceOf[static_cast<size_t>(constraints.sources[k])] = constraints.sourceInstance[k];
    for (size_t k = 0; k < constraints.sinks.size(); ++k)
        sinkOf[static_cast<size_t>(constraints.sinks[k])] = constraints.sinkInstance[k];

    // raised: how far a row's end must move; shifted: the largest raise up to
    // and including the row in its trace, so what its end moves by. Both only
    // grow, from below the least solution, so sweeping until nothing changes
    // reaches it whatever the order; sweeping in time order takes few sweeps.
    std::vector<int64_t> raised(rows, 0), shifted(rows, 0);
    std::vector<int64_t> latest(static_cast<size_t>(constraints.instances), INT64_MIN);
    auto shiftBefore = [&](size_t row) {
        return previous[row] < 0 ? 0 : shifted[static_cast<size_t>(previous[row])];
    };
    const int kMaxSweeps = 10000;
    for (int sweep = 0;; ++sweep) {
        if (sweep == kMaxSweeps)
            throw std::runtime_error(
                "the order repair did not settle (a cycle of messages in time?)");
        bool changed = false;
        for (size_t row : visit) {
            const int64_t before = shiftBefore(row);
            if (sourceOf[row] >= 0) {
                int64_t &latestStart = latest[static_cast<size_t>(sourceOf[row])];
                // A later start seen only now: the members visited before
                // must be checked again in the next sweep.
                if (start[row] + before > latestStart) {
                    latestStart = start[row] + before;
                    changed = true;
                }
            }
            int64_t current = std::max(before, raised[row]);
            auto wait = [&](int64_t need) {
                if (need <= current) return;
                raised[row] = current = need;
                changed = true;
                ++result.repaired;
            };
            for (size_t k = firstSend[row]; k < firstSend[row + 1]; ++k) {
                const size_t send = static_cast<size_t>(sendsOf[k]);
                wait(start[send] + shiftBefore(send) - end[row]);
            }
            if (sinkOf[row] >= 0) {
                const int64_t latestStart = latest[static_cast<size_t>(sinkOf[row])];
                if (latestStart != INT64_MIN) wait(latestStart - end[row]);
            }
            shifted[row] = current;
        }
        if (!changed) break;
    }

    for (size_t k = 0; k < rows;) {
        const int32_t rank = table.rank[laneOrder[k]], thread = table.thread[laneOrder[k]];
        RepairSteps steps;
        int64_t shift = 0, breakAt = INT64_MIN;
        for (; k < rows && table.rank[laneOrder[k]] == rank && table.thread[laneOrder[k]] == thread;
             ++k) {
            const size_t row = laneOrder[k];
            if (raised[row] <= 0) continue;
            shift = std::max(shift, raised[row]);
            breakAt = std::max(breakAt, end[row]);
            steps.breaks.push_back(breakAt);
            steps.shifts.push_back(shift);
        }
        if (!steps.breaks.empty())
            result.steps.emplace(std::make_pair(rank, thread), std::move(steps));
    }
    return result;
}

}  // namespace hdtrace::clocks
