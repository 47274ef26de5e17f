#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <hdtrace/codec/Format.hpp>
#include <hdtrace/codec/Inlining.hpp>

namespace hdtrace {
namespace {

// "00" "01" ... "99": two digits per step halves the divisions.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int decimalDigits(uint64_t value) {
    int digits = 1;
    for (;;) {
        if (value < 10) return digits;
        if (value < 100) return digits + 1;
        if (value < 1000) return digits + 2;
        if (value < 10000) return digits + 3;
        value /= 10000;
        digits += 4;
    }
}

// Writes the digits in place from the right, two at a time: no temporary,
// no variable-length copy.
HDTRACE_CALL_PATH char *formatUnsigned(char *out, uint64_t value) {
    // Most numbers of a datatype's .info line (counts, block
    // lengths, strides) have one or two digits.
    if (value < 100) {
        if (value < 10) {
            *out = static_cast<char>('0' + value);
            return out + 1;
        }
        std::memcpy(out, kDigitPairs + 2 * value, 2);
        return out + 2;
    }
    char *end = out + decimalDigits(value);
    char *p = end;
    while (value >= 100) {
        p -= 2;
        std::memcpy(p, kDigitPairs + 2 * (value % 100), 2);
        value /= 100;
    }
    if (value >= 10) {
        p -= 2;
        std::memcpy(p, kDigitPairs + 2 * value, 2);
    } else {
        *--p = static_cast<char>('0' + value);
    }
    return end;
}

// Length of the valid UTF-8 sequence at text[0], or 0 when it is not valid
// UTF-8 or encodes a code point that XML 1.0 does not allow.
size_t validUtf8Length(const unsigned char *text, size_t available) {
    const unsigned char lead = text[0];
    size_t length;
    uint32_t codePoint;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        codePoint = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        codePoint = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        codePoint = lead & 0x07u;
    } else {
        return 0;
    }
    if (available < length) return 0;
    for (size_t i = 1; i < length; ++i) {
        if ((text[i] & 0xC0u) != 0x80u) return 0;
        codePoint = (codePoint << 6) | (text[i] & 0x3Fu);
    }
    // Overlong forms, surrogates, U+FFFE/U+FFFF and anything past U+10FFFF.
    if ((length == 3 && codePoint < 0x800) || (length == 4 && codePoint < 0x10000)) return 0;
    if (codePoint >= 0xD800 && codePoint <= 0xDFFF) return 0;
    if (codePoint == 0xFFFE || codePoint == 0xFFFF || codePoint > 0x10FFFF) return 0;
    return length;
}

char *writeCodePoint(char *out, uint32_t codePoint) {
    if (codePoint < 0x800) {
        *out++ = static_cast<char>(0xC0 | (codePoint >> 6));
        *out++ = static_cast<char>(0x80 | (codePoint & 0x3F));
    } else {
        *out++ = static_cast<char>(0xE0 | (codePoint >> 12));
        *out++ = static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
        *out++ = static_cast<char>(0x80 | (codePoint & 0x3F));
    }
    return out;
}

char *writeLiteral(char *out, std::string_view literal) {
    std::memcpy(out, literal.data(), literal.size());
    return out + literal.size();
}

// By byte: whether it is written other than as itself (a control character,
// a byte of UTF-8 to check, or one of XML's five). A table, so that the scan
// of a plain value costs one load and one test per byte.
struct EscapeTable {
    bool escaped[256] = {};
    constexpr EscapeTable() {
        for (int c = 0; c < 256; ++c)
            escaped[c] =
                c < 0x20 || c >= 0x80 || c == '&' || c == '<' || c == '>' || c == '\'' || c == '"';
    }
};
constexpr EscapeTable kEscapeTable;

bool needsEscape(unsigned char c) {
    return kEscapeTable.escaped[c];
}

#if defined(__SSE2__)
// Whether any of 16 bytes needs escaping: the table's test for all of them
// at once. A signed compare below 0x20 takes the control characters and
// every byte of 0x80 or more (negative as signed bytes) together.
bool anyNeedsEscape(__m128i bytes) {
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20)),
                                  _mm_cmpeq_epi8(bytes, _mm_set1_epi8('&'))),
                     _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('<')),
                                               _mm_cmpeq_epi8(bytes, _mm_set1_epi8('>'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('\'')),
                                               _mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')))));
    return _mm_movemask_epi8(special) != 0;
}

// Whether a text of at least 8 bytes is plain (no byte needs escaping),
// read in blocks of 16 that never reach past its end: the last block
// overlaps the one before, and a text shorter than 16 is read as its first
// and last 8 bytes.
bool isPlainText(const unsigned char *bytes, size_t size) {
    if (size < 16) {
        uint64_t first, last;
        std::memcpy(&first, bytes, 8);
        std::memcpy(&last, bytes + size - 8, 8);
        return !anyNeedsEscape(
            _mm_set_epi64x(static_cast<long long>(last), static_cast<long long>(first)));
    }
    for (size_t at = 0; at + 16 < size; at += 16)
        if (anyNeedsEscape(_mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes + at))))
            return false;
    return !anyNeedsEscape(_mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes + size - 16)));
}
#else
// Elsewhere the byte-by-byte scan below does it all.
bool isPlainText(const unsigned char *, size_t) {
    return false;
}
#endif

}  // namespace

HDTRACE_CALL_PATH char *formatInteger(char *out, int64_t value) {
    if (value < 0) {
        *out++ = '-';
        // Negate in unsigned arithmetic so that INT64_MIN works.
        return formatUnsigned(out, 0 - static_cast<uint64_t>(value));
    }
    return formatUnsigned(out, static_cast<uint64_t>(value));
}

HDTRACE_CALL_PATH char *formatRelativeTime(char *out, int64_t nanosecondsSinceBase) {
    uint64_t magnitude = static_cast<uint64_t>(nanosecondsSinceBase);
    if (nanosecondsSinceBase < 0) {
        *out++ = '-';
        magnitude = 0 - magnitude;
    }
    const uint64_t seconds = magnitude / 1000000000;
    const uint32_t fraction = static_cast<uint32_t>(magnitude - seconds * 1000000000);
    if (seconds < 10)  // most times of a trace: no digit count, no loop
        *out++ = static_cast<char>('0' + seconds);
    else
        out = formatUnsigned(out, seconds);
    *out++ = '.';
    // Nine digits by fixed-point steps: y holds fraction / 10^8 with 57 bits
    // after the point, and each multiplication by 100 brings the next two
    // digits above bit 57; one multiplication per pair instead of divisions.
    // Exact for every fraction below 10^9 (checked exhaustively).
    constexpr uint64_t kFractionBits = (uint64_t(1) << 57) - 1;
    uint64_t y = uint64_t(fraction) * ((uint64_t(1) << 57) / 100000000 + 1);
    out[0] = static_cast<char>('0' + (y >> 57));
    y = (y & kFractionBits) * 100;
    std::memcpy(out + 1, kDigitPairs + 2 * (y >> 57), 2);
    y = (y & kFractionBits) * 100;
    std::memcpy(out + 3, kDigitPairs + 2 * (y >> 57), 2);
    y = (y & kFractionBits) * 100;
    std::memcpy(out + 5, kDigitPairs + 2 * (y >> 57), 2);
    y = (y & kFractionBits) * 100;
    std::memcpy(out + 7, kDigitPairs + 2 * (y >> 57), 2);
    return out + 9;
}

char *escapeXml(char *out, std::string_view text) {
    const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
    const size_t size = text.size();
    if (size >= 8 && isPlainText(bytes, size)) {
        // Most values: copied whole.
        std::memcpy(out, text.data(), size);
        return out + size;
    }
    size_t plainStart = 0;
    size_t i = 0;
    while (i < size) {
        const unsigned char c = bytes[i];
        if (!needsEscape(c)) {
            ++i;
            continue;
        }
        std::memcpy(out, text.data() + plainStart, i - plainStart);
        out += i - plainStart;
        if (c >= 0x80) {
            const size_t length = validUtf8Length(bytes + i, size - i);
            if (length > 0) {
                std::memcpy(out, text.data() + i, length);
                out += length;
                i += length;
            } else {
                out = writeCodePoint(out, c);  // Latin-1 reading of a stray byte
                ++i;
            }
            plainStart = i;
            continue;
        }
        switch (c) {
            case '&':
                out = writeLiteral(out, "&amp;");
                break;
            case '<':
                out = writeLiteral(out, "&lt;");
                break;
            case '>':
                out = writeLiteral(out, "&gt;");
                break;
            case '\'':
                out = writeLiteral(out, "&apos;");
                break;
            case '"':
                out = writeLiteral(out, "&quot;");
                break;
            case '\t':
                out = writeLiteral(out, "&#x9;");
                break;
            case '\n':
                out = writeLiteral(out, "&#xA;");
                break;
            case '\r':
                out = writeLiteral(out, "&#xD;");
                break;
            default:
                out = writeCodePoint(out, 0x2400u + c);
                break;  // Control Pictures
        }
        ++i;
        plainStart = i;
    }
    std::memcpy(out, text.data() + plainStart, size - plainStart);
    return out + (size - plainStart);
}

void appendXmlEscaped(std::string &out, std::string_view text) {
    const size_t oldSize = out.size();
    out.resize(oldSize + kMaxEscapedBytesPerByte * text.size());
    char *end = escapeXml(out.data() + oldSize, text);
    out.resize(static_cast<size_t>(end - out.data()));
}

std::string xmlEscaped(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    appendXmlEscaped(out, text);
    return out;
}

}  // namespace hdtrace
