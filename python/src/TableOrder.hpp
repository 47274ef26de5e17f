// Where each call of a project's traces goes in Project.to_numpy()'s table:
// start order, ties in trace order. The calls of one thread start one after
// another, so each trace is mostly in order already and the traces are
// merged rather than sorted; a trace out of order is sorted with the rest.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

void bindTableOrder(pybind11::module_ &module);

}  // namespace hdtrace::python
