// hdtrace._core: the C++ reader for the Python package.
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <hdtrace/PiosimTypes.hpp>
#include <hdtrace/TraceNames.hpp>
#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/UsableCores.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/RunTable.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceReader.hpp>
#include <hdtrace/reader/TraceSlices.hpp>

#include "AttributeCodesBinding.hpp"
#include "CallBytesBinding.hpp"
#include "CallCostsBinding.hpp"
#include "CallTreeBinding.hpp"
#include "ClockBinding.hpp"
#include "EventConversion.hpp"
#include "FilterBinding.hpp"
#include "MergerBinding.hpp"
#include "MessageBinding.hpp"
#include "NumpyVectors.hpp"
#include "TableAlignment.hpp"
#include "TableFill.hpp"
#include "TableMemory.hpp"
#include "TableOrder.hpp"

namespace py = pybind11;
using namespace hdtrace::reader;

namespace {

using hdtrace::python::toArray;  // a std::vector (or a Column) to numpy, without a copy

// The columns that a trace's EventColumns and a run's RunTable have in
// common, handed to numpy under the names the package uses.
template <typename Table>
void moveColumns(Table &table, py::dict &out) {
    out["name_code"] = toArray(std::move(table.nameCode));
    out["start_ns"] = toArray(std::move(table.startNs));
    out["end_ns"] = toArray(std::move(table.endNs));
    out["size"] = toArray(std::move(table.size));
    out["offset"] = toArray(std::move(table.offset));
    out["rid"] = toArray(std::move(table.rid));
    out["peer"] = toArray(std::move(table.peer));
    out["tag"] = toArray(std::move(table.tag));
    out["cid"] = toArray(std::move(table.cid));
    out["fid"] = toArray(std::move(table.fid));
    out["recv_peer"] = toArray(std::move(table.recvPeer));
    out["recv_tag"] = toArray(std::move(table.recvTag));
    out["completion_row"] = toArray(std::move(table.completionRow));
    out["completion_rid"] = toArray(std::move(table.completionRid));
    out["open_row"] = toArray(std::move(table.openRow));
    out["open_fid"] = toArray(std::move(table.openFid));
    out["open_name"] = table.openName;
    out["untranslated_peers"] = table.untranslatedPeers;
}

TraceOptions makeOptions(std::vector<std::string> names, std::optional<int64_t> fromNs,
                         std::optional<int64_t> toNs, bool partial) {
    TraceOptions options;
    options.filter.names = std::move(names);
    if (fromNs) options.filter.fromNs = *fromNs;
    if (toNs) options.filter.toNs = *toNs;
    options.partial = partial;
    return options;
}

// Iterates the top-level calls of one trace as tuples (see eventToTuple).
class PyTraceReader {
  public:
    // begin/end: one slice of the trace (TraceReader's slice constructor).
    PyTraceReader(const std::string &path, std::vector<std::string> names,
                  std::optional<int64_t> fromNs, std::optional<int64_t> toNs, bool partial,
                  std::optional<uint64_t> begin, std::optional<uint64_t> end)
        : reader_(begin || end
                      ? TraceReader(path, makeOptions(std::move(names), fromNs, toNs, partial),
                                    begin.value_or(0), end.value_or(UINT64_MAX))
                      : TraceReader(path, makeOptions(std::move(names), fromNs, toNs, partial))) {}

    py::tuple next() {
        if (!reader_.next(event_)) throw py::stop_iteration();
        return hdtrace::python::eventToTuple(event_);
    }
    std::optional<std::string> damage() const { return reader_.damage(); }
    int timeFractionDigits() const { return reader_.timeFractionDigits(); }

  private:
    TraceReader reader_;
    Event event_;
};

py::dict readColumns(const std::string &path, std::vector<std::string> names,
                     std::optional<int64_t> fromNs, std::optional<int64_t> toNs, bool partial,
                     std::optional<LocalToWorldTable> localToWorld, const std::string &reader,
                     std::optional<uint64_t> begin, std::optional<uint64_t> end) {
    // reader: "auto" (the dialect scanner, libxml2 where it does not
    // recognise the trace) or "libxml2" (for comparisons and benchmarks).
    if (reader != "auto" && reader != "libxml2")
        throw py::value_error("reader must be 'auto' or 'libxml2', not '" + reader + "'");
    // begin/end: one slice of the trace (TraceSlices.hpp), by the dialect
    // scanner with libxml2 as its fallback.
    if ((begin || end) && reader != "auto")
        throw py::value_error("a slice (begin, end) is read with reader='auto' only");
    ColumnsResult result;
    SliceRead slice;
    const bool sliced = begin || end;
    {
        py::gil_scoped_release release;
        TraceOptions options = makeOptions(std::move(names), fromNs, toNs, partial);
        const LocalToWorldTable *table = localToWorld ? &*localToWorld : nullptr;
        if (sliced) {
            slice = readEventColumnsSlice(path, options, table, begin.value_or(0),
                                          end.value_or(UINT64_MAX));
            result = std::move(slice.result);
        } else {
            result = reader == "libxml2" ? readEventColumnsWithLibxml2(path, options, table)
                                         : readEventColumns(path, options, table);
        }
    }
    EventColumns &columns = result.columns;
    py::dict out;
    out["names"] = columns.names;
    moveColumns(columns, out);
    out["damage"] = result.damage;
    out["time_fraction_digits"] = result.timeFractionDigits;
    out["fallback"] = result.fallback;  // why the dialect scanner left the trace to libxml2
    if (sliced) {
        // The bytes whose calls were read; whole: a trace outside the
        // writer's layout, read whole by the slice at 0.
        out["slice_from"] = slice.from;
        out["slice_to"] = slice.to;
        out["slice_whole"] = slice.whole;
    }
    return out;
}

// A run into one table (hdtrace/reader/RunTable.hpp): the traces of the
// project read on every core, the rows sorted by start. localRanks: whether
// the traces' ranks are local to their communicator; none: as the project
// and its traces tell (ranksAreLocal).
py::dict readRun(const std::string &projectPath, std::vector<std::string> names,
                 std::optional<int64_t> fromNs, std::optional<int64_t> toNs, bool partial,
                 std::optional<bool> localRanks) {
    RunTable table;
    {
        py::gil_scoped_release release;
        const Project project = readProject(projectPath);
        const std::vector<RunTrace> traces = traceList(project);
        RunReadOptions options;
        options.partial = partial;
        options.filter = makeOptions(std::move(names), fromNs, toNs, partial).filter;
        options.localRanks = localRanks ? *localRanks : ranksAreLocal(project, traces);
        table = readRunTable(project, traces, options);
    }
    py::dict out;
    out["names"] = table.names;
    out["rank"] = toArray(std::move(table.rank));
    out["thread"] = toArray(std::move(table.thread));
    moveColumns(table, out);
    out["damage"] = table.damage;
    return out;
}

}  // namespace

PYBIND11_MODULE(_core, module) {
    module.doc() = "C++ reader of HDTrace projects and traces (streaming, libxml2 SAX2)";

    static py::exception<ReadError> readError(module, "ReadError", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr pointer) {
        try {
            if (pointer) std::rethrow_exception(pointer);
        } catch (const ReadError &error) {
            py::object instance = py::handle(readError.ptr())(error.what());
            instance.attr("file") = error.file();
            instance.attr("line") = error.line();
            instance.attr("column") = error.column();
            instance.attr("problem") = error.problem();
            PyErr_SetObject(readError.ptr(), instance.ptr());
        }
    });

    module.attr("NO_VALUE_32") = kNoValue32;
    // One table for the wrapper, the merger and python/hdtrace/check.py.
    py::dict piosimNamedTypes;
    for (const hdtrace::PiosimNamedType &known : hdtrace::kPiosimNamedTypes)
        piosimNamedTypes[py::str(std::string(known.name))] = known.size;
    module.attr("PIOSIM_NAMED_TYPES") = piosimNamedTypes;
    py::list fullForms, placeholderForms;
    for (std::string_view form : hdtrace::kPiosimFullForms)
        fullForms.append(py::str(std::string(form)));
    for (std::string_view form : hdtrace::kPiosimPlaceholderForms)
        placeholderForms.append(py::str(std::string(form)));
    module.attr("PIOSIM_FULL_FORMS") = py::tuple(fullForms);
    module.attr("PIOSIM_PLACEHOLDER_FORMS") = py::tuple(placeholderForms);
    py::list intAttributes;
    for (std::string_view attribute : hdtrace::kPiosimIntAttributes)
        intAttributes.append(py::str(std::string(attribute)));
    module.attr("PIOSIM_INT_ATTRIBUTES") = py::tuple(intAttributes);
    module.attr("PIOSIM_LARGEST_NUMBER") = hdtrace::kPiosimLargestNumber;

    module.attr("XML_TRACE_SUFFIX") = std::string(hdtrace::kXmlTraceSuffix);
    module.attr("COMPACT_TRACE_SUFFIX") = std::string(hdtrace::kCompactTraceSuffix);
    module.def("usable_cores", &hdtrace::usableCores,
               "The cores this process may run on (its CPU affinity), which the reader's "
               "work on every core uses.");
    module.def(
        "trace_form",
        [](const std::string &path) { return std::string(traceFormName(traceFormOf(path))); },
        py::arg("path"),
        "'compact' when the file opens as a compact trace, else 'XML' (by its first bytes).");

    module.def(
        "convert_trace",
        [](const std::string &source, const std::string &target, const std::string &form,
           uint32_t frameBytes) {
            if (form != "xml" && form != "compact")
                throw py::value_error("form must be 'xml' or 'compact', not '" + form + "'");
            if (frameBytes != 0 && (frameBytes < hdtrace::frames::kMinFrameBytes ||
                                    frameBytes > hdtrace::frames::kMaxFrameBytesLimit))
                throw py::value_error("frame_bytes must be 0 (the default) or " +
                                      std::to_string(hdtrace::frames::kMinFrameBytes) + " to " +
                                      std::to_string(hdtrace::frames::kMaxFrameBytesLimit) +
                                      ", not " + std::to_string(frameBytes));
            py::gil_scoped_release release;
            convertTrace(source, target, form == "xml" ? TraceForm::Xml : TraceForm::Compact,
                         frameBytes);
        },
        py::arg("source"), py::arg("target"), py::arg("form"), py::arg("frame_bytes") = 0,
        "Writes the trace at source in form ('xml' or 'compact') at target (TraceConversion.hpp); "
        "frame_bytes: the compact output's frame size (0: the writer's default).");

    module.def(
        "compact_frames",
        [](const std::string &path) {
            std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> frames;
            {
                py::gil_scoped_release release;
                FrameFile file(path);
                frames.reserve(file.frames().size());
                for (const FrameInfo &frame : file.frames())
                    frames.emplace_back(frame.offset, frame.records, frame.rawBytes);
            }
            return frames;
        },
        py::arg("path"),
        "[(byte offset, records, decoded bytes)] of each frame of a compact trace, in file "
        "order, from its index (or its frame headers, for a trace whose writer was killed).");

    module.def(
        "read_project",
        [](const std::string &path) { return hdtrace::python::projectToDict(readProject(path)); },
        py::arg("path"), "Reads a .proj into plain dicts and lists.");

    py::class_<PyTraceReader>(module, "TraceReader")
        .def(py::init<const std::string &, std::vector<std::string>, std::optional<int64_t>,
                      std::optional<int64_t>, bool, std::optional<uint64_t>,
                      std::optional<uint64_t>>(),
             py::arg("path"), py::arg("names") = std::vector<std::string>(),
             py::arg("from_ns") = py::none(), py::arg("to_ns") = py::none(),
             py::arg("partial") = false, py::arg("begin") = py::none(), py::arg("end") = py::none(),
             "Iterates the top-level calls of a trace; with begin or end, those whose element "
             "starts in the byte range [begin, end), as read_columns' rows (line 0: not known).")
        .def("__iter__", [](PyTraceReader &self) -> PyTraceReader & { return self; })
        .def("__next__", &PyTraceReader::next)
        .def_property_readonly("damage", &PyTraceReader::damage)
        .def_property_readonly("time_fraction_digits", &PyTraceReader::timeFractionDigits);

    module.def("read_columns", &readColumns, py::arg("path"),
               py::arg("names") = std::vector<std::string>(), py::arg("from_ns") = py::none(),
               py::arg("to_ns") = py::none(), py::arg("partial") = false,
               py::arg("local_to_world") = py::none(), py::arg("reader") = "auto",
               py::arg("begin") = py::none(), py::arg("end") = py::none(),
               "Reads the top-level calls of a trace into numpy columns; with begin or "
               "end, those whose element starts in the byte range [begin, end).");

    module.def("read_run_table", &readRun, py::arg("project"),
               py::arg("names") = std::vector<std::string>(), py::arg("from_ns") = py::none(),
               py::arg("to_ns") = py::none(), py::arg("partial") = false,
               py::arg("local_ranks") = py::none(),
               "Reads every trace of a project into one table of numpy columns, the rows "
               "sorted by start (stably, traces in (rank, thread) order).");

    hdtrace::python::bindAttributeCodes(module);
    hdtrace::python::bindMerger(module);
    hdtrace::python::bindTableFill(module);
    hdtrace::python::bindTableOrder(module);
    hdtrace::python::bindTableAlignment(module);
    hdtrace::python::bindTableMemory(module);
    hdtrace::python::bindClocks(module);
    hdtrace::python::bindMessages(module);
    hdtrace::python::bindCallBytes(module);
    hdtrace::python::bindCallTree(module);
    hdtrace::python::bindFilter(module);
    hdtrace::python::bindCallCosts(module);
    module.def(
        "writer_memory_bytes",
        [](bool compact) {
            hdtrace::TraceOptions options;
            if (compact) options.format = hdtrace::TraceOptions::Format::Compact;
            return hdtrace::TraceWriter::memoryBytes(options);
        },
        py::arg("compact"),
        "The memory one open trace holds with the writer's defaults: its output buffer (XML) "
        "or frame writer (compact), and its .info buffer.");
}
