// hdtrace._core's filter rules (hdtrace/filter/TraceFilter.hpp): the same
// parser and choices as the wrapper's, for hdtrace run --filter (checked
// before the launch) and hdtrace score (what a filter keeps of a trace).
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.TraceFilter, _core.FilterError, _core.dialect_calls and
// _core.dialect_groups.
void bindFilter(pybind11::module_ &module);

}  // namespace hdtrace::python
