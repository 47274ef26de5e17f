#include "FilterBinding.hpp"

#include <string>
#include <vector>

#include <pybind11/stl.h>

#include <hdtrace/filter/TraceFilter.hpp>

namespace py = pybind11;
using hdtrace::filter::TraceFilter;

namespace hdtrace::python {

void bindFilter(py::module_ &module) {
    static py::exception<hdtrace::filter::FilterError> filterError(module, "FilterError",
                                                                   PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr pointer) {
        try {
            if (pointer) std::rethrow_exception(pointer);
        } catch (const hdtrace::filter::FilterError &error) {
            filterError(error.what());
        }
    });

    py::class_<TraceFilter>(module, "TraceFilter")
        .def(py::init<>())
        .def("add_text", &TraceFilter::addText, py::arg("text"), py::arg("source"),
             "Adds the rules of text (read from source) after those added; FilterError with "
             "source:line:column at the first line that is no rule, nothing added then.")
        .def("add_file", &TraceFilter::addFile, py::arg("path"),
             "Adds the rules of a filter file; FilterError when it cannot be read or is wrong.")
        .def(
            "traces_call",
            [](const TraceFilter &filter, const std::string &tag) {
                return filter.tracesCall(hdtrace::filter::callIndexOf(tag));
            },
            py::arg("tag"), "Whether the call with this tag is written (unknown tags: yes).")
        .def("traces_file", &TraceFilter::tracesFile, py::arg("path"),
             "Whether the C library's calls on this (absolute, normalised) path are written.")
        .def("traces_rank", &TraceFilter::tracesRank, py::arg("rank"))
        .def_property_readonly("has_file_rules", &TraceFilter::hasFileRules)
        .def_property_readonly("has_ranks_rule", &TraceFilter::hasRanksRule)
        .def_property_readonly("warnings", &TraceFilter::warnings)
        .def_property_readonly("rule_count",
                               [](const TraceFilter &filter) { return filter.rules().size(); });

    module.def(
        "dialect_calls",
        [] {
            py::list calls;
            const auto &groups = hdtrace::filter::dialectGroups();
            for (const auto &call : hdtrace::filter::dialectCalls()) {
                py::list memberOf;
                for (size_t index = 0; index < groups.size(); ++index)
                    if (call.groups >> index & 1) memberOf.append(std::string(groups[index].name));
                calls.append(py::make_tuple(std::string(call.tag), std::string(call.name),
                                            std::string(call.layer), memberOf));
            }
            return calls;
        },
        "(tag, name a call rule matches, layer, [groups]) of every call of the dialect.");
    module.def(
        "dialect_groups",
        [] {
            py::list groups;
            for (const auto &group : hdtrace::filter::dialectGroups())
                groups.append(
                    py::make_tuple(std::string(group.name), std::string(group.about), group.layer));
            return groups;
        },
        "(name, what it holds, whether it is a layer) of every group of the dialect.");
}

}  // namespace hdtrace::python
