// Decimal numbers as the writer writes them, parsed word at a time: the
// common case inline (1 to 16 digits, which cannot overflow), anything else
// the way of parseInteger (DecimalNumber.hpp). The XML scanner's readers
// share them. Each reads up to 8 bytes past a value's first byte
// (ScannedAttribute::value guarantees 16).
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <hdtrace/codec/Inlining.hpp>

namespace hdtrace::reader {

// What parseInteger (DecimalNumber.cpp) returns, without the optional.
struct ParsedInteger {
    bool valid = false;
    bool outOfRange = false;  // digits (with an optional '-') beyond 64 bits
    int64_t value = 0;
};

HDTRACE_COLD inline ParsedInteger parseIntegerSlowly(std::string_view text) {
    ParsedInteger parsed;
    if (text.empty() || text.front() == '+') return parsed;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed.value);
    parsed.valid = error == std::errc() && end == text.data() + text.size();
    parsed.outOfRange = error == std::errc::result_out_of_range;
    return parsed;
}

// Eight decimal digits at text, or -1 if any is not one (SWAR: all eight
// bytes at once, least significant byte first).
HDTRACE_HOT_INLINE int64_t eightDigits(uint64_t bytes) {
    // Each byte 0x30..0x39: neither byte - 0x30 nor byte + 0x46 reaches 0x80.
    // (A carry or borrow crosses only from a byte that is not a digit, and
    // the lowest such byte shows its own top bit in one of the two.)
    bytes -= 0x3030303030303030u;
    if (((bytes + 0x7676767676767676u) | bytes) & 0x8080808080808080u) return -1;
    bytes = bytes * 10 + (bytes >> 8);  // pairs of digits in every other byte
    bytes = (((bytes & 0x000000ff000000ffu) * (100 + (1000000ull << 32))) +
             (((bytes >> 16) & 0x000000ff000000ffu) * (1 + (10000ull << 32)))) >>
            32;
    return static_cast<int64_t>(bytes);
}

HDTRACE_HOT_INLINE int64_t eightDigits(const char *text) {
    uint64_t bytes;
    std::memcpy(&bytes, text, 8);
    return eightDigits(bytes);
}

// 1 to 8 decimal digits at text as a number, or -1 if any is not one. Reads
// 8 bytes (see ScannedAttribute::value): the digits are moved to the top and
// '0's come in below them.
HDTRACE_HOT_INLINE int64_t fewDigits(const char *text, size_t count) {
    uint64_t bytes;
    std::memcpy(&bytes, text, 8);
    const unsigned shift = static_cast<unsigned>(8 - count) * 8;
    bytes = (bytes << shift) | (0x3030303030303030u & ~(~uint64_t{0} << shift));
    return eightDigits(bytes);
}

// 1 to 4 decimal digits at text as a number, or -1 if any is not one: as
// eightDigits, on 32 bits (fewer steps for sizes, tags and ranks). Reads 4
// bytes.
HDTRACE_HOT_INLINE int64_t fourDigits(const char *text, size_t count) {
    uint32_t bytes;
    std::memcpy(&bytes, text, 4);
    const unsigned shift = static_cast<unsigned>(4 - count) * 8;
    bytes = (bytes << shift) | (0x30303030u & ~(~0u << shift));
    bytes -= 0x30303030u;
    if (((bytes + 0x76767676u) | bytes) & 0x80808080u) return -1;
    bytes = bytes * 10 + (bytes >> 8);  // pairs of digits in bytes 0 and 2
    return ((bytes & 0x00ff00ffu) * (1 + (100u << 16))) >> 16;
}

// 1 to 16 digits as a number (cannot overflow), or -1 if any is not one.
HDTRACE_HOT_INLINE int64_t shortDigits(const char *digit, size_t count) {
    if (count == 1) {
        const unsigned value = static_cast<unsigned>(*digit - '0');  // ranks, tags, ids
        return value <= 9 ? int64_t{value} : -1;
    }
    if (count - 1 < 4) return fourDigits(digit, count);
    if (count - 1 < 8) return fewDigits(digit, count);
    if (count - 9 < 8) {
        const int64_t high = fewDigits(digit, count - 8), low = eightDigits(digit + count - 8);
        return (high | low) < 0 ? -1 : high * 100000000 + low;
    }
    return -1;
}

// A '-' and 1 to 16 digits (wildcard ranks and tags), kept out of the loop.
HDTRACE_COLD inline ParsedInteger parseNegativeInteger(std::string_view text) {
    const int64_t value = shortDigits(text.data() + 1, text.size() - 1);
    if (value < 0) return parseIntegerSlowly(text);
    ParsedInteger parsed;
    parsed.valid = true;
    parsed.value = -value;
    return parsed;
}

// The common case inline: 1 to 16 digits, which cannot overflow; anything
// else goes the way of parseInteger (from_chars).
HDTRACE_HOT_INLINE ParsedInteger parseIntegerValue(std::string_view text) {
    if (text.size() > 1 && text[0] == '-') return parseNegativeInteger(text);
    const int64_t value = shortDigits(text.data(), text.size());
    if (value < 0) return parseIntegerSlowly(text);
    ParsedInteger parsed;
    parsed.valid = true;
    parsed.value = value;
    return parsed;
}

// A time in our writer's form, "S.NNNNNNNNN" with 1 to 8 digits of
// seconds, as absolute nanoseconds after adjustmentNs; false for any other
// form (the caller then parses it as any decimal, parseDecimalSeconds).
HDTRACE_HOT_INLINE bool parseWriterTime(std::string_view text, int64_t adjustmentNs,
                                        int64_t *nanoseconds) {
    if (text.size() < 11) return false;
    const size_t point = text.size() - 10;
    if (point - 1 >= 8 || text[point] != '.') return false;
    const int64_t seconds = shortDigits(text.data(), point);
    const unsigned first = static_cast<unsigned>(text[point + 1] - '0');
    const int64_t rest = eightDigits(text.data() + point + 2);
    return (seconds | rest) >= 0 && first <= 9 &&
           !__builtin_add_overflow(adjustmentNs, seconds * 1000000000 + first * 100000000 + rest,
                                   nanoseconds);
}

}  // namespace hdtrace::reader
