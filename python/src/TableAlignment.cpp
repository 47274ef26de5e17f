#include "TableAlignment.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
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
    // The keys in column memory: pages that the clock correction's table
    // freed, not fresh ones; left unset here (every row's are written below).
    reader::Column<OrderKey> keys;
    keys.resize(rows);
    // Each trace's rows chained, and its correction, looked up once.
    reader::TraceChains chains(rows);
    std::vector<clocks::LaneCorrection> corrections;
    bool inOrder = true;        // the whole table, as it stands
    bool tracesInOrder = true;  // each trace's rows
    {
        py::gil_scoped_release release;
        for (size_t row = 0; row < rows; ++row) {
            char *const at = data + row * itemSize;
            const int32_t rowRank = getField<int32_t>(at, rank);
            const int32_t rowThread = getField<int32_t>(at, thread);
            const reader::TraceChains::Added added =
                chains.add(static_cast<int64_t>(row), rowRank, rowThread);
            const size_t trace = added.trace;
            if (trace == corrections.size())
                corrections.push_back(correction.lane(rowRank, rowThread));
            const clocks::LaneCorrection &corrected = corrections[trace];
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
            tracesInOrder =
                tracesInOrder && (added.previous < 0 ||
                                  before(keys.data(), added.previous, static_cast<int64_t>(row)));
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
        const auto earlier = [&keys](int64_t left, int64_t right) {
            return before(keys.data(), left, right);
        };
        if (tracesInOrder) {
            int64_t next = 0;
            chains.merge(earlier, [&](int64_t row) { orderAt[next++] = row; });
        } else {
            // A correction that changed the order of one thread's calls.
            std::iota(orderAt, orderAt + rows, int64_t{0});
            std::sort(orderAt, orderAt + rows, earlier);
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
