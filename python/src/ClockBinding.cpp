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
#include <hdtrace/reader/Project.hpp>

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

template <typename T>
std::vector<T> columnOf(const py::dict &columns, const char *name, size_t rows) {
    auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(columns[name]);
    if (!array || array.ndim() != 1 ||
        (rows != SIZE_MAX && static_cast<size_t>(array.size()) != rows))
        throw py::value_error(std::string("column ") + name +
                              " is missing or has the wrong length");
    return std::vector<T>(array.data(), array.data() + array.size());
}

// clocks::correctRun on the table the Python package read (hdtrace.table.read_table).
py::dict correctTable(const std::string &projectPath, std::vector<std::string> names,
                      const py::dict &columns, bool partial, bool localRanks) {
    clocks::RunTable table;
    table.names = std::move(names);
    table.nameCode = columnOf<int32_t>(columns, "name_code", SIZE_MAX);
    const size_t rows = table.nameCode.size();
    for (int32_t code : table.nameCode)
        if (code < 0 || static_cast<size_t>(code) >= table.names.size())
            throw py::value_error("name code out of range");
    table.rank = columnOf<int32_t>(columns, "rank", rows);
    table.thread = columnOf<int32_t>(columns, "thread", rows);
    table.peer = columnOf<int32_t>(columns, "peer", rows);
    table.tag = columnOf<int32_t>(columns, "tag", rows);
    table.cid = columnOf<int32_t>(columns, "cid", rows);
    table.recvPeer = columnOf<int32_t>(columns, "recv_peer", rows);
    table.recvTag = columnOf<int32_t>(columns, "recv_tag", rows);
    table.startNs = columnOf<int64_t>(columns, "start_ns", rows);
    table.endNs = columnOf<int64_t>(columns, "end_ns", rows);
    table.rid = columnOf<int64_t>(columns, "rid", rows);
    table.completionRow = columnOf<int64_t>(columns, "completion_row", SIZE_MAX);
    table.completionRid = columnOf<int64_t>(columns, "completion_rid", table.completionRow.size());
    for (int64_t row : table.completionRow)
        if (row < 0 || static_cast<size_t>(row) >= rows)
            throw py::value_error("completion row out of range");
    clocks::RunCorrection run;
    {
        py::gil_scoped_release release;
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
                return mapTimes(ns, [&](int64_t t) { return self.interpolate(rank, t); });
            },
            py::arg("rank"), py::arg("ns"))
        .def(
            "step",
            [](const ClockCorrection &self, int32_t rank, int32_t thread, const Int64Array &ns) {
                return mapTimes(ns, [&](int64_t t) { return self.step(rank, thread, t); });
            },
            py::arg("rank"), py::arg("thread"), py::arg("ns"))
        .def(
            "apply",
            [](const ClockCorrection &self, int32_t rank, int32_t thread, const Int64Array &ns) {
                return mapTimes(ns, [&](int64_t t) { return self.apply(rank, thread, t); });
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
               py::arg("columns"), py::arg("partial") = false, py::arg("local_ranks") = false,
               "The ClockCorrection of a run from its table as read: names, and the columns "
               "name_code, rank, thread, peer, tag, cid, recv_peer, recv_tag, start_ns, end_ns, "
               "rid, completion_row, completion_rid (rows sorted by start_ns, stably).");
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
