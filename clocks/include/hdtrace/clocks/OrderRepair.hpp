// The order repair: the least shifts that satisfy every order constraint.
// Where a call would end before a call it waits for starts, its end moves to
// that start, and every later time of its trace moves by as much, so that the
// time distances within a trace stay as measured except for that wait.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <hdtrace/clocks/OrderConstraints.hpp>
#include <hdtrace/clocks/RunTable.hpp>

namespace hdtrace::clocks {

// The repair of one trace: times at or after breaks[k] (and before
// breaks[k+1]) move by shifts[k]; times before breaks[0] stay.
struct RepairSteps {
    std::vector<int64_t> breaks;
    std::vector<int64_t> shifts;

    int64_t at(int64_t ns) const;
};

struct RepairResult {
    std::map<std::pair<int32_t, int32_t>, RepairSteps> steps;  // (rank, thread) -> steps
    int64_t repaired = 0;                                      // constraints that moved a call
};

// table holds the times on rank 0's clock before the repair. Throws
// std::runtime_error when the shifts do not settle (a cycle of messages in time).
RepairResult repairOrder(const RunTable &table, const OrderConstraints &constraints);

}  // namespace hdtrace::clocks
