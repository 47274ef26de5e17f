// hdtrace._core.merge: the project merger, when it is part of the build.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.HAVE_MERGER and, when the merger library is linked, _core.merge.
void bindMerger(pybind11::module_ &module);

}  // namespace hdtrace::python
