// TestHooks: the points where the wrapper's own tests step in
// (docs/dev/wrapper.md, "Testing knobs"). The production libraries hold
// only these seams, empty; the knobs behind them (mpiwrapper/testknobs/,
// read from environment variables) are linked into test programs alone,
// or preloaded beside libhdtracempi.so.
#pragma once

#include <cstdint>
#include <string>

#include <hdtrace/Timestamp.hpp>

namespace hdtracempi {

// A deliberate error of this process's clock: the times it writes and
// measures go through apply.
struct ClockShift {
    int64_t (*apply)(int64_t nanoseconds) = nullptr;  // null: the true clock
    // Tells this clock apart from its host's (ClockSync.hpp, clockIdOf).
    uint64_t identity = 0;

    bool active() const { return apply != nullptr; }
    int64_t read(int64_t nanoseconds) const { return apply ? apply(nanoseconds) : nanoseconds; }
};

// What a test build provides (testknobs/TestSeams.cpp).
struct TestSeams {
    // In MPI_Init, before its start is read.
    void (*beforeInit)();
    // Before the first trace of the process is created.
    void (*beforeTrace)(hdtrace::Timestamp initStart);
    // The shift of worldRank's clock, exact at referenceNanoseconds; a
    // message in *problem (for rank 0 to print) when the knob is malformed.
    ClockShift (*clockShift)(int worldRank, int64_t referenceNanoseconds, std::string *problem);
};

}  // namespace hdtracempi

// Defined only where the test knobs are linked in or preloaded; without
// them the weak reference is null and no hook does anything.
extern "C" const hdtracempi::TestSeams *hdtracempi_test_seams() __attribute__((weak));

namespace hdtracempi {

inline const TestSeams *testSeams() {
    return hdtracempi_test_seams ? hdtracempi_test_seams() : nullptr;
}

inline void testHookBeforeInit() {
    if (const TestSeams *seams = testSeams()) seams->beforeInit();
}

inline void testHookBeforeTrace(hdtrace::Timestamp initStart) {
    if (const TestSeams *seams = testSeams()) seams->beforeTrace(initStart);
}

inline ClockShift testClockShift(int worldRank, int64_t referenceNanoseconds,
                                 std::string *problem) {
    const TestSeams *seams = testSeams();
    return seams ? seams->clockShift(worldRank, referenceNanoseconds, problem) : ClockShift();
}

}  // namespace hdtracempi
