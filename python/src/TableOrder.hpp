// Where each call of a project's traces goes in Project.to_numpy()'s table:
// start order, ties in trace order. The calls of one thread start one after
// another, so each trace is in start order already and the traces are
// merged rather than sorted; where one is not, every call is sorted.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

void bindTableOrder(pybind11::module_ &module);

}  // namespace hdtrace::python
