// XmlReferences: the character and entity references of XML attribute
// values, decoded as an XML parser decodes them. Shared by the readers that
// do without libxml2 (the dialect scanner, the compact record decoder).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hdtrace {

// Whether codePoint is a character XML 1.0 allows.
bool isXmlChar(uint32_t codePoint);
void appendUtf8(std::string &out, uint32_t codePoint);
// Decodes the reference text between '&' and ';' (amp, lt, gt, apos, quot,
// #N, #xN) into out; false when it is none of them or names a character
// XML does not allow.
bool decodeReference(std::string_view reference, std::string &out);

}  // namespace hdtrace
