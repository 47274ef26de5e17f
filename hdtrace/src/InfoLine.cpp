#include <algorithm>
#include <stdexcept>
#include <utility>

#include <hdtrace/Format.hpp>
#include <hdtrace/InfoLine.hpp>

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

bool InfoLineFields::split(std::string_view line) {
    count_ = 0;
    const size_t blank = line.find(' ');
    keyword_ = line.substr(0, blank);
    if (keyword_.empty()) return fail("no keyword");
    size_t pos = blank;
    while (pos != std::string_view::npos && pos < line.size()) {
        ++pos;  // the one blank before a field
        const size_t equals = line.find('=', pos);
        if (equals == std::string_view::npos || equals == pos ||
            line.substr(pos, equals - pos).find(' ') != std::string_view::npos)
            return fail("'" + std::string(line.substr(pos)) + "' is not a field name=value");
        if (count_ == kMaxFields) return fail("more than 16 fields");
        Field &field = fields_[count_++];
        field.name = line.substr(pos, equals - pos);
        pos = equals + 1;
        field.quote =
            pos < line.size() && (line[pos] == '\'' || line[pos] == '"') ? line[pos] : '\0';
        if (field.quote) {
            const size_t closing = line.find(field.quote, pos + 1);
            if (closing == std::string_view::npos)
                return fail("the value of " + std::string(field.name) + " has no closing quote");
            field.value = line.substr(pos + 1, closing - pos - 1);
            pos = closing + 1;
            if (pos < line.size() && line[pos] != ' ')
                return fail("no blank after the value of " + std::string(field.name));
        } else {
            const size_t end = std::min(line.find(' ', pos), line.size());
            field.value = line.substr(pos, end - pos);
            pos = end;
        }
        if (pos + 1 == line.size()) return fail("a blank at the end of the line");
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
