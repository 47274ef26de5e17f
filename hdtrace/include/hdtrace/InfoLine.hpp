// The .info line codec: one line kind's fields, in the order and with the
// quoting that format/dialect.toml defines (the tables are generated from
// it), written by InfoLineWriter and split by InfoLineFields. The writer and
// the readers share it, so that a line kind is spelled in one place.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hdtrace {

struct InfoFieldSpec {
    std::string_view name;
    char quote;  // '\'', '"', or '\0' for a value written without quotes
    bool optional;
};

struct InfoLineSpec {
    std::string_view keyword;
    const InfoFieldSpec *fields;
    size_t count;
};

// The definition of the line kind with this keyword, or null.
const InfoLineSpec *infoLineSpec(std::string_view keyword);

// Appends one line to out: the keyword, then each field as ` name=value`
// with the definition's quotes, in the definition's order; end() adds the
// newline. A field left out must be optional (omit()); a program that
// writes a line its kind does not define is wrong, and throws
// std::logic_error. Values are written as given: a text that may hold the
// quote character is escaped by the caller.
class InfoLineWriter {
  public:
    InfoLineWriter(std::string &out, std::string_view keyword);
    InfoLineWriter &integer(int64_t value);
    InfoLineWriter &text(std::string_view value);
    // The next field's value, appended to the line by append(std::string &)
    // (escaping, or a long list built in place).
    template <class Append>
    InfoLineWriter &appended(Append &&append) {
        open();
        append(out_);
        close();
        return *this;
    }
    InfoLineWriter &omit();
    // Adds the newline when asked to; every field must have been written or omitted.
    void end(bool newline = true);

  private:
    void open();
    void close();

    std::string &out_;
    const InfoLineSpec &spec_;
    size_t next_ = 0;
};

// The fields of one line, split without allocating: the keyword, then
// name=value fields, a value in single or double quotes or up to the next
// blank. The views point into the line. Exact spacing is what the writer
// writes (one blank before each field, none at the end); tolerant spacing
// is what readers of older traces accept (runs of blanks and tabs).
class InfoLineFields {
  public:
    static constexpr size_t kMaxFields = 24;
    enum class Spacing { Exact, Tolerant };

    struct Field {
        std::string_view name;
        std::string_view value;
        char quote;  // as written: '\'', '"' or '\0'
    };

    // false when the text is not a keyword and fields (problem() says why).
    bool split(std::string_view line, Spacing spacing = Spacing::Exact);
    // The same for the text after a keyword the caller has split off.
    bool splitFields(std::string_view keyword, std::string_view text, Spacing spacing);
    // false when the fields are not those the definition gives the keyword's
    // kind, in its order and with its quotes (problem() says why).
    bool conforms();

    std::string_view keyword() const { return keyword_; }
    size_t size() const { return count_; }
    const Field &operator[](size_t index) const { return fields_[index]; }
    // The value of the field with this name, or null.
    const std::string_view *find(std::string_view name) const;
    const std::string &problem() const { return problem_; }

  private:
    bool fail(std::string problem);

    std::string_view keyword_;
    std::array<Field, kMaxFields> fields_{};
    size_t count_ = 0;
    std::string problem_;
};

}  // namespace hdtrace
