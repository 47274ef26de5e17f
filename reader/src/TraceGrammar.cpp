#include "TraceGrammar.hpp"

namespace hdtrace::reader::grammar {

TimeRead readTime(int64_t adjustmentNs, std::string_view text, int64_t *nanoseconds,
                  int *fractionDigits) {
    const auto parsed = parseDecimalSeconds(text);
    if (!parsed) return TimeRead::NotATime;
    const auto absolute = addTimes(adjustmentNs, parsed->nanoseconds);
    if (!absolute) return TimeRead::Overflows;
    if (*fractionDigits < 0) *fractionDigits = parsed->fractionDigits;
    *nanoseconds = *absolute;
    return TimeRead::Ok;
}

std::string rootProblem(std::string_view name) {
    return "the root element is <" + std::string(name) + ">, but a trace's root is <Program>";
}

std::string timeAdjustmentProblem(std::string_view text) {
    return "timeAdjustment='" + std::string(text) + "' is not a number of seconds";
}

std::string timeProblem(TimeRead read, std::string_view attribute, std::string_view text) {
    return "attribute " + std::string(attribute) + "='" + std::string(text) +
           (read == TimeRead::Overflows ? "' plus timeAdjustment overflows 64-bit nanoseconds"
                                        : "' is not a time in seconds");
}

std::string beyondSixtyFourBits(std::string_view attribute, std::string_view value) {
    return "attribute " + std::string(attribute) + "='" + std::string(value) +
           "' does not fit in 64 bits";
}

std::string beyondThirtyTwoBits(std::string_view attribute, std::string_view value) {
    return "attribute " + std::string(attribute) + "='" + std::string(value) +
           "' does not fit in 32 bits";
}

}  // namespace hdtrace::reader::grammar
