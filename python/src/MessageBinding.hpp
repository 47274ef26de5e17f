// hdtrace._core's message pairing (hdtrace::clocks::pairPosts): the matching
// behind hdtrace.match_messages, in this process and on Dask alike.
#pragma once

#include <pybind11/pybind11.h>

namespace hdtrace::python {

// Defines _core.pair_posts and _core.UNKNOWN_COMMUNICATOR_KEY.
void bindMessages(pybind11::module_ &module);

}  // namespace hdtrace::python
