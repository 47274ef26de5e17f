#include "CallTreeBinding.hpp"

#include <string>
#include <utility>

#include <pybind11/stl.h>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/LayerTraces.hpp>

#include "NumpyVectors.hpp"

namespace py = pybind11;

namespace hdtrace::python {

void bindCallTree(py::module_ &module) {
    module.def(
        "read_call_tree",
        [](const std::string &path, bool partial, bool layers) {
            reader::CallTreeResult result;
            {
                py::gil_scoped_release release;
                reader::TraceOptions options;
                options.partial = partial;
                result = layers ? reader::readCallTreeWithLayers(path, options)
                                : reader::readCallTree(path, options);
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
        "Every call of a trace at every depth as numpy columns, in pre-order (a call, then "
        "the calls nested in it), with each nested call's parent row (-1 at the top level) "
        "and its top-level call's number; numbers a call lacks are -1. With layers, the "
        "calls of the layer traces beside it (<base>.hdf5.trc) above the calls they made "
        "(LayerTraces.hpp).");
}

}  // namespace hdtrace::python
