// Rewriting the times of one trace's text: only the values of `time` and
// `end` and, where a corrected time would come before it, `timeAdjustment`
// change; every other byte stays.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace hdtrace::clocks {

// correct: a written absolute time (epoch ns) to the one to write. The
// times are written [-]SEC.FRAC with nine digits (docs/format/trace.md), relative to a
// timeAdjustment at or before the earliest of them. Throws ReadError (path)
// when the text has no <Program timeAdjustment='...'>.
std::string rewriteTraceTimes(const std::string &text, const std::string &path,
                              const std::function<int64_t(int64_t)> &correct);

}  // namespace hdtrace::clocks
