// Project.to_numpy()'s table put on rank 0's clock: every call's times
// corrected in place, and the rows put back into start order, in C++: numpy
// would take a pass over the structured rows per column, and copy whole
// rows field by field.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

void bindTableAlignment(pybind11::module_ &module);

}  // namespace hdtrace::python
