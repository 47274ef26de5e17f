#include <algorithm>
#include <stdexcept>
#include <utility>

#include <hdtrace/InfoLine.hpp>
#include <hdtrace/codec/Format.hpp>

namespace hdtrace {
namespace {

// kInfoLineSpecs and the fields of each kind, from format/dialect.toml.
#include "InfoLineKinds.inc"

const InfoLineSpec &requireSpec(std::string_view keyword) {
    if (const InfoLineSpec *spec = infoLineSpec(keyword)) return *spec;
    throw std::logic_error("the dialect defines no .info line " + std::string(keyword));
}

}  // namespace

const InfoLineSpec *infoLineSpec(std::string_view keyword) {
    for (const InfoLineSpec &spec : kInfoLineSpecs)
        if (spec.keyword == keyword) return &spec;
    return nullptr;
}

InfoLineWriter::InfoLineWriter(std::string &out, std::string_view keyword)
    : out_(out), spec_(requireSpec(keyword)) {
    out_ += spec_.keyword;
}

void InfoLineWriter::open() {
    if (next_ >= spec_.count)
        throw std::logic_error(std::string(spec_.keyword) + " line: more fields than defined");
    const InfoFieldSpec &field = spec_.fields[next_];
    out_ += ' ';
    out_ += field.name;
    out_ += '=';
    if (field.quote) out_ += field.quote;
}

void InfoLineWriter::close() {
    const char quote = spec_.fields[next_++].quote;
    if (quote) out_ += quote;
}

InfoLineWriter &InfoLineWriter::integer(int64_t value) {
    open();
    appendInteger(out_, value);
    close();
    return *this;
}

InfoLineWriter &InfoLineWriter::text(std::string_view value) {
    open();
    out_ += value;
    close();
    return *this;
}

InfoLineWriter &InfoLineWriter::omit() {
    if (next_ >= spec_.count || !spec_.fields[next_].optional)
        throw std::logic_error(std::string(spec_.keyword) + " line: a required field left out");
    ++next_;
    return *this;
}

void InfoLineWriter::end(bool newline) {
    while (next_ < spec_.count)
        omit();
    if (newline) out_ += '\n';
}

bool InfoLineFields::fail(std::string problem) {
    problem_ = std::move(problem);
    return false;
}

bool InfoLineFields::split(std::string_view line, Spacing spacing) {
    const size_t keywordEnd = std::min(
        line.find_first_of(spacing == Spacing::Exact ? std::string_view(" ") : " \t"), line.size());
    const std::string_view keyword = line.substr(0, keywordEnd);
    if (keyword.empty()) {
        count_ = 0;
        return fail("no keyword");
    }
    return splitFields(keyword, line.substr(keywordEnd), spacing);
}

bool InfoLineFields::splitFields(std::string_view keyword, std::string_view text, Spacing spacing) {
    const bool exact = spacing == Spacing::Exact;
    const auto isBlank = [exact](char c) { return c == ' ' || (!exact && c == '\t'); };
    keyword_ = keyword;
    count_ = 0;
    size_t pos = 0;
    while (true) {
        if (exact) {
            if (pos >= text.size()) break;
            if (text[pos] != ' ')
                return fail("no blank before '" + std::string(text.substr(pos)) + "'");
            if (++pos == text.size()) return fail("a blank at the end of the line");
        } else {
            while (pos < text.size() && isBlank(text[pos]))
                ++pos;
            if (pos >= text.size()) break;
        }
        const size_t nameStart = pos;
        while (pos < text.size() && text[pos] != '=' && !isBlank(text[pos]))
            ++pos;
        const std::string_view name = text.substr(nameStart, pos - nameStart);
        if (pos >= text.size() || text[pos] != '=' || (exact && name.empty()))
            return fail("'" + std::string(name) + "' is not of the form key=value");
        ++pos;
        const char quote =
            pos < text.size() && (text[pos] == '\'' || text[pos] == '"') ? text[pos] : '\0';
        std::string_view value;
        if (quote) {
            const size_t closing = text.find(quote, pos + 1);
            if (closing == std::string_view::npos)
                return fail("the value of '" + std::string(name) +
                            "' has no closing quote (truncated line?)");
            value = text.substr(pos + 1, closing - pos - 1);
            pos = closing + 1;
            if (pos < text.size() && !isBlank(text[pos]))
                return fail("no blank after the value of '" + std::string(name) + "'");
        } else {
            const size_t start = pos;
            while (pos < text.size() && !isBlank(text[pos]))
                ++pos;
            value = text.substr(start, pos - start);
        }
        if (find(name)) return fail("'" + std::string(name) + "' appears twice");
        if (count_ == kMaxFields)
            return fail("more than " + std::to_string(kMaxFields) + " fields");
        fields_[count_++] = Field{name, value, quote};
    }
    return true;
}

bool InfoLineFields::conforms() {
    const InfoLineSpec *spec = infoLineSpec(keyword_);
    if (!spec) return fail("no line kind " + std::string(keyword_));
    size_t at = 0;
    for (size_t i = 0; i < count_; ++i) {
        while (at < spec->count && spec->fields[at].name != fields_[i].name &&
               spec->fields[at].optional)
            ++at;
        if (at == spec->count || spec->fields[at].name != fields_[i].name)
            return fail(std::string(fields_[i].name) + " is not the next field of a " +
                        std::string(keyword_) + " line");
        if (spec->fields[at].quote != fields_[i].quote)
            return fail(std::string(fields_[i].name) + " is not quoted as defined");
        ++at;
    }
    for (; at < spec->count; ++at)
        if (!spec->fields[at].optional)
            return fail("no " + std::string(spec->fields[at].name) + " field");
    return true;
}

const std::string_view *InfoLineFields::find(std::string_view name) const {
    for (size_t i = 0; i < count_; ++i)
        if (fields_[i].name == name) return &fields_[i].value;
    return nullptr;
}

}  // namespace hdtrace
