#include "ClockSkewKnob.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace hdtracempi {

namespace {

bool parseInteger(const std::string &text, long long *value) {
    if (text.empty()) return false;
    errno = 0;
    char *end = nullptr;
    *value = std::strtoll(text.c_str(), &end, 10);
    return errno == 0 && *end == '\0';
}

bool parseNumber(const std::string &text, double *value) {
    if (text.empty()) return false;
    errno = 0;
    char *end = nullptr;
    *value = std::strtod(text.c_str(), &end);
    return errno == 0 && *end == '\0' && std::isfinite(*value);
}

}  // namespace

ClockSkew clockSkewOf(int worldRank, int64_t referenceNanoseconds, std::string *problem) {
    ClockSkew none;
    const char *text = std::getenv("HDTRACE_CLOCK_SKEW");
    if (!text || !*text) return none;
    ClockSkew found;
    std::stringstream entries(text);
    std::string entry;
    while (std::getline(entries, entry, ',')) {
        std::stringstream fields(entry);
        std::string rankText, offsetText, driftText, extra;
        std::getline(fields, rankText, ':');
        std::getline(fields, offsetText, ':');
        std::getline(fields, driftText, ':');
        long long rank = 0, offset = 0;
        double drift = 0;
        // A drift of -10^6 ppm or less would stop or reverse the clock.
        if (std::getline(fields, extra) || !parseInteger(rankText, &rank) || rank < 0 ||
            !parseInteger(offsetText, &offset) || !parseNumber(driftText, &drift) ||
            drift <= -1e5 || drift >= 1e5) {
            *problem = "HDTRACE_CLOCK_SKEW entry '" + entry +
                       "' is not <rank>:<offset ns>:<drift ppm> (|drift| < 100000); no rank "
                       "is skewed";
            return none;
        }
        if (rank == worldRank) {
            found.offsetNanoseconds = offset;
            found.driftPpm = drift;
        }
    }
    found.referenceNanoseconds = referenceNanoseconds;
    return found;
}

}  // namespace hdtracempi
