// TestHooks: knobs for the wrapper's own tests, never needed by a user
// (docs/dev/wrapper.md, "Testing knobs"). Each does nothing unless its
// environment variable is set.
#pragma once

#include <hdtrace/Timestamp.hpp>

namespace hdtracempi {

// HDTRACE_TEST_INIT_STRADDLE=1 makes MPI_Init straddle a second boundary,
// so that a test can check that no time comes before timeAdjustment:
// before MPI_Init's start is read, wait until the last 3 ms of a second ...
void testHookBeforeInit();
// ... and before the trace is created, wait until the next second began.
void testHookBeforeTrace(hdtrace::Timestamp initStart);

}  // namespace hdtracempi
