#include "TableAlignment.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <hdtrace/clocks/ClockCorrection.hpp>
#include <hdtrace/reader/ColumnMemory.hpp>
#include <hdtrace/reader/SortedRuns.hpp>

#include "TableFields.hpp"

namespace py = pybind11;

namespace hdtrace::python {
namespace {

using Rows = py::array_t<int64_t, py::array::c_style>;

// A row's place in the corrected order: its corrected start, then its start
// interpolated onto rank 0's clock (which the order repair leaves as it
// was), then the row as read (the order numpy's stable lexsort gives).
struct OrderKey {
    int64_t start;
    int64_t interpolated;
};

bool before(const OrderKey *keys, int64_t left, int64_t right) {
    const OrderKey &a = keys[left], &b = keys[right];
    return std::tie(a.start, a.interpolated, left) < std::tie(b.start, b.interpolated, right);
}

char *rowsOf(py::array &table) {
    if (table.ndim() != 1 || !(table.flags() & py::array::c_style) || !table.writeable())
        throw std::invalid_argument("the table must be a writable one-dimensional array");
    return static_cast<char *>(table.mutable_data());
}

// The traces of a table as its rows are met: each row's trace chained to
// the trace's next row, whether each trace's rows are in corrected order,
// and each trace's correction.
class Lanes {
  public:
    explicit Lanes(const clocks::ClockCorrection &correction, size_t rows)
        : correction_(correction), nextRow_(rows, -1) {}

    // The correction of the row's trace (rows given in order, each once).
    const clocks::LaneCorrection &correctionOf(int64_t row, int32_t rank, int32_t thread) {
        const std::pair<int32_t, int32_t> lane{rank, thread};
        // The rows of a trace come in runs.
        if (lanes_.empty() || lane != lastLane_) {
            const auto [found, added] = index_.emplace(lane, lanes_.size());
            if (added) lanes_.push_back({correction_.lane(rank, thread), row, -1, true});
            lastLane_ = lane;
            lastIndex_ = found->second;
        }
        current_ = row;
        return lanes_[lastIndex_].correction;
    }
    // The row correctionOf was last given has these keys: chained.
    void keep(const OrderKey *keys) {
        Lane &lane = lanes_[lastIndex_];
        if (lane.last >= 0) {
            nextRow_[static_cast<size_t>(lane.last)] = current_;
            lane.inOrder = lane.inOrder && before(keys, lane.last, current_);
        }
        lane.last = current_;
    }
    bool eachInOrder() const {
        return std::all_of(lanes_.begin(), lanes_.end(),
                           [](const Lane &lane) { return lane.inOrder; });
    }

    // Every row, the traces merged in corrected order.
    template <typename Emit>
    void merge(const OrderKey *keys, Emit emit) const {
        std::vector<int64_t> firsts;
        for (const Lane &lane : lanes_)
            firsts.push_back(lane.first);
        reader::mergeSortedRuns(
            firsts, [this](size_t, int64_t row) { return nextRow_[static_cast<size_t>(row)]; },
            [keys](size_t, int64_t row, size_t, int64_t otherRow) {
                return before(keys, row, otherRow);
            },
            [&emit](size_t, int64_t row) { emit(row); });
    }

  private:
    struct Lane {
        clocks::LaneCorrection correction;
        int64_t first;
        int64_t last;
        bool inOrder;
    };
    const clocks::ClockCorrection &correction_;
    std::map<std::pair<int32_t, int32_t>, size_t> index_;
    std::vector<Lane> lanes_;
    reader::Column<int64_t> nextRow_;  // in the same trace; -1: its last row (see keys)
    std::pair<int32_t, int32_t> lastLane_;
    size_t lastIndex_ = 0;
    int64_t current_ = 0;
};

// Corrects the table's times in place; (order, new_row) where the rows
// change places (the row of the table as read at each place, and each
// row's place), else None.
py::object alignTableTimes(const clocks::ClockCorrection &correction, py::array table) {
    const py::dtype dtype = table.dtype();
    const TableField rank = tableField(dtype, "rank", "i", 4),
                     thread = tableField(dtype, "thread", "i", 4);
    const TableField start = tableField(dtype, "start", "f", 8),
                     end = tableField(dtype, "end", "f", 8),
                     duration = tableField(dtype, "duration", "f", 8);
    const TableField startNs = tableField(dtype, "start_ns", "i", 8),
                     endNs = tableField(dtype, "end_ns", "i", 8);
    char *const data = rowsOf(table);
    const auto itemSize = static_cast<size_t>(table.itemsize());
    const auto rows = static_cast<size_t>(table.shape(0));
    // The keys and the chain in column memory: pages that the clock
    // correction's table freed, not fresh ones; the keys left unset here
    // (every row's are written below).
    reader::Column<OrderKey> keys;
    keys.resize(rows);
    Lanes lanes(correction, rows);
    bool inOrder = true;
    {
        py::gil_scoped_release release;
        for (size_t row = 0; row < rows; ++row) {
            char *const at = data + row * itemSize;
            const clocks::LaneCorrection &corrected =
                lanes.correctionOf(static_cast<int64_t>(row), getField<int32_t>(at, rank),
                                   getField<int32_t>(at, thread));
            // LaneCorrection::apply, with the interpolated start kept.
            const int64_t interpolated = corrected.interpolate(getField<int64_t>(at, startNs));
            const int64_t correctedStart = interpolated + corrected.step(interpolated);
            const int64_t correctedEnd = corrected.apply(getField<int64_t>(at, endNs));
            putField(at, startNs, correctedStart);
            putField(at, endNs, correctedEnd);
            putField(at, start, static_cast<double>(correctedStart) / 1e9);
            putField(at, end, static_cast<double>(correctedEnd) / 1e9);
            putField(at, duration, static_cast<double>(correctedEnd - correctedStart) / 1e9);
            keys[row] = {correctedStart, interpolated};
            lanes.keep(keys.data());
            inOrder = inOrder && (row == 0 || before(keys.data(), static_cast<int64_t>(row) - 1,
                                                     static_cast<int64_t>(row)));
        }
    }
    if (inOrder) return py::none();
    Rows order(static_cast<py::ssize_t>(rows)), place(static_cast<py::ssize_t>(rows));
    int64_t *const orderAt = order.mutable_data();
    int64_t *const placeAt = place.mutable_data();
    {
        py::gil_scoped_release release;
        if (lanes.eachInOrder()) {
            int64_t next = 0;
            lanes.merge(keys.data(), [&](int64_t row) { orderAt[next++] = row; });
        } else {
            // A correction that changed the order of one thread's calls.
            std::iota(orderAt, orderAt + rows, int64_t{0});
            std::sort(orderAt, orderAt + rows, [&](int64_t left, int64_t right) {
                return before(keys.data(), left, right);
            });
        }
        for (size_t at = 0; at < rows; ++at)
            placeAt[orderAt[at]] = static_cast<int64_t>(at);
    }
    return py::make_tuple(order, place);
}

// table[place] becomes table[order[place]] as it was, whole rows, in place:
// each cycle of the permutation is followed once, with one row held aside,
// so that the table needs no second copy (fresh pages, on a table of
// millions of rows as costly as the moves themselves). The order is checked
// to be a permutation before any row moves.
void reorderTableRows(py::array table, const Rows &order) {
    char *const data = rowsOf(table);
    const auto rows = static_cast<size_t>(table.shape(0));
    if (static_cast<size_t>(order.size()) != rows)
        throw std::invalid_argument("the table and the order must have the same length");
    const int64_t *const orderAt = order.data();
    const auto itemSize = static_cast<size_t>(table.itemsize());
    py::gil_scoped_release release;
    std::vector<uint64_t> met((rows + 63) / 64, 0);
    auto isMet = [&met](size_t row) { return (met[row / 64] >> (row % 64)) & 1; };
    auto meet = [&met](size_t row) { met[row / 64] |= uint64_t{1} << (row % 64); };
    for (size_t place = 0; place < rows; ++place) {
        const int64_t row = orderAt[place];
        if (row < 0 || static_cast<size_t>(row) >= rows)
            throw std::invalid_argument("the order names row " + std::to_string(row) +
                                        " beyond the table's " + std::to_string(rows));
        if (isMet(static_cast<size_t>(row)))
            throw std::invalid_argument("the order names row " + std::to_string(row) + " twice");
        meet(static_cast<size_t>(row));
    }
    std::fill(met.begin(), met.end(), 0);  // now: the places already filled
    std::vector<char> aside(itemSize);
    for (size_t first = 0; first < rows; ++first) {
        if (isMet(first) || static_cast<size_t>(orderAt[first]) == first) continue;
        std::memcpy(aside.data(), data + first * itemSize, itemSize);
        size_t place = first;
        for (;;) {
            meet(place);
            const auto from = static_cast<size_t>(orderAt[place]);
            if (from == first) {
                std::memcpy(data + place * itemSize, aside.data(), itemSize);
                break;
            }
            std::memcpy(data + place * itemSize, data + from * itemSize, itemSize);
            place = from;
        }
    }
}

}  // namespace

void bindTableAlignment(py::module_ &module) {
    module.def("align_table_times", &alignTableTimes, py::arg("correction"), py::arg("table"),
               "Puts every row of to_numpy()'s table (rank, thread, start_ns, end_ns) on rank 0's "
               "clock in place, start, end and duration with them; returns (order, new_row) "
               "where the rows must change places to be in corrected start order (ties by the "
               "start interpolated onto rank 0's clock, then as read), else None.");
    module.def("reorder_table_rows", &reorderTableRows, py::arg("table"), py::arg("order"),
               "table[i] = table[order[i]] as it was, for every row, whole rows, in place "
               "(order: a permutation of the rows).");
}

}  // namespace hdtrace::python
