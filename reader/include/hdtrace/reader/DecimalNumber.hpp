// Exact conversion of the decimal text in trace attributes. Times are parsed
// digit by digit into integer nanoseconds, never through a double, so that
// the nine digits our writer emits survive unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hdtrace::reader {

struct ParsedTime {
    int64_t nanoseconds = 0;
    int fractionDigits =
        0;  // digits after the point as written (9 in our traces, 6 in the original's)
};

// "[-]SEC[.FRAC]" to nanoseconds; digits beyond the ninth are truncated.
// nullopt for anything else (exponents, spaces, empty text, overflow).
std::optional<ParsedTime> parseDecimalSeconds(std::string_view text);

// A whole decimal number "[-]DIGITS"; nullopt for anything else or overflow.
std::optional<int64_t> parseInteger(std::string_view text);

// Whether text is "[-]DIGITS" but too large for int64: a number that does
// not fit, which the readers report as an error rather than read as no value.
bool isOutOfRangeInteger(std::string_view text);

// Attributes whose values are text even when they look like numbers.
bool isTextAttribute(std::string_view name);

// Attributes the wrapper writes as 64-bit numbers (docs/format/calls.md):
// in these a value beyond 64 bits is an error. Other attributes (a
// program's own, through the C API) keep whatever digits they hold.
bool isNumberAttribute(std::string_view name);

// adjustmentNs + timeNs, or nullopt when the sum leaves int64. Inline: the
// compact column reader adds it to every time.
inline std::optional<int64_t> addTimes(int64_t adjustmentNs, int64_t timeNs) {
    int64_t sum = 0;
    if (__builtin_add_overflow(adjustmentNs, timeNs, &sum)) return std::nullopt;
    return sum;
}

}  // namespace hdtrace::reader
