#include "CallCostsBinding.hpp"

#include <string>
#include <vector>

#include <pybind11/stl.h>

#include <hdtrace/reader/CallCosts.hpp>
#include <hdtrace/reader/FilteredTrace.hpp>

namespace py = pybind11;

namespace hdtrace::python {

namespace {

py::dict asDict(const hdtrace::reader::CallCosts &costs) {
    std::vector<std::string> tags;
    std::vector<bool> nested;
    std::vector<int64_t> visits, timeNs, bytesXml, bytesCompact;
    for (const auto &row : costs.rows) {
        tags.push_back(row.tag);
        nested.push_back(row.nested);
        visits.push_back(row.visits);
        timeNs.push_back(row.timeNs);
        bytesXml.push_back(row.bytesXml);
        bytesCompact.push_back(row.bytesCompact);
    }
    py::dict out;
    out["tag"] = tags;
    out["nested"] = nested;
    out["visits"] = visits;
    out["time_ns"] = timeNs;
    out["bytes_xml"] = bytesXml;
    out["bytes_compact"] = bytesCompact;
    out["fixed_xml"] = costs.fixedXml;
    out["fixed_compact"] = costs.fixedCompact;
    out["file_bytes_xml"] = costs.fileBytesXml;
    out["file_bytes_compact"] = costs.fileBytesCompact;
    out["span_ns"] = costs.spanNs;
    return out;
}

}  // namespace

void bindCallCosts(py::module_ &module) {
    module.def(
        "call_costs",
        [](const std::string &path) {
            hdtrace::reader::CallCosts costs;
            {
                py::gil_scoped_release released;
                costs = hdtrace::reader::callCostsOf(path);
            }
            return asDict(costs);
        },
        py::arg("path"),
        "Per call tag and nesting: visits, time and trace bytes in the XML and the compact form "
        "(hdtrace/reader/CallCosts.hpp); rows and fixed bytes add up to each form's file size.");
    module.def(
        "filtered_call_costs",
        [](const std::string &path, const std::vector<std::string> &leftOutTags,
           const std::vector<std::string> &fileTags, const std::vector<int64_t> &leftOutFids) {
            hdtrace::reader::CallChoice choice;
            choice.leftOutTags.insert(leftOutTags.begin(), leftOutTags.end());
            choice.fileTags.insert(fileTags.begin(), fileTags.end());
            choice.leftOutFids.insert(leftOutFids.begin(), leftOutFids.end());
            hdtrace::reader::CallCosts costs;
            {
                py::gil_scoped_release released;
                costs = hdtrace::reader::filteredCallCostsOf(path, choice);
            }
            return asDict(costs);
        },
        py::arg("path"), py::arg("left_out_tags"), py::arg("file_tags"), py::arg("left_out_fids"),
        "call_costs of the trace as a run with a filter would have written it: without the calls "
        "of left_out_tags, nor those of file_tags on a file of left_out_fids; the calls nested in "
        "one left out moved out (hdtrace/reader/FilteredTrace.hpp).");
}

}  // namespace hdtrace::python
