// The test build's side of TestHooks.hpp: the knobs behind the seams.
#include <cstring>

#include "ClockSkewKnob.hpp"
#include "InitStraddle.hpp"
#include "TestHooks.hpp"

namespace hdtracempi {
namespace {

ClockSkew gSkew;  // this process's, set once in MPI_Init

int64_t applySkew(int64_t nanoseconds) {
    return gSkew.apply(nanoseconds);
}

ClockShift clockShiftOf(int worldRank, int64_t referenceNanoseconds, std::string *problem) {
    gSkew = clockSkewOf(worldRank, referenceNanoseconds, problem);
    ClockShift shift;
    if (!gSkew.active()) return shift;
    shift.apply = applySkew;
    // Equal skews, equal clocks: the identity is made of the skew alone.
    uint64_t drift = 0;
    std::memcpy(&drift, &gSkew.driftPpm, sizeof drift);
    shift.identity = (static_cast<uint64_t>(gSkew.offsetNanoseconds) * 1099511628211ull) ^ drift;
    return shift;
}

const TestSeams kSeams{straddleBeforeInit, straddleBeforeTrace, clockShiftOf};

}  // namespace
}  // namespace hdtracempi

extern "C" const hdtracempi::TestSeams *hdtracempi_test_seams() {
    return &hdtracempi::kSeams;
}
