// Fills rows of the structured numpy array of Project.to_numpy() from the
// columns of one trace, row by row in one pass (numpy's per-field assignment
// would stream the whole table through memory once per column).
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

void bindTableFill(pybind11::module_ &module);

}  // namespace hdtrace::python
