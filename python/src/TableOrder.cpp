#include "TableOrder.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <hdtrace/reader/SortedRuns.hpp>

namespace py = pybind11;

namespace hdtrace::python {
namespace {

using Starts = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

struct Trace {
    const int64_t *starts;
    size_t count;
    size_t first;  // its first call's place among every trace's calls
};

// Every trace in order: the traces merged, the earlier trace first on a tie.
void merge(const std::vector<Trace> &traces, int64_t *rowOf) {
    std::vector<int64_t> firsts;
    for (const Trace &trace : traces)
        firsts.push_back(trace.count > 0 ? 0 : -1);
    int64_t row = 0;
    reader::mergeSortedRuns(
        firsts,
        [&](size_t trace, int64_t call) {
            return static_cast<size_t>(call) + 1 < traces[trace].count ? call + 1 : -1;
        },
        [&](size_t trace, int64_t call, size_t other, int64_t otherCall) {
            const int64_t start = traces[trace].starts[call];
            const int64_t otherStart = traces[other].starts[otherCall];
            return start != otherStart ? start < otherStart : trace < other;
        },
        [&](size_t trace, int64_t call) {
            rowOf[traces[trace].first + static_cast<size_t>(call)] = row++;
        });
}

// Some trace out of order: a stable sort of every call by its start.
void sortAll(const std::vector<Trace> &traces, size_t total, int64_t *rowOf) {
    std::vector<int64_t> starts(total);
    for (const Trace &trace : traces)
        std::copy(trace.starts, trace.starts + trace.count, starts.begin() + trace.first);
    std::vector<size_t> order(total);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t left, size_t right) { return starts[left] < starts[right]; });
    for (size_t row = 0; row < total; ++row)
        rowOf[order[row]] = static_cast<int64_t>(row);
}

py::array_t<int64_t> startOrderRows(const std::vector<Starts> &startsByTrace) {
    std::vector<Trace> traces;
    size_t total = 0;
    for (const Starts &starts : startsByTrace) {
        if (starts.ndim() != 1)
            throw py::value_error("each trace's starts must be one-dimensional");
        traces.push_back({starts.data(), static_cast<size_t>(starts.size()), total});
        total += static_cast<size_t>(starts.size());
    }
    py::array_t<int64_t> rows(static_cast<py::ssize_t>(total));
    int64_t *rowOf = rows.mutable_data();
    py::gil_scoped_release release;
    if (std::all_of(traces.begin(), traces.end(), [](const Trace &trace) {
            return std::is_sorted(trace.starts, trace.starts + trace.count);
        }))
        merge(traces, rowOf);
    else
        sortAll(traces, total, rowOf);
    return rows;
}

}  // namespace

void bindTableOrder(py::module_ &module) {
    module.def("start_order_rows", &startOrderRows, py::arg("starts_by_trace"),
               "The table row of each call of the traces taken one after another, given each "
               "trace's start times: rows in start order, ties in the traces' order (as a stable "
               "argsort of the starts one after another, and its inverse). Traces whose starts "
               "are in order are merged; otherwise every call is sorted.");
}

}  // namespace hdtrace::python
