#include <hdtrace/codec/XmlReferences.hpp>

namespace hdtrace {

bool isXmlChar(uint32_t codePoint) {
    return codePoint == 0x9 || codePoint == 0xa || codePoint == 0xd ||
           (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
           (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
           (codePoint >= 0x10000 && codePoint <= 0x10ffff);
}

void appendUtf8(std::string &out, uint32_t codePoint) {
    if (codePoint < 0x80) {
        out.push_back(static_cast<char>(codePoint));
    } else if (codePoint < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (codePoint >> 6)));
        out.push_back(static_cast<char>(0x80 | (codePoint & 0x3f)));
    } else if (codePoint < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (codePoint >> 12)));
        out.push_back(static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (codePoint & 0x3f)));
    } else {
        out.push_back(static_cast<char>(0xf0 | (codePoint >> 18)));
        out.push_back(static_cast<char>(0x80 | ((codePoint >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (codePoint & 0x3f)));
    }
}

bool decodeReference(std::string_view reference, std::string &out) {
    if (reference == "amp") return out.push_back('&'), true;
    if (reference == "lt") return out.push_back('<'), true;
    if (reference == "gt") return out.push_back('>'), true;
    if (reference == "apos") return out.push_back('\''), true;
    if (reference == "quot") return out.push_back('"'), true;
    if (reference.size() < 2 || reference[0] != '#') return false;
    const bool hex = reference[1] == 'x';
    std::string_view digits = reference.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 7) return false;
    uint32_t codePoint = 0;
    for (char digit : digits) {
        uint32_t value;
        if (digit >= '0' && digit <= '9')
            value = static_cast<uint32_t>(digit - '0');
        else if (hex && digit >= 'a' && digit <= 'f')
            value = static_cast<uint32_t>(digit - 'a' + 10);
        else if (hex && digit >= 'A' && digit <= 'F')
            value = static_cast<uint32_t>(digit - 'A' + 10);
        else
            return false;
        codePoint = codePoint * (hex ? 16 : 10) + value;
    }
    if (!isXmlChar(codePoint)) return false;
    appendUtf8(out, codePoint);
    return true;
}

}  // namespace hdtrace
