// hdtrace._core's call costs of a trace (hdtrace/reader/CallCosts.hpp): per
// call, visits, time and trace bytes in both forms, for hdtrace score.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.call_costs.
void bindCallCosts(pybind11::module_ &module);

}  // namespace hdtrace::python
