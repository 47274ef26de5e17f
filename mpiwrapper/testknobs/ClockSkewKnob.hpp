// ClockSkewKnob: HDTRACE_CLOCK_SKEW='<rank>:<offset ns>:<drift ppm>,...', a
// testing knob (docs/user/clocks.md): the listed ranks write and
// measure every time as if their clock were off by that much, so that one
// machine can emulate hosts whose clocks disagree.
#pragma once

#include <string>

#include "ClockSkew.hpp"

namespace hdtracempi {

// The skew of worldRank (inactive when the knob does not list it), with
// referenceNanoseconds set to reference. A malformed knob gives a message in
// *problem (for rank 0 to print) and no skew for any rank.
ClockSkew clockSkewOf(int worldRank, int64_t referenceNanoseconds, std::string *problem);

}  // namespace hdtracempi
