// Text encoding shared by every HDTrace writer: integers, times and
// XML-escaped strings, appended to a std::string without printf.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hdtrace {

// Largest text formatInteger or formatRelativeTime produces.
constexpr size_t kMaxNumberChars = 32;

// Writes the decimal form of value at out; returns the end of the text.
char *formatInteger(char *out, int64_t value);

// Writes nanosecondsSinceBase as [-]SEC.FRAC with exactly nine digits of FRAC.
char *formatRelativeTime(char *out, int64_t nanosecondsSinceBase);

inline void appendInteger(std::string &out, int64_t value) {
    char text[kMaxNumberChars];
    out.append(text, static_cast<size_t>(formatInteger(text, value) - text));
}

// Appends text escaped for an XML attribute value in single or double quotes
// (also used for names in .info lines). Always produces well-formed UTF-8 XML:
//  - & < > ' " become entity references; tab, LF and CR become character
//    references, so that they survive attribute-value normalisation;
//  - other control characters, which XML 1.0 cannot carry at all, become the
//    matching symbol of the Unicode "Control Pictures" block (U+2400 + c);
//  - bytes that are not valid UTF-8 are taken as Latin-1 (byte 0xE9 becomes
//    U+00E9), so that legacy file names stay readable.
void appendXmlEscaped(std::string &out, std::string_view text);

std::string xmlEscaped(std::string_view text);

// The raw form behind appendXmlEscaped: writes the escaped text at out, which
// must have room for kMaxEscapedBytesPerByte * text.size() bytes, and
// returns the end.
constexpr size_t kMaxEscapedBytesPerByte = 6;  // "&quot;"
char *escapeXml(char *out, std::string_view text);

}  // namespace hdtrace
