#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

#include <hdtrace/reader/DecimalNumber.hpp>

#include "DialectCalls.hpp"  // generated: the attributes of number kinds

namespace hdtrace::reader {

std::optional<int64_t> parseInteger(std::string_view text) {
    if (text.empty() || text.front() == '+') return std::nullopt;
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

bool isOutOfRangeInteger(std::string_view text) {
    if (text.empty() || text.front() == '+') return false;
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc::result_out_of_range &&
           text.find_first_not_of("0123456789", text.front() == '-' ? 1 : 0) ==
               std::string_view::npos;
}

bool isTextAttribute(std::string_view name) {
    static constexpr std::array<std::string_view, 6> kTextAttributes = {
        "name", "key", "value", "cFile", "representation", "whence"};
    for (std::string_view text : kTextAttributes)
        if (name == text) return true;
    return false;
}

bool isNumberAttribute(std::string_view name) {
    return isNumberAttributeOfDialect(name);
}

std::optional<ParsedTime> parseDecimalSeconds(std::string_view text) {
    bool negative = false;
    size_t pos = 0;
    if (pos < text.size() && text[pos] == '-') {
        negative = true;
        ++pos;
    }
    constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000000000 - 1;
    int64_t seconds = 0;
    size_t secondDigits = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++secondDigits) {
        seconds = seconds * 10 + (text[pos] - '0');
        if (seconds > kMaxSeconds) return std::nullopt;
    }
    ParsedTime result;
    int64_t fraction = 0;
    if (pos < text.size() && text[pos] == '.') {
        ++pos;
        for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
            if (result.fractionDigits < 9) fraction = fraction * 10 + (text[pos] - '0');
            ++result.fractionDigits;
        }
        if (result.fractionDigits == 0) return std::nullopt;
    }
    if (pos != text.size() || (secondDigits == 0 && result.fractionDigits == 0))
        return std::nullopt;
    for (int digit = result.fractionDigits; digit < 9; ++digit)
        fraction *= 10;
    result.nanoseconds = seconds * 1000000000 + fraction;
    if (negative) result.nanoseconds = -result.nanoseconds;
    return result;
}

}  // namespace hdtrace::reader
