// The byte classes of the dialect scanner and its byte comparisons, 16
// bytes at a time where SSE2 is there: shared by DialectScanner.cpp and the
// per-tag loop that is compiled into each handler (DialectTagScan.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace hdtrace::reader::dialect {

// Byte classes. The buffer always ends in a NUL sentinel, which is of class
// kBad everywhere, so that every loop stops at the end of the data without a
// bounds check and then tells "need more data" from "bad byte" by position.
enum : uint8_t { kPlain = 0, kQuote, kAmpersand, kNonAscii, kBad };

struct ByteTables {
    uint8_t value[256];  // inside an attribute value
    bool space[256];     // XML's S without carriage return
    bool nameStart[256];
    bool name[256];
};

constexpr ByteTables makeTables() {
    ByteTables tables{};
    for (int c = 0; c < 256; ++c) {
        tables.value[c] = c >= 0x80 ? kNonAscii : (c < 0x20 || c == 0x7f) ? kBad : kPlain;
        tables.space[c] = false;
        tables.nameStart[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        tables.name[c] = tables.nameStart[c] || (c >= '0' && c <= '9') || c == '.' || c == '-';
    }
    // Literal tabs and newlines in a value are normalised to spaces by XML;
    // they are left to libxml2 (kBad, as are '<' and carriage returns).
    tables.value[static_cast<unsigned char>('<')] = kBad;
    tables.value[static_cast<unsigned char>('\'')] = kQuote;
    tables.value[static_cast<unsigned char>('"')] = kQuote;
    tables.value[static_cast<unsigned char>('&')] = kAmpersand;
    tables.space[static_cast<unsigned char>(' ')] = true;
    tables.space[static_cast<unsigned char>('\t')] = true;
    tables.space[static_cast<unsigned char>('\n')] = true;
    return tables;
}

inline constexpr ByteTables kTables = makeTables();

inline unsigned char byteAt(const char *position) {
    return static_cast<unsigned char>(*position);
}

// The first byte at or after position that is not plain value text (a
// quote, '&', '<', a control character, DEL or a non-ASCII byte). The
// buffer's padding after the sentinel makes 16-byte loads safe.
inline const char *skipPlainValue(const char *position) {
#ifdef __SSE2__
    const __m128i space = _mm_set1_epi8(0x20), apostrophe = _mm_set1_epi8('\''),
                  quote = _mm_set1_epi8('"'), ampersand = _mm_set1_epi8('&'),
                  less = _mm_set1_epi8('<'), del = _mm_set1_epi8(0x7f);
    for (;;) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(position));
        // Signed: bytes >= 0x80 are negative, so below 0x20 as well.
        __m128i special = _mm_cmplt_epi8(bytes, space);
        special = _mm_or_si128(special, _mm_cmpeq_epi8(bytes, apostrophe));
        special = _mm_or_si128(special, _mm_cmpeq_epi8(bytes, quote));
        special = _mm_or_si128(special, _mm_cmpeq_epi8(bytes, ampersand));
        special = _mm_or_si128(special, _mm_cmpeq_epi8(bytes, less));
        special = _mm_or_si128(special, _mm_cmpeq_epi8(bytes, del));
        const int mask = _mm_movemask_epi8(special);
        if (mask != 0) return position + __builtin_ctz(static_cast<unsigned>(mask));
        position += 16;
    }
#else
    while (kTables.value[byteAt(position)] == kPlain)
        ++position;
    return position;
#endif
}

// The first byte at or after position that is not a name character of the
// dialect ([A-Za-z0-9_.-]).
inline const char *skipName(const char *position) {
#ifdef __SSE2__
    const __m128i caseBit = _mm_set1_epi8(0x20), lowerA = _mm_set1_epi8('a'),
                  letters = _mm_set1_epi8(25), zero = _mm_set1_epi8('0'), digits = _mm_set1_epi8(9),
                  underscore = _mm_set1_epi8('_'), dot = _mm_set1_epi8('.'),
                  dash = _mm_set1_epi8('-');
    for (;;) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(position));
        // Unsigned range checks: x - low <= span, as min(x - low, span) == x - low.
        const __m128i letter = _mm_sub_epi8(_mm_or_si128(bytes, caseBit), lowerA);
        const __m128i digit = _mm_sub_epi8(bytes, zero);
        __m128i name = _mm_cmpeq_epi8(_mm_min_epu8(letter, letters), letter);
        name = _mm_or_si128(name, _mm_cmpeq_epi8(_mm_min_epu8(digit, digits), digit));
        name = _mm_or_si128(name, _mm_cmpeq_epi8(bytes, underscore));
        name = _mm_or_si128(name, _mm_cmpeq_epi8(bytes, dot));
        name = _mm_or_si128(name, _mm_cmpeq_epi8(bytes, dash));
        const unsigned mask = ~static_cast<unsigned>(_mm_movemask_epi8(name)) & 0xffffu;
        if (mask != 0) return position + __builtin_ctz(mask);
        position += 16;
    }
#else
    while (kTables.name[byteAt(position)])
        ++position;
    return position;
#endif
}

// Names are short: compared inline, without a call to memcmp.
inline bool sameName(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// length (at most 32) bytes of a and b equal; both have 16 readable bytes
// beyond length rounded up to 16.
inline bool sameShortBytes(const char *a, const char *b, size_t length) {
#ifdef __SSE2__
    for (size_t offset = 0; offset < length; offset += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(a + offset));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + offset));
        const unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
        const size_t left = length - offset;
        const unsigned wanted = left >= 16 ? 0xffffu : (1u << left) - 1;
        if ((equal & wanted) != wanted) return false;
    }
    return true;
#else
    return std::memcmp(a, b, length) == 0;
#endif
}

// The bytes of wanted (bit i: byte i, the first 1 to 16) at text equal those
// of gap; 16 bytes at text are readable.
inline bool sameGap(const char *text, const char *gap, unsigned wanted) {
#ifdef __SSE2__
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(text));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(gap));
    const unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
    return (equal & wanted) == wanted;
#else
    for (unsigned byte = 0; wanted >> byte; ++byte)
        if (text[byte] != gap[byte]) return false;
    return true;
#endif
}

}  // namespace hdtrace::reader::dialect
