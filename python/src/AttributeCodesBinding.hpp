// hdtrace._core.read_attribute_codes: chosen attributes of a trace's calls
// as numpy columns of codes into their distinct texts, so that the package
// sums attributes no reader column holds (an HDF5 dataset's id, name and
// transfer mode) without an Event or a dict per call.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.read_attribute_codes.
void bindAttributeCodes(pybind11::module_ &module);

}  // namespace hdtrace::python
