#include "ClockBinding.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <hdtrace/clocks/ClockCorrection.hpp>
#include <hdtrace/clocks/RunAlignment.hpp>
#include <hdtrace/clocks/TraceTimes.hpp>
#include <hdtrace/reader/ColumnMemory.hpp>
#include <hdtrace/reader/Project.hpp>

#include "TableFields.hpp"

namespace py = pybind11;

namespace hdtrace::python {
namespace {

using clocks::ClockCorrection;
using clocks::ClockMeasurement;
// (occasion, time, offset, rtt, leader, exchanges): hdtrace.clocks.ClockMeasurement's fields.
using MeasurementTuple = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t>;
using Int64Array = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

std::map<int32_t, std::vector<ClockMeasurement>> measurementsFrom(
    const std::map<int32_t, std::vector<MeasurementTuple>> &byRank) {
    std::map<int32_t, std::vector<ClockMeasurement>> out;
    for (const auto &[rank, tuples] : byRank)
        for (const auto &[occasion, time, offset, rtt, leader, exchanges] : tuples)
            out[rank].push_back({occasion, time, offset, rtt, leader, exchanges});
    return out;
}

py::dict measurementsTo(const std::map<int32_t, std::vector<ClockMeasurement>> &byRank) {
    py::dict out;
    for (const auto &[rank, measurements] : byRank) {
        py::list list;
        for (const ClockMeasurement &m : measurements)
            list.append(
                py::make_tuple(m.occasion, m.timeNs, m.offsetNs, m.rttNs, m.leader, m.exchanges));
        out[py::int_(rank)] = list;
    }
    return out;
}

// ns (any shape) through one function of a time, as int64.
template <typename Function>
Int64Array mapTimes(const Int64Array &ns, Function function) {
    Int64Array out(std::vector<py::ssize_t>(ns.shape(), ns.shape() + ns.ndim()));
    const int64_t *in = ns.data();
    int64_t *to = out.mutable_data();
    const py::ssize_t count = ns.size();
    {
        py::gil_scoped_release release;
        for (py::ssize_t k = 0; k < count; ++k)
            to[k] = function(in[k]);
    }
    return out;
}

const char *stateName(clocks::RunClockState state) {
    switch (state) {
        case clocks::RunClockState::Measured:
            return "measured";
        case clocks::RunClockState::NoMeasurements:
            return "no_measurements";
        case clocks::RunClockState::OneClock:
            return "one_clock";
        case clocks::RunClockState::AlreadyAligned:
            return "already_aligned";
    }
    return "unknown";
}

const char *outcomeName(clocks::AlignOutcome outcome) {
    switch (outcome) {
        case clocks::AlignOutcome::Rewritten:
            return "rewritten";
        case clocks::AlignOutcome::AlreadyAligned:
            return "already_aligned";
        case clocks::AlignOutcome::OneClock:
            return "one_clock";
        case clocks::AlignOutcome::NoMeasurements:
            return "no_measurements";
        case clocks::AlignOutcome::NotAligned:
            return "not_aligned";
    }
    return "unknown";
}

py::dict reportTo(const std::string &projectPath, const clocks::AlignReport &report) {
    py::dict out;
    out["outcome"] = outcomeName(report.outcome);
    out["traces"] = report.traces;
    out["events"] = report.events;
    out["warnings"] = report.warnings;
    out["message"] = clocks::describeOutcome(projectPath, report);
    return out;
}

py::dict runCorrectionTo(const std::string &projectPath, clocks::RunCorrection &run) {
    py::dict out;
    out["state"] = stateName(run.clocks.state);
    out["measurements"] = measurementsTo(run.clocks.byRank);
    out["ranks_without"] = run.clocks.ranksWithout;
    out["warning"] = clocks::ranksWithoutWarning(projectPath, run.clocks);
    out["events"] = run.events;
    if (run.correction)
        out["correction"] = py::cast(std::move(*run.correction));
    else
        out["correction"] = py::none();
    return out;
}

// The clock lines of a run, without reading its traces.
py::dict runClocks(const std::string &projectPath) {
    clocks::RunCorrection run;
    {
        py::gil_scoped_release release;
        const reader::Project project = reader::readProject(projectPath);
        run.clocks = clocks::readRunClocks(clocks::traceList(project));
    }
    return runCorrectionTo(projectPath, run);
}

template <typename Values>
Values columnOf(const py::dict &columns, const char *name, size_t rows) {
    using T = typename Values::value_type;
    auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(columns[name]);
    if (!array || array.ndim() != 1 ||
        (rows != SIZE_MAX && static_cast<size_t>(array.size()) != rows))
        throw py::value_error(std::string("column ") + name +
                              " is missing or has the wrong length");
    return Values(array.data(), array.data() + array.size());
}

// clocks::correctRun on the table the Python package read
// (hdtrace.table.read_table): its structured rows, read in one pass, and
// the side columns beside them.
py::dict correctTable(const std::string &projectPath, std::vector<std::string> names,
                      py::array rows, const py::dict &side, bool partial, bool localRanks) {
    const py::dtype dtype = rows.dtype();
    const TableField rank = tableField(dtype, "rank", "i", 4),
                     thread = tableField(dtype, "thread", "i", 4),
                     peer = tableField(dtype, "peer", "i", 4),
                     tag = tableField(dtype, "tag", "i", 4), cid = tableField(dtype, "cid", "i", 4);
    const TableField startNs = tableField(dtype, "start_ns", "i", 8),
                     endNs = tableField(dtype, "end_ns", "i", 8),
                     rid = tableField(dtype, "rid", "i", 8);
    if (rows.ndim() != 1) throw py::value_error("the table must be one-dimensional");
    const auto count = static_cast<size_t>(rows.shape(0));
    clocks::RunTable table;
    table.names = std::move(names);
    table.nameCode = columnOf<reader::Column<int32_t>>(side, "name_code", count);
    for (int32_t code : table.nameCode)
        if (code < 0 || static_cast<size_t>(code) >= table.names.size())
            throw py::value_error("name code out of range");
    table.recvPeer = columnOf<reader::Column<int32_t>>(side, "recv_peer", count);
    table.recvTag = columnOf<reader::Column<int32_t>>(side, "recv_tag", count);
    table.completionRow = columnOf<std::vector<int64_t>>(side, "completion_row", SIZE_MAX);
    table.completionRid =
        columnOf<std::vector<int64_t>>(side, "completion_rid", table.completionRow.size());
    for (int64_t row : table.completionRow)
        if (row < 0 || static_cast<size_t>(row) >= count)
            throw py::value_error("completion row out of range");
    clocks::RunCorrection run;
    {
        py::gil_scoped_release release;
        // In column memory, the pages of the columns the read freed; its
        // resize leaves the rows unset, so each column is written once, here.
        // Row by row: the table is read once, not once per column.
        for (auto *column : {&table.rank, &table.thread, &table.peer, &table.tag, &table.cid})
            column->resize(count);
        for (auto *column : {&table.startNs, &table.endNs, &table.rid})
            column->resize(count);
        int32_t *const rankOut = table.rank.data();
        int32_t *const threadOut = table.thread.data();
        int32_t *const peerOut = table.peer.data();
        int32_t *const tagOut = table.tag.data();
        int32_t *const cidOut = table.cid.data();
        int64_t *const startOut = table.startNs.data();
        int64_t *const endOut = table.endNs.data();
        int64_t *const ridOut = table.rid.data();
        const char *at = static_cast<const char *>(rows.data());
        const auto stride = static_cast<size_t>(rows.strides(0));
        for (size_t row = 0; row < count; ++row, at += stride) {
            rankOut[row] = getField<int32_t>(at, rank);
            threadOut[row] = getField<int32_t>(at, thread);
            peerOut[row] = getField<int32_t>(at, peer);
            tagOut[row] = getField<int32_t>(at, tag);
            cidOut[row] = getField<int32_t>(at, cid);
            startOut[row] = getField<int64_t>(at, startNs);
            endOut[row] = getField<int64_t>(at, endNs);
            ridOut[row] = getField<int64_t>(at, rid);
        }
        const reader::Project project = reader::readProject(projectPath);
        clocks::RunReadOptions options;
        options.partial = partial;
        options.localRanks = localRanks;
        run = clocks::correctRun(project, clocks::traceList(project), options, std::move(table));
    }
    return runCorrectionTo(projectPath, run);
}

}  // namespace

void bindClocks(py::module_ &module) {
    static py::exception<clocks::AlignError> alignError(module, "AlignError", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr pointer) {
        try {
            if (pointer) std::rethrow_exception(pointer);
        } catch (const clocks::AlignError &error) {
            PyErr_SetString(alignError.ptr(), error.what());
        }
    });

    py::class_<ClockCorrection>(module, "ClockCorrection",
                                "The correction of a run's times onto rank 0's clock.")
        .def(py::init([](const std::map<int32_t, std::vector<MeasurementTuple>> &byRank) {
                 return ClockCorrection(measurementsFrom(byRank));
             }),
             py::arg("measurements_by_rank"))
        .def(
            "interpolate",
            [](const ClockCorrection &self, int32_t rank, const Int64Array &ns) {
                const clocks::LaneCorrection lane = self.lane(rank, 0);
                return mapTimes(ns, [&](int64_t t) { return lane.interpolate(t); });
            },
            py::arg("rank"), py::arg("ns"))
        .def(
            "step",
            [](const ClockCorrection &self, int32_t rank, int32_t thread, const Int64Array &ns) {
                const clocks::LaneCorrection lane = self.lane(rank, thread);
                return mapTimes(ns, [&](int64_t t) { return lane.step(t); });
            },
            py::arg("rank"), py::arg("thread"), py::arg("ns"))
        .def(
            "apply",
            [](const ClockCorrection &self, int32_t rank, int32_t thread, const Int64Array &ns) {
                const clocks::LaneCorrection lane = self.lane(rank, thread);
                return mapTimes(ns, [&](int64_t t) { return lane.apply(t); });
            },
            py::arg("rank"), py::arg("thread"), py::arg("ns"))
        .def_property_readonly("largest_change_ns", &ClockCorrection::largestChangeNs)
        .def_property_readonly("repaired",
                               [](const ClockCorrection &self) { return self.repair().repaired; })
        .def(
            "steps",
            [](const ClockCorrection &self) {
                py::dict out;
                for (const auto &[lane, steps] : self.repair().steps)
                    out[py::make_tuple(lane.first, lane.second)] =
                        py::make_tuple(Int64Array(static_cast<py::ssize_t>(steps.breaks.size()),
                                                  steps.breaks.data()),
                                       Int64Array(static_cast<py::ssize_t>(steps.shifts.size()),
                                                  steps.shifts.data()));
                return out;
            },
            "{(rank, thread): (break times, shifts)} of the order repair.");

    module.def("run_clocks", &runClocks, py::arg("project_path"),
               "Reads the clock lines of a run's .info files (state, measurements, warning).");
    module.def("correct_table", &correctTable, py::arg("project_path"), py::arg("names"),
               py::arg("rows"), py::arg("side"), py::arg("partial") = false,
               py::arg("local_ranks") = false,
               "The ClockCorrection of a run from its table as read: names, to_numpy()'s rows "
               "(rank, thread, peer, tag, cid, start_ns, end_ns and rid are read; sorted by "
               "start_ns, stably), and the side columns name_code, recv_peer, recv_tag, "
               "completion_row and completion_rid.");
    module.def(
        "align_run",
        [](const std::string &path) {
            clocks::AlignReport report;
            {
                py::gil_scoped_release release;
                report = clocks::alignRun(path);
            }
            return reportTo(path, report);
        },
        py::arg("project_path"), "Rewrites a run's traces on rank 0's clock (hdtrace align).");
    module.def(
        "undo_alignment",
        [](const std::string &path) {
            clocks::AlignReport report;
            {
                py::gil_scoped_release release;
                report = clocks::undoAlignment(path);
            }
            return reportTo(path, report);
        },
        py::arg("project_path"), "Restores the traces align_run rewrote.");
    module.def(
        "rewrite_trace_times",
        [](const py::bytes &text, const std::string &path,
           const std::function<int64_t(int64_t)> &correct) {
            return py::bytes(clocks::rewriteTraceTimes(std::string(text), path, correct));
        },
        py::arg("text"), py::arg("path"), py::arg("correct"),
        "The trace text with every time put through correct(ns) -> ns.");
}

}  // namespace hdtrace::python
