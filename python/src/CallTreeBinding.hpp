// hdtrace._core's call tree of a trace: every call at every depth as numpy
// columns (hdtrace/reader/CallTree.hpp), for the I/O layers' tables.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.read_call_tree.
void bindCallTree(pybind11::module_ &module);

}  // namespace hdtrace::python
