#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Format.hpp>

namespace hdtrace::compact_items {

namespace {

bool isNameByte(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':';
}

// Bytes the XML escaping writes as they are: printable ASCII but the five
// characters it replaces by references.
bool isPlainValueByte(char c) {
    return c >= 0x20 && c < 0x7f && c != '&' && c != '<' && c != '>' && c != '\'' && c != '"';
}

// Whether text is exactly the decimal form formatInteger gives value.
bool isCanonicalInteger(std::string_view text, int64_t *value) {
    if (text.empty() || text.size() > 20) return false;
    size_t i = text[0] == '-' ? 1 : 0;
    if (i == text.size()) return false;
    uint64_t magnitude = 0;
    for (; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
        const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) return false;
        magnitude = magnitude * 10 + digit;
    }
    const bool negative = text[0] == '-';
    if (negative ? magnitude > uint64_t{1} << 63 : magnitude > uint64_t{INT64_MAX}) return false;
    *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    char formatted[kMaxNumberChars];
    return std::string_view(formatted, static_cast<size_t>(formatInteger(formatted, *value) -
                                                           formatted)) == text;
}

}  // namespace

void putRawAttributes(TextBuffer &out, std::string_view text) {
    // First pass: is it " name='value'" repeated, with plain values?
    struct Pair {
        std::string_view name, value;
    };
    constexpr size_t kMaxPairs = 64;
    Pair pairs[kMaxPairs];
    size_t count = 0;
    size_t i = 0;
    bool canonical = !text.empty();
    while (canonical && i < text.size()) {
        if (count == kMaxPairs || text[i] != ' ') {
            canonical = false;
            break;
        }
        const size_t nameStart = ++i;
        while (i < text.size() && isNameByte(text[i]))
            ++i;
        if (i == nameStart || text.size() - i < 3 || text[i] != '=' || text[i + 1] != '\'') {
            canonical = false;
            break;
        }
        const size_t valueStart = i + 2;
        i = valueStart;
        while (i < text.size() && isPlainValueByte(text[i]))
            ++i;
        if (i == text.size() || text[i] != '\'') {
            canonical = false;
            break;
        }
        pairs[count++] = {text.substr(nameStart, valueStart - 2 - nameStart),
                          text.substr(valueStart, i - valueStart)};
        ++i;
    }
    if (!canonical) {
        putText(out, compact::kRaw, std::string_view(), text);
        return;
    }
    for (size_t pair = 0; pair < count; ++pair) {
        int64_t value;
        if (isCanonicalInteger(pairs[pair].value, &value))
            putNumber(out, compact::kInteger, pairs[pair].name, value);
        else
            putText(out, compact::kText, pairs[pair].name, pairs[pair].value);
    }
}

}  // namespace hdtrace::compact_items
