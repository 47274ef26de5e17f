#include "CallTreeBinding.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/EveryCore.hpp>
#include <hdtrace/reader/IoCalls.hpp>
#include <hdtrace/reader/LayerTraces.hpp>

#include "NumpyVectors.hpp"

namespace py = pybind11;

namespace hdtrace::python {
namespace {

reader::CallTreeResult readTree(const std::string &path, bool partial, bool layers,
                                bool sizesOnly = false) {
    reader::TraceOptions options;
    options.partial = partial;
    if (layers && sizesOnly)
        throw py::value_error("read_call_tree: sizes_only reads one trace, not its layers");
    return layers ? reader::readCallTreeWithLayers(path, options)
                  : reader::readCallTree(path, options,
                                         sizesOnly ? reader::TreeColumns::NamesDepthsSizes
                                                   : reader::TreeColumns::All);
}

template <typename T>
std::vector<T> perName(const py::handle &values, size_t names, const char *what) {
    const auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(values);
    if (!array || array.ndim() != 1 || static_cast<size_t>(array.size()) != names)
        throw py::value_error(std::string("describe must give ") + what +
                              " as one value per name (" + std::to_string(names) + ")");
    return std::vector<T>(array.data(), array.data() + array.size());
}

reader::IoCallKinds describeNames(const py::function &describe,
                                  const std::vector<std::string> &names) {
    const py::tuple described = describe(names);
    if (described.size() != 4)
        throw py::value_error("describe must give (layer, kind, counts_done, call_code) arrays");
    reader::IoCallKinds kinds;
    kinds.layer = perName<int8_t>(described[0], names.size(), "layer");
    const auto kind = perName<int8_t>(described[1], names.size(), "kind");
    for (const int8_t value : kind) {
        if (value < 0 || value > static_cast<int8_t>(reader::IoKind::Meta))
            throw py::value_error("describe gave an unknown I/O kind " + std::to_string(value));
        kinds.kind.push_back(static_cast<reader::IoKind>(value));
    }
    kinds.countsDone = perName<uint8_t>(described[2], names.size(), "counts_done");
    kinds.callCode = perName<int32_t>(described[3], names.size(), "call_code");
    return kinds;
}

// The rows of I/O calls the traces will give in all, foreseen from the
// first ones read: rows in proportion to a trace's bytes, and an eighth
// more, so that the columns rarely move while the rest are written.
size_t foreseenIoRows(size_t rowsSoFar, uint64_t bytesSoFar, uint64_t allBytes) {
    if (bytesSoFar == 0 || allBytes <= bytesSoFar) return rowsSoFar;
    const double perByte = static_cast<double>(rowsSoFar) / static_cast<double>(bytesSoFar);
    return rowsSoFar +
           static_cast<size_t>(perByte * static_cast<double>(allBytes - bytesSoFar) * 1.125);
}

uint64_t fileBytes(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 ? static_cast<uint64_t>(status.st_size) : 0;
}

// A trace's call tree on its way to the I/O call columns, with the kinds
// of its call names once it has its place.
struct TreeToPlace {
    reader::CallTreeResult result;
    std::shared_ptr<const reader::IoCallKinds> kinds;
};

// The I/O calls of several traces as one set of numpy columns. The traces'
// call trees never reach Python. They are read on every core; each is
// given its rows' place, right after those of the traces before it, as
// soon as those are placed, and its rows are written there (on every core
// again) and its memory freed for the next read: a process holds one tree
// per core, not one per trace, and the next tree's columns take the memory
// of the last instead of fresh pages, which the kernel zeroes. The columns
// are column memory (huge pages), so no numpy concatenation faults in
// fresh pages for them.
py::dict readIoCalls(const std::vector<std::tuple<std::string, int32_t, int32_t>> &traces,
                     bool partial, bool layers, const py::function &describe,
                     const py::function &nameFiles) {
    const size_t count = traces.size();
    std::vector<size_t> counts(count), firsts(count);
    std::vector<std::vector<int32_t>> unnamedFids(count);
    std::vector<std::vector<std::string>> openNames(count);
    std::vector<std::optional<std::string>> damage(count);
    reader::IoCallColumns io;
    {
        py::gil_scoped_release release;
        std::vector<uint64_t> bytes(count);
        uint64_t allBytes = 0, bytesSoFar = 0;
        for (size_t index = 0; index < count; ++index)
            allBytes += bytes[index] = fileBytes(std::get<0>(traces[index]));
        size_t total = 0;
        // The traces of a run mostly name the same calls in the same order:
        // their kinds are asked of describe once, not under the GIL per trace.
        std::vector<std::string> describedNames;
        std::shared_ptr<const reader::IoCallKinds> kinds;
        // Rows are written on every core at once; the columns grow (and
        // move) only while none is being written.
        std::shared_mutex columnsInUse;
        reader::forEachOnEveryCoreInOrder(
            count,
            [&](size_t index) {
                return TreeToPlace{readTree(std::get<0>(traces[index]), partial, layers), nullptr};
            },
            [&](size_t index, TreeToPlace &tree) {
                const std::vector<std::string> &names = tree.result.tree.names;
                if (!kinds || names != describedNames) {
                    py::gil_scoped_acquire acquire;
                    kinds =
                        std::make_shared<const reader::IoCallKinds>(describeNames(describe, names));
                    describedNames = names;
                }
                tree.kinds = kinds;
                counts[index] = reader::countIoCalls(tree.result.tree, *kinds);
                firsts[index] = total;
                total += counts[index];
                bytesSoFar += bytes[index];
                if (total > io.rows()) {
                    std::unique_lock<std::shared_mutex> growing(columnsInUse);
                    io.resize(std::max(total, foreseenIoRows(total, bytesSoFar, allBytes)));
                }
            },
            [&](size_t index, TreeToPlace tree) {
                {
                    std::shared_lock<std::shared_mutex> writing(columnsInUse);
                    unnamedFids[index] = reader::selectIoCalls(
                        tree.result.tree, *tree.kinds, std::get<1>(traces[index]),
                        std::get<2>(traces[index]), io, firsts[index]);
                }
                // Only its opens' names are needed from here on.
                openNames[index] = std::move(tree.result.tree.openName);
                damage[index] = std::move(tree.result.damage);
            });
        io.resize(total);  // the rows foreseen beyond them were never written
    }
    for (size_t index = 0; index < count; ++index) {
        const auto codes =
            nameFiles(index, openNames[index], unnamedFids[index]).cast<std::vector<int32_t>>();
        reader::codeIoFiles(io, firsts[index], counts[index], codes);
    }
    py::dict out;
    out["rank"] = toArray(std::move(io.rank));
    out["thread"] = toArray(std::move(io.thread));
    out["call"] = toArray(std::move(io.call));
    out["layer"] = toArray(std::move(io.layer));
    out["kind"] = toArray(std::move(io.kind));
    out["fid"] = toArray(std::move(io.fid));
    out["file"] = toArray(std::move(io.file));
    out["offset"] = toArray(std::move(io.offset));
    out["requested"] = toArray(std::move(io.requested));
    out["done"] = toArray(std::move(io.done));
    out["start_ns"] = toArray(std::move(io.startNs));
    out["end_ns"] = toArray(std::move(io.endNs));
    out["depth"] = toArray(std::move(io.depth));
    out["parent"] = toArray(std::move(io.parent));
    out["failed"] = toArray(std::move(io.failed));
    out["parent_call"] = toArray(std::move(io.parentCall));
    out["rows"] = counts;
    out["damage"] = damage;
    return out;
}

}  // namespace

void bindCallTree(py::module_ &module) {
    module.def(
        "read_call_tree",
        [](const std::string &path, bool partial, bool layers, bool sizesOnly) {
            reader::CallTreeResult result;
            {
                py::gil_scoped_release release;
                result = readTree(path, partial, layers, sizesOnly);
            }
            reader::CallTree &tree = result.tree;
            py::dict out;
            out["names"] = tree.names;
            out["name_code"] = toArray(std::move(tree.nameCode));
            out["depth"] = toArray(std::move(tree.depth));
            out["parent"] = toArray(std::move(tree.parent));
            out["top_row"] = toArray(std::move(tree.topRow));
            out["start_ns"] = toArray(std::move(tree.startNs));
            out["end_ns"] = toArray(std::move(tree.endNs));
            out["fid"] = toArray(std::move(tree.fid));
            out["offset"] = toArray(std::move(tree.offset));
            out["size"] = toArray(std::move(tree.size));
            out["asked"] = toArray(std::move(tree.asked));
            out["failed"] = toArray(std::move(tree.failed));
            out["data_size"] = toArray(std::move(tree.dataSize));
            out["data_offset"] = toArray(std::move(tree.dataOffset));
            out["open_row"] = toArray(std::move(tree.openRow));
            out["open_fid"] = toArray(std::move(tree.openFid));
            out["open_name"] = tree.openName;
            out["damage"] = result.damage;
            return out;
        },
        py::arg("path"), py::arg("partial") = false, py::arg("layers") = false,
        py::arg("sizes_only") = false,
        "Every call of a trace at every depth as numpy columns, in pre-order (a call, then "
        "the calls nested in it), with each nested call's parent row (-1 at the top level) "
        "and its top-level call's number; numbers a call lacks are -1. With layers, the "
        "calls of the layer traces beside it (<base>.hdf5.trc) above the calls they made "
        "(LayerTraces.hpp). sizes_only fills name_code, depth and size and leaves the other "
        "columns and the opens empty (not with layers): for sums of bytes by call, without "
        "the memory of the rest.");
    module.def("read_io_calls", &readIoCalls, py::arg("traces"), py::arg("partial"),
               py::arg("layers"), py::arg("describe"), py::arg("name_files"),
               "The calls that work on a file of read_call_tree's trees of traces (a list of "
               "(path, rank, thread)), as one set of numpy columns, trace after trace, each "
               "in pre-order (IoCalls.hpp). describe(names), asked again only for a list "
               "of names unlike the last trace's, gives per call name (layer: "
               "int8, negative for a call that is not on a file; kind: int8, 0 read, 1 "
               "write, 2 neither; counts_done: bool, its layer writes bytes done apart "
               "from asked; call_code: int32, its code in the columns). name_files(trace "
               "index, open names, unnamed fids) gives the file codes of the trace's opens "
               "then of the fids no open named. rows: each trace's row count.");
}

}  // namespace hdtrace::python
