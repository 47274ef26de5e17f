// InitStraddle: HDTRACE_TEST_INIT_STRADDLE=1 makes MPI_Init straddle a
// second boundary, so that a test can check that no time comes before
// timeAdjustment. Each hook does nothing unless the variable is set.
#pragma once

#include <hdtrace/Timestamp.hpp>

namespace hdtracempi {

// Before MPI_Init's start is read: wait until the last 3 ms of a second ...
void straddleBeforeInit();
// ... and before the trace is created, wait until the next second began.
void straddleBeforeTrace(hdtrace::Timestamp initStart);

}  // namespace hdtracempi
