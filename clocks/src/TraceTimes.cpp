#include <algorithm>
#include <string_view>
#include <vector>

#include <hdtrace/clocks/TraceTimes.hpp>
#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::clocks {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

int64_t floorDivide(int64_t value, int64_t divisor) {
    const int64_t quotient = value / divisor;
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient;
}

// Appends ns (at least 0 after the adjustment, but any value works) as
// [-]SEC.FRAC with nine digits: snprintf is a tenth of the whole rewrite.
void appendSeconds(std::string &out, int64_t ns) {
    const int64_t seconds = floorDivide(ns, kNsPerSecond);
    int64_t fraction = ns - seconds * kNsPerSecond;
    out += std::to_string(seconds);
    char digits[10];
    digits[0] = '.';
    for (int k = 9; k >= 1; --k) {
        digits[k] = static_cast<char>('0' + fraction % 10);
        fraction /= 10;
    }
    out.append(digits, sizeof digits);
}

// A time value: where its text is, and its nanoseconds relative to timeAdjustment.
struct TimeValue {
    size_t begin, end;
    int64_t ns;
};

// Reads "[-]DIGITS[.1-9 DIGITS]" followed by a quote at text[at]; the end of
// the digits, or npos when the text there is no such value.
size_t readValue(const std::string &text, size_t at, int64_t *ns) {
    size_t i = at;
    const bool negative = i < text.size() && text[i] == '-';
    if (negative) ++i;
    const size_t digits = i;
    int64_t seconds = 0;
    while (i < text.size() && isDigit(text[i]))
        seconds = seconds * 10 + (text[i++] - '0');
    // More seconds than 64-bit nanoseconds hold: not a time we can correct.
    if (i == digits || i - digits > 10) return std::string::npos;
    int64_t fraction = 0;
    if (i < text.size() && text[i] == '.') {
        const size_t first = ++i;
        while (i < text.size() && isDigit(text[i]) && i - first < 10)
            fraction = fraction * 10 + (text[i++] - '0');
        const size_t count = i - first;
        if (count == 0 || count > 9) return std::string::npos;
        for (size_t pad = count; pad < 9; ++pad)
            fraction *= 10;
    }
    if (i >= text.size() || text[i] != '\'') return std::string::npos;
    const int64_t value = seconds * kNsPerSecond + fraction;
    *ns = negative ? -value : value;
    return i;
}

// Every " time='V'" and " end='V'" of the text, in order.
std::vector<TimeValue> findTimes(const std::string &text) {
    std::vector<TimeValue> found;
    size_t at = 0;
    while ((at = text.find("='", at)) != std::string::npos) {
        const size_t value = at + 2;
        const std::string_view before = std::string_view(text).substr(0, at);
        const bool named = (before.size() >= 5 && before.substr(before.size() - 5) == " time") ||
                           (before.size() >= 4 && before.substr(before.size() - 4) == " end");
        int64_t ns = 0;
        const size_t end = named ? readValue(text, value, &ns) : std::string::npos;
        if (end == std::string::npos) {
            at = value;
            continue;
        }
        found.push_back({value, end, ns});
        at = end + 1;
    }
    return found;
}

}  // namespace

std::string rewriteTraceTimes(const std::string &text, const std::string &path,
                              const std::function<int64_t(int64_t)> &correct) {
    const std::string program = "<Program timeAdjustment='";
    size_t adjustmentAt = text.find(program);
    int64_t adjustment = 0;
    size_t adjustmentEnd = std::string::npos;
    while (adjustmentAt != std::string::npos) {
        const size_t digits = adjustmentAt + program.size();
        size_t i = digits + (digits < text.size() && text[digits] == '-');
        const size_t first = i;
        int64_t value = 0;
        while (i < text.size() && isDigit(text[i]))
            value = value * 10 + (text[i++] - '0');
        if (i > first && i < text.size() && text[i] == '\'') {
            adjustment = text[digits] == '-' ? -value : value;
            adjustmentAt = digits;
            adjustmentEnd = i;
            break;
        }
        adjustmentAt = text.find(program, adjustmentAt + 1);
    }
    if (adjustmentEnd == std::string::npos)
        throw reader::ReadError(path, 0, 0, "no <Program timeAdjustment='...'> element");
    std::vector<TimeValue> times = findTimes(text);
    if (times.empty()) return text;

    std::vector<int64_t> corrected;
    corrected.reserve(times.size());
    int64_t earliest = INT64_MAX;
    for (const TimeValue &time : times) {
        corrected.push_back(correct(time.ns + adjustment * kNsPerSecond));
        earliest = std::min(earliest, corrected.back());
    }
    // No time may come before timeAdjustment (docs/format/trace.md, "Times").
    const int64_t newAdjustment = std::min(adjustment, floorDivide(earliest, kNsPerSecond));

    std::string out;
    out.reserve(text.size() + 64);
    size_t copied = 0;
    auto copyUpTo = [&](size_t position) {
        out.append(text, copied, position - copied);
        copied = position;
    };
    if (newAdjustment != adjustment && adjustmentAt < times.front().begin) {
        copyUpTo(adjustmentAt);
        out += std::to_string(newAdjustment);
        copied = adjustmentEnd;
    }
    for (size_t k = 0; k < times.size(); ++k) {
        copyUpTo(times[k].begin);
        appendSeconds(out, corrected[k] - newAdjustment * kNsPerSecond);
        copied = times[k].end;
    }
    copyUpTo(text.size());
    return out;
}

}  // namespace hdtrace::clocks
