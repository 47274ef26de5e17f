#include <sys/stat.h>

#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "CallRecord.hpp"
#include "ColumnReaders.hpp"
#include "DecimalNumber.hpp"
#include "SaxFileParser.hpp"

namespace hdtrace::reader {
namespace {

// The integer in text, or fallback when it is none (numbers too large for
// 64 bits are refused before, by numbersFit).
int64_t integerOr(std::string_view text, int64_t fallback) {
    auto value = parseInteger(text);
    return value ? *value : fallback;
}

// Reads the top-level calls of a trace straight from the SAX attributes into
// columns: no Event is built, and <Nested> blocks (calls inside calls, which
// the table leaves out) are skipped unread; other elements below a call are
// checked as the Event reader checks them. Same structure and filters as
// TraceParser.
class ColumnHandler : public SaxHandler {
  public:
    ColumnHandler(EventColumns &columns, const TraceFilter &filter,
                  const LocalToWorldTable *localToWorld)
        : columns_(columns), filter_(filter), rows_(columns, localToWorld) {}
    void setParser(SaxFileParser *parser) { parser_ = parser; }
    int timeFractionDigits() const { return timeFractionDigits_; }
    // Gives the columns their length (rows read); call once after the parse.
    void trimColumns() { rows_.trim(); }

    void startElement(std::string_view name, const AttributeList &attributes) override;
    void endElement(std::string_view name) override;

    // The parsing OpenCall::take asks for.
    IntegerValue integerValue(std::string_view text) const {
        const auto number = parseInteger(text);
        return IntegerValue{number.has_value(), number.value_or(0)};
    }
    bool timeValue(std::string_view attribute, std::string_view text, int64_t *nanoseconds) {
        return parseTime(attribute, text, nanoseconds);
    }

  private:
    void startCall(std::string_view name, const AttributeList &attributes);
    void startChild(std::string_view name, const AttributeList &attributes);
    bool checkBelowCall(const AttributeList &attributes);
    bool parseTime(std::string_view name, std::string_view text, int64_t *nanoseconds);
    int32_t nameCode(std::string_view name);
    // Fails (and returns false) when a number attribute does not fit in 64 bits.
    bool numbersFit(const AttributeList &attributes);

    EventColumns &columns_;
    const TraceFilter &filter_;
    CallRowWriter rows_;
    SaxFileParser *parser_ = nullptr;
    int depth_ = 0;
    int skipBelowDepth_ = 0;
    int64_t timeAdjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    OpenCall call_;
    std::vector<int64_t> completedRids_;  // of <For rid=.../> children
    std::string openFileName_;
    // libxml2 interns element names, so a name's text pointer identifies it.
    // Both look-ups are hashed: the work stays linear in the number of calls
    // even with many distinct names.
    std::unordered_map<const char *, int32_t> codeByPointer_;
    std::unordered_map<std::string, int32_t> codeByName_;
};

int32_t ColumnHandler::nameCode(std::string_view name) {
    if (auto found = codeByPointer_.find(name.data()); found != codeByPointer_.end())
        return found->second;
    auto [entry, added] =
        codeByName_.try_emplace(std::string(name), static_cast<int32_t>(columns_.names.size()));
    if (added) columns_.names.emplace_back(name);
    codeByPointer_.emplace(name.data(), entry->second);
    return entry->second;
}

bool ColumnHandler::numbersFit(const AttributeList &attributes) {
    for (int index = 0; index < attributes.size(); ++index) {
        std::string_view name = attributes.name(index);
        std::string_view value = attributes.value(index);
        if (isNumberAttribute(name) && isOutOfRangeInteger(value)) {
            parser_->fail("attribute " + std::string(name) + "='" + std::string(value) +
                          "' does not fit in 64 bits");
            return false;
        }
        // The lowest int32 is the columns' "no value" (kNoValue32).
        auto number = parseInteger(value);
        if (number && isThirtyTwoBitColumn(name) && !withinThirtyTwoBitColumn(*number)) {
            parser_->fail("attribute " + std::string(name) + "='" + std::string(value) +
                          "' does not fit in 32 bits");
            return false;
        }
    }
    return true;
}

bool ColumnHandler::parseTime(std::string_view name, std::string_view text, int64_t *nanoseconds) {
    auto parsed = parseDecimalSeconds(text);
    if (!parsed) {
        parser_->fail("attribute " + std::string(name) + "='" + std::string(text) +
                      "' is not a time in seconds");
        return false;
    }
    auto absolute = addTimes(timeAdjustmentNs_, parsed->nanoseconds);
    if (!absolute) {
        parser_->fail("attribute " + std::string(name) + "='" + std::string(text) +
                      "' plus timeAdjustment overflows 64-bit nanoseconds");
        return false;
    }
    if (timeFractionDigits_ < 0) timeFractionDigits_ = parsed->fractionDigits;
    *nanoseconds = *absolute;
    return true;
}

void ColumnHandler::startElement(std::string_view name, const AttributeList &attributes) {
    ++depth_;
    if (skipBelowDepth_ > 0) return;
    if (depth_ == 1) {
        TraceParser::startProgram(*parser_, name, attributes, &timeAdjustmentNs_);
    } else if (depth_ == 2) {
        startCall(name, attributes);
    } else if (name == "Nested") {
        skipBelowDepth_ = depth_;  // calls inside calls are not in the table: skipped unread
    } else {
        if (!checkBelowCall(attributes)) return;
        if (depth_ == 3) startChild(name, attributes);
    }
}

// Elements below a call are not in the table (but <For> and <Data>), yet the
// columns refuse what the Event reader refuses in them: the same trace is
// either readable or not, whichever reader is asked.
bool ColumnHandler::checkBelowCall(const AttributeList &attributes) {
    if (!numbersFit(attributes)) return false;
    std::string_view value;
    int64_t unused = 0;
    if (attributes.find("time", &value) && !parseTime("time", value, &unused)) return false;
    if (attributes.find("end", &value) && !parseTime("end", value, &unused)) return false;
    return true;
}

void ColumnHandler::startCall(std::string_view name, const AttributeList &attributes) {
    if (isSkippedCall(name, filter_)) {
        skipBelowDepth_ = depth_;
        return;
    }
    call_ = OpenCall();
    completedRids_.clear();
    call_.nameCode = nameCode(name);
    if (!numbersFit(attributes)) return;
    for (int index = 0; index < attributes.size(); ++index) {
        const std::string_view attribute = attributes.name(index);
        const std::string_view value = attributes.value(index);
        // Numbers out of range were refused above (numbersFit).
        const bool taken = call_.take(callAttributeOf(attribute), value, *this);
        if (!taken) return;  // a time that is none: the parser has failed
    }
    switch (call_.closeStartTag(filter_)) {
        case CallStart::Stop:
            parser_->stop();
            return;
        case CallStart::Skip:
            skipBelowDepth_ = depth_;
            return;
        case CallStart::Read:
            break;
    }
    call_.sendAndReceive = isSendAndReceiveCall(name);
    call_.isFileOpen = isFileOpenCall(name);
    // The attribute's text lasts only as long as the start tag.
    if (call_.isFileOpen) openFileName_.assign(call_.fileName);
}

void ColumnHandler::startChild(std::string_view name, const AttributeList &attributes) {
    std::string_view value;
    if (name == "For") {
        if (attributes.find("rid", &value)) completedRids_.push_back(integerOr(value, -1));
    } else if (name == "Data") {
        if (attributes.find("size", &value)) {
            const auto number = parseInteger(value);
            call_.takeDataSize(number.has_value(), number.value_or(0));
        }
        if (attributes.find("offset", &value)) {
            const auto number = parseInteger(value);
            call_.takeDataOffset(number.has_value(), number.value_or(0));
        }
    }
}

void ColumnHandler::endElement(std::string_view) {
    int depth = depth_--;
    if (skipBelowDepth_ > 0) {
        if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
        return;
    }
    if (depth == 2) rows_.finish(call_, completedRids_, openFileName_);
}

}  // namespace

ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld) {
    ColumnsResult result;
    // Calls take 60 to 150 bytes of XML: reserving for the file's size saves
    // the copies of growing a dozen columns.
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && info.st_size > 0)
        result.columns.reserve(static_cast<size_t>(info.st_size) / 100);
    ColumnHandler handler(result.columns, options.filter, localToWorld);
    SaxFileParser parser(path, handler);
    handler.setParser(&parser);
    try {
        parser.parseAll();
    } catch (const ReadError &error) {
        if (!options.partial) throw;
        result.damage = error.what();
    }
    handler.trimColumns();
    result.timeFractionDigits = handler.timeFractionDigits();
    return result;
}

ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld,
                                          std::vector<InputPiece> pieces,
                                          std::function<int(int)> fileLine) {
    ColumnsResult result;
    ColumnHandler handler(result.columns, options.filter, localToWorld);
    SaxFileParser parser(path, handler, std::move(pieces), std::move(fileLine));
    handler.setParser(&parser);
    try {
        parser.parseAll();
    } catch (const InputEndError &) {
        throw;  // the caller finds out what it is
    } catch (const ReadError &error) {
        if (!options.partial) throw;
        result.damage = error.what();
    }
    handler.trimColumns();
    result.timeFractionDigits = handler.timeFractionDigits();
    return result;
}

}  // namespace hdtrace::reader
