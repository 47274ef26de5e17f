// hdtrace._core's sums of the bytes of named calls at every depth of a
// trace: the POSIX layer of hdtrace stats, whose calls sit inside the
// <Nested> blocks that the table's columns leave out.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.sum_call_bytes.
void bindCallBytes(pybind11::module_ &module);

}  // namespace hdtrace::python
