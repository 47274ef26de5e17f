#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

#include <hdtrace/InfoLine.hpp>

#include "InfoLine.hpp"

namespace hdtrace::merger {
namespace {

// The attributes of a line after its keyword, split by the .info line codec
// with the spacing older traces have: key=value, key='value' or
// key="value", separated by blanks or tabs. No allocation per attribute.
class AttributeList {
  public:
    AttributeList(std::string_view kind, std::string_view text) : kind_(kind) {
        if (!fields_.splitFields(kind, text, InfoLineFields::Spacing::Tolerant))
            fail(fields_.problem());
    }

    const std::string_view *find(std::string_view key) const { return fields_.find(key); }

    std::string_view required(std::string_view key) const {
        if (const std::string_view *value = find(key)) return *value;
        fail("no '" + std::string(key) + "' attribute");
    }

    int64_t integer(std::string_view key) const { return parseInteger(key, required(key)); }

    std::string unescaped(std::string_view key) const {
        const std::string_view value = required(key);
        try {
            return unescapeInfoValue(value);
        } catch (const InfoSyntaxError &error) {
            fail(std::string(key) + ": " + error.what());
        }
    }

    int64_t parseInteger(std::string_view key, std::string_view text) const {
        int64_t value = 0;
        const char *end = text.data() + text.size();
        const auto [ptr, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || ptr != end)
            fail(std::string(key) + ": '" + std::string(text) + "' is not an integer");
        return value;
    }

    // "a;b;c;" (the last ';' may be missing); "" is the empty list.
    std::vector<int64_t> integerList(std::string_view key) const {
        std::vector<int64_t> values;
        const std::string_view *text = find(key);
        if (!text) return values;
        values.reserve(static_cast<size_t>(std::count(text->begin(), text->end(), ';')) + 1);
        size_t pos = 0;
        while (pos < text->size()) {
            size_t end = text->find(';', pos);
            if (end == std::string_view::npos) end = text->size();
            values.push_back(parseInteger(key, text->substr(pos, end - pos)));
            pos = end + 1;
        }
        return values;
    }

    [[noreturn]] void fail(const std::string &what) const {
        throw InfoSyntaxError(std::string(kind_) + " line: " + what);
    }

  private:
    std::string_view kind_;
    InfoLineFields fields_;
};

int64_t parseRank(std::string_view entry, std::string_view text, const char *role) {
    int64_t value = 0;
    const char *end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (text.empty())
        throw InfoSyntaxError("map entry '" + std::string(entry) + "' has no " + role + " rank");
    // Ranks are C ints; the bound also keeps range arithmetic from overflowing.
    if (error != std::errc() || ptr != end || value < 0 || value > INT32_MAX)
        throw InfoSyntaxError("map entry '" + std::string(entry) + "': '" + std::string(text) +
                              "' is not a " + role + " rank");
    return value;
}

// "a" or "a..b" -> (first, count)
std::pair<int64_t, int64_t> parseRankRange(std::string_view entry, std::string_view text,
                                           const char *role) {
    const size_t dots = text.find("..");
    if (dots == std::string_view::npos) return {parseRank(entry, text, role), 1};
    const int64_t first = parseRank(entry, text.substr(0, dots), role);
    const int64_t last = parseRank(entry, text.substr(dots + 2), role);
    if (last < first)
        throw InfoSyntaxError("map entry '" + std::string(entry) + "': the " + role +
                              " range runs backwards");
    return {first, last - first + 1};
}

struct WorldRun {
    int64_t first;
    int64_t count;
    int64_t stride;
};

// "a", "a..b" or the strided "a..b:s" (a, a+s, ..., b; s may be negative)
WorldRun parseWorldRun(std::string_view entry, std::string_view text) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) {
        const auto [first, count] = parseRankRange(entry, text, "world");
        return {first, count, 1};
    }
    const std::string_view range = text.substr(0, colon);
    const std::string_view strideText = text.substr(colon + 1);
    const size_t dots = range.find("..");
    if (dots == std::string_view::npos)
        throw InfoSyntaxError("map entry '" + std::string(entry) +
                              "': a stride needs a world range 'first..last:stride'");
    const int64_t first = parseRank(entry, range.substr(0, dots), "world");
    const int64_t last = parseRank(entry, range.substr(dots + 2), "world");
    int64_t stride = 0;
    const char *end = strideText.data() + strideText.size();
    const auto [ptr, error] = std::from_chars(strideText.data(), end, stride);
    // Bounded like the ranks, so that no step of the run can overflow.
    if (strideText.empty() || error != std::errc() || ptr != end || stride < -INT32_MAX ||
        stride > INT32_MAX)
        throw InfoSyntaxError("map entry '" + std::string(entry) + "': '" +
                              std::string(strideText) + "' is not a world stride");
    if (stride == 0)
        throw InfoSyntaxError("map entry '" + std::string(entry) + "': the world stride is 0");
    const int64_t distance = last - first;
    if (distance % stride != 0 || distance / stride < 0)
        throw InfoSyntaxError("map entry '" + std::string(entry) + "': world rank " +
                              std::to_string(last) + " is not reached from " +
                              std::to_string(first) + " in steps of " + std::to_string(stride));
    return {first, distance / stride + 1, stride};
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

void parseMpi(const AttributeList &attributes, MpiConstants &out) {
    out.library = attributes.unescaped("library");
    out.orderC = attributes.integer("order_c");
    out.orderFortran = attributes.integer("order_fortran");
    out.distributeBlock = attributes.integer("distribute_block");
    out.distributeCyclic = attributes.integer("distribute_cyclic");
    out.distributeNone = attributes.integer("distribute_none");
    out.distributeDfltDarg = attributes.integer("distribute_dflt_darg");
}

void parseFile(const AttributeList &attributes, FileRecord &out) {
    out.name = attributes.unescaped("name");
    out.size = attributes.integer("Size");
    out.id = attributes.integer("id");
}

void parseComm(const AttributeList &attributes, CommRecord &out) {
    out.id = attributes.integer("id");
    out.name = attributes.unescaped("name");
    try {
        out.map = parseRankMap(attributes.required("map"));
        const std::string_view *remote = attributes.find("remote");
        out.intercommunicator = remote != nullptr;
        out.remote = remote ? parseRankMap(*remote) : RankMap();
    } catch (const InfoSyntaxError &error) {
        attributes.fail(error.what());
    }
}

void parseType(const AttributeList &attributes, TypeRecord &out) {
    out.id = attributes.integer("id");
    const std::string_view combiner = attributes.required("combiner");
    if (!startsWith(combiner, "MPI_COMBINER_") || combiner.size() == 13)
        attributes.fail("combiner '" + std::string(combiner) + "' is not MPI_COMBINER_<X>");
    out.combiner = std::string(combiner.substr(13));
    out.name = attributes.unescaped("name");
    out.integers = attributes.integerList("integers");
    out.addresses = attributes.integerList("addresses");
    out.types = attributes.integerList("types");
    // A predefined type's size and extent; a derived type's size, lb and
    // extent (an lb or extent of a derived type may be negative).
    out.hasLowerBound = attributes.find("lb") != nullptr;
    out.lowerBound = out.hasLowerBound ? attributes.integer("lb") : 0;
    if (out.hasLowerBound) {
        out.size = attributes.integer("size");
        out.extent = attributes.integer("extent");
        if (out.size < 0) attributes.fail("negative size");
    } else {
        out.size = attributes.find("size") ? attributes.integer("size") : -1;
        out.extent = attributes.find("extent") ? attributes.integer("extent") : -1;
        if (out.size < -1 || out.extent < -1) attributes.fail("negative size or extent");
    }
    out.blocks.clear();
    if (const std::string_view *blocks = attributes.find("blocks")) {
        size_t pos = 0;
        while (pos < blocks->size()) {
            size_t end = blocks->find(';', pos);
            if (end == std::string_view::npos) end = blocks->size();
            const std::string_view block = blocks->substr(pos, end - pos);
            const size_t colon = block.find(':');
            if (colon == std::string_view::npos)
                attributes.fail("blocks: '" + std::string(block) + "' is not offset:length");
            const int64_t offset = attributes.parseInteger("blocks", block.substr(0, colon));
            const int64_t length = attributes.parseInteger("blocks", block.substr(colon + 1));
            if (offset < 0 || length <= 0)
                attributes.fail("blocks: '" + std::string(block) + "' is not a block of data");
            out.blocks.emplace_back(offset, length);
            pos = end + 1;
        }
    }
}

void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

}  // namespace

std::string unescapeInfoValue(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        const char c = text[pos];
        if (c != '&') {
            out += c;
            ++pos;
            continue;
        }
        const size_t semicolon = text.find(';', pos);
        if (semicolon == std::string_view::npos || semicolon - pos > 10)
            throw InfoSyntaxError("'&' without an escape sequence in '" + std::string(text) + "'");
        const std::string_view entity = text.substr(pos + 1, semicolon - pos - 1);
        static constexpr std::array<std::pair<std::string_view, char>, 5> kNamed = {
            {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"apos", '\''}, {"quot", '"'}}};
        bool known = false;
        for (const auto &[name, character] : kNamed) {
            if (entity == name) {
                out += character;
                known = true;
                break;
            }
        }
        if (!known && entity.size() > 1 && entity[0] == '#') {
            const bool hex = entity[1] == 'x' || entity[1] == 'X';
            const std::string_view digits = entity.substr(hex ? 2 : 1);
            uint32_t code = 0;
            const char *end = digits.data() + digits.size();
            const auto [ptr, error] = std::from_chars(digits.data(), end, code, hex ? 16 : 10);
            if (!digits.empty() && error == std::errc() && ptr == end && code > 0 &&
                code <= 0x10FFFF) {
                appendUtf8(out, code);
                known = true;
            }
        }
        if (!known)
            throw InfoSyntaxError("unknown escape '&" + std::string(entity) + ";' in '" +
                                  std::string(text) + "'");
        pos = semicolon + 1;
    }
    return out;
}

RankMap parseRankMap(std::string_view text) {
    RankMap map;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find(';', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view entry = text.substr(pos, end - pos);
        pos = end + 1;
        if (entry.empty()) throw InfoSyntaxError("empty map entry in '" + std::string(text) + "'");
        const size_t arrow = entry.find("->");
        if (arrow == std::string_view::npos)
            throw InfoSyntaxError("map entry '" + std::string(entry) + "' has no '->'");
        const WorldRun world = parseWorldRun(entry, entry.substr(0, arrow));
        const auto [local, localCount] = parseRankRange(entry, entry.substr(arrow + 2), "local");
        if (world.count != localCount)
            throw InfoSyntaxError("map entry '" + std::string(entry) +
                                  "': the two ranges differ in length");
        map.push_back({world.first, local, world.count, world.stride});
    }
    return map;
}

void parseInfoLine(std::string_view text, InfoLine &out) {
    out.kind = InfoLine::Kind::Ignored;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    size_t keywordEnd = 0;
    while (keywordEnd < text.size() && text[keywordEnd] != ' ' && text[keywordEnd] != '\t')
        ++keywordEnd;
    const std::string_view keyword = text.substr(0, keywordEnd);
    const std::string_view rest = text.substr(keywordEnd);
    if (keyword == "Mpi") {
        parseMpi(AttributeList(keyword, rest), out.mpi);
        out.kind = InfoLine::Kind::Mpi;
    } else if (keyword == "File") {
        parseFile(AttributeList(keyword, rest), out.file);
        out.kind = InfoLine::Kind::File;
    } else if (keyword == "Comm") {
        parseComm(AttributeList(keyword, rest), out.comm);
        out.kind = InfoLine::Kind::Comm;
    } else if (keyword == "Type") {
        parseType(AttributeList(keyword, rest), out.type);
        out.kind = InfoLine::Kind::Type;
    } else if (!keyword.empty()) {
        // Later versions may add kinds; a keyword that is not even a word is
        // a garbled line, though.
        for (const char c : keyword)
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_'))
                throw InfoSyntaxError("garbled line: '" + std::string(keyword.substr(0, 40)) +
                                      "' is not a line kind");
    }
}

}  // namespace hdtrace::merger
