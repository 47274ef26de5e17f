// hdtrace._core's clock alignment (hdtrace::clocks): the correction that
// hdtrace.open(align=True) applies, and `hdtrace align [--undo]`.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.ClockCorrection, _core.run_clocks, _core.correct_table, _core.align_run,
// _core.undo_alignment, _core.rewrite_trace_times and _core.AlignError.
void bindClocks(pybind11::module_ &module);

}  // namespace hdtrace::python
