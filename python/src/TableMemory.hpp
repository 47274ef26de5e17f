// Memory for the arrays of Project.to_numpy(): the reader's column memory
// (hdtrace/reader/ColumnMemory.hpp) handed to numpy, so that a table, once
// freed, serves the next table of the process without the kernel zeroing
// fresh pages for it, and fresh memory is faulted in by one call.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.empty_array(rows, dtype).
void bindTableMemory(pybind11::module_ &module);

}  // namespace hdtrace::python
