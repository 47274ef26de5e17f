#include <sys/stat.h>

#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "CallRecord.hpp"
#include "ColumnReaders.hpp"
#include "CompactXmlText.hpp"
#include "SaxFileParser.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {
namespace {

// The integer in text, or fallback when it is none (numbers too large for
// 64 bits are refused before, by the grammar).
int64_t integerOr(std::string_view text, int64_t fallback) {
    auto value = parseInteger(text);
    return value ? *value : fallback;
}

// The columns sink of the grammar over libxml2 (TraceGrammar.hpp): the
// top-level calls go straight from the SAX attributes into columns, no
// Event is built, and <Nested> blocks (calls inside calls, which the table
// leaves out) are skipped unread. Beyond the grammar's checks, numbers must
// fit the table's 32-bit columns, in a call or below one.
class ColumnHandler {
  public:
    ColumnHandler(EventColumns &columns, const TraceFilter &filter,
                  const LocalToWorldTable *localToWorld)
        : columns_(columns),
          filter_(filter),
          rows_(columns, localToWorld),
          grammar_(*this, filter) {}
    SaxTraceGrammar<ColumnHandler> &grammar() { return grammar_; }
    // Gives the columns their length (rows read); call once after the parse.
    void trimColumns() { rows_.trim(); }

    // The parsing OpenCall::take asks for. Times were read by the grammar.
    IntegerValue integerValue(std::string_view text) const {
        const auto number = parseInteger(text);
        return IntegerValue{number.has_value(), number.value_or(0)};
    }
    bool timeValue(std::string_view attribute, std::string_view, int64_t *nanoseconds) const {
        *nanoseconds = grammar::isStartTime(attribute) ? times_->startNs : times_->endNs;
        return true;
    }

  private:
    friend class SaxTraceGrammar<ColumnHandler>;
    static constexpr bool kTakesEachAttribute = false;  // it reads them from ElementAttributes
    void callLeftOut(int) {}
    bool enterNested(int) { return false; }
    CallStart startCall(std::string_view name, const ElementAttributes &attributes,
                        const grammar::ElementTimes &times);
    void startBelowCall(int depth, std::string_view name, const ElementAttributes &attributes,
                        const grammar::ElementTimes &times);
    void endElement(int depth) {
        if (depth == 2) rows_.finish(call_, completedRids_, openFileName_);
    }
    void startChild(std::string_view name, const ElementAttributes &attributes);
    int32_t nameCode(std::string_view name);
    // Fails (and returns false) when a number is beyond its 32-bit column
    // (whose lowest value is the columns' "no value", kNoValue32).
    bool fitThirtyTwoBitColumns(const ElementAttributes &attributes);

    EventColumns &columns_;
    const TraceFilter &filter_;
    CallRowWriter rows_;
    SaxTraceGrammar<ColumnHandler> grammar_;
    const grammar::ElementTimes *times_ = nullptr;  // of the start tag being read
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

bool ColumnHandler::fitThirtyTwoBitColumns(const ElementAttributes &attributes) {
    for (int index = 0; index < attributes.size(); ++index) {
        const std::string_view name = attributes.name(index);
        if (!isThirtyTwoBitColumn(name)) continue;
        const std::string_view value = attributes.value(index);
        const auto number = parseInteger(value);
        if (number && !withinThirtyTwoBitColumn(*number)) {
            grammar_.parser().fail(grammar::beyondThirtyTwoBits(name, value));
            return false;
        }
    }
    return true;
}

CallStart ColumnHandler::startCall(std::string_view name, const ElementAttributes &attributes,
                                   const grammar::ElementTimes &times) {
    call_ = OpenCall();
    completedRids_.clear();
    call_.nameCode = nameCode(name);
    if (!fitThirtyTwoBitColumns(attributes)) return CallStart::Skip;
    times_ = &times;
    // Every value was checked (the grammar, fitThirtyTwoBitColumns): take cannot refuse one.
    for (int index = 0; index < attributes.size(); ++index)
        call_.take(callAttributeOf(attributes.name(index)), attributes.value(index), *this);
    const CallStart decision = call_.closeStartTag(filter_);
    if (decision != CallStart::Read) return decision;
    call_.sendAndReceive = isSendAndReceiveCall(name);
    call_.isFileOpen = isFileOpenCall(name);
    // The attribute's text lasts only as long as the start tag.
    if (call_.isFileOpen) openFileName_.assign(call_.fileName);
    return decision;
}

// Elements below a call are not in the table (but <For> and <Data>), yet the
// columns refuse what the Event reader refuses in them: the same trace is
// either readable or not, whichever reader is asked.
void ColumnHandler::startBelowCall(int depth, std::string_view name,
                                   const ElementAttributes &attributes,
                                   const grammar::ElementTimes &) {
    if (!fitThirtyTwoBitColumns(attributes)) return;
    if (depth == 3) startChild(name, attributes);
}

void ColumnHandler::startChild(std::string_view name, const ElementAttributes &attributes) {
    const bool isFor = grammar::isCompletion(name), isData = grammar::isDataAccess(name);
    if (!isFor && !isData) return;
    for (int index = 0; index < attributes.size(); ++index) {
        const CallAttribute meaning = callAttributeOf(attributes.name(index));
        const std::string_view value = attributes.value(index);
        if (isFor && meaning == CallAttribute::Request) {
            completedRids_.push_back(integerOr(value, -1));
            return;
        }
        if (isData && (meaning == CallAttribute::Bytes || meaning == CallAttribute::Offset)) {
            const auto number = parseInteger(value);
            if (meaning == CallAttribute::Bytes)
                call_.takeDataSize(number.has_value(), number.value_or(0));
            else
                call_.takeDataOffset(number.has_value(), number.value_or(0));
        }
    }
}

}  // namespace

namespace {

// One parse into result's columns; the parser takes path, the grammar and
// then parserArguments. An InputEndError (of a parse over pieces) goes to
// the caller, who finds out what it is.
template <typename... ParserArguments>
ColumnsResult readWithLibxml2(ColumnsResult result, const std::string &path,
                              const TraceOptions &options, const LocalToWorldTable *localToWorld,
                              ParserArguments &&...parserArguments) {
    ColumnHandler handler(result.columns, options.filter, localToWorld);
    SaxFileParser parser(path, handler.grammar(),
                         std::forward<ParserArguments>(parserArguments)...);
    handler.grammar().setParser(&parser);
    try {
        parser.parseAll();
    } catch (const InputEndError &) {
        throw;
    } catch (const ReadError &error) {
        if (!options.partial) throw;
        result.damage = error.what();
    }
    handler.trimColumns();
    result.timeFractionDigits = handler.grammar().timeFractionDigits();
    return result;
}

}  // namespace

ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld) {
    if (traceFormOf(path) == TraceForm::Compact)
        return readEventColumnsOfCompactXml(path, options, localToWorld,
                                            openCompactSource(path, options));
    ColumnsResult result;
    // Calls take 60 to 150 bytes of XML: reserving for the file's size saves
    // the copies of growing a dozen columns.
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && info.st_size > 0)
        result.columns.reserve(static_cast<size_t>(info.st_size) / 100);
    return readWithLibxml2(std::move(result), path, options, localToWorld);
}

ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld,
                                          std::vector<InputPiece> pieces,
                                          std::function<int(int)> fileLine) {
    return readWithLibxml2(ColumnsResult(), path, options, localToWorld, std::move(pieces),
                           std::move(fileLine));
}

ColumnsResult readEventColumnsOfCompactXml(const std::string &path, const TraceOptions &options,
                                           const LocalToWorldTable *localToWorld,
                                           std::unique_ptr<CompactSource> source) {
    CompactXmlText text(std::move(source));
    ColumnsResult result =
        readWithLibxml2(ColumnsResult(), path, options, localToWorld, textSourceOf(text));
    if (!result.damage && text.source().damage()) result.damage = text.source().damage();
    return result;
}

}  // namespace hdtrace::reader
