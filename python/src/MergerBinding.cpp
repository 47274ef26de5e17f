#include "MergerBinding.hpp"

namespace hdtrace::python {

void bindMerger(pybind11::module_ &module) {
#ifdef HDTRACE_HAVE_MERGER
    module.attr("HAVE_MERGER") = true;
#else
    // Without the library the Python command runs the project-merger program.
    module.attr("HAVE_MERGER") = false;
#endif
}

}  // namespace hdtrace::python
