// The columns of a compact trace, straight from its typed records: the
// integers and times the decoder hands over go into the columns without
// being written as text and parsed back. The rules are the XML column
// readers' (CallRecord.hpp), and where a value would need the XML
// grammar's checks of text (a time or number written as text through the
// C API, a number beyond its 32-bit column, a Program without frames)
// this reader stops and the trace is read again as its XML form, rendered
// frame by frame, by libxml2, which gives the same columns or words the
// same error as for the XML trace (ColumnsResult::fallback says why).
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <hdtrace/codec/Format.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "CallRecord.hpp"
#include "ColumnReaders.hpp"
#include "CompactSource.hpp"
#include "CompactXmlText.hpp"
#include "SaxFileParser.hpp"

namespace hdtrace::reader {
namespace {

// Why the typed read gave the trace to the XML form's reader.
struct Unrecognised {
    std::string reason;
};
// The time window ended: no later call is read.
struct WindowEnded {};

// What the columns need of an element, worked out from its name and its
// attributes' names and kinds: once per static shape (every element of one
// static shape has the same), per element for the others.
struct ElementPlan {
    enum class Child { Other, Completion, DataAccess };
    bool known = false;  // a static shape's plan once worked out
    bool nestedBlock = false;
    bool wanted = false;  // as a call: the filter keeps its name
    bool sendAndReceive = false;
    bool isFileOpen = false;
    Child child = Child::Other;
    // checkTexts() can refuse such an element (a time typed as text, a
    // typed time elsewhere, a text in a number attribute): it runs on each.
    bool checksTexts = false;
    // Every value the columns take is typed as they need it (integers,
    // times, a text for a file name): a static shape's elements are then
    // read from their values alone (startStaticElement).
    bool typed = false;
    int32_t nameCode = -1;                // as a call, once known
    std::vector<CallAttribute> meanings;  // by attribute index
    // The attributes the table reads: index and meaning.
    std::vector<std::pair<int, CallAttribute>> read;
    int firstTime = -1;              // index of the first time or end the table reads
    std::vector<int> thirtyTwoBit;   // indexes of 32-bit column values
    int rid = -1;                    // a completion's first rid
    std::vector<int> sizeAndOffset;  // a data access's size and offset, in order
    std::vector<bool> isSize;        // by sizeAndOffset: size (else offset)
};

// The plans of the static shapes a trace meets, by shape. A trace meets a
// few of the shapes: a plan for every one (some 50 KB) was made and zeroed
// for each trace of a run's many small ones.
class PlansByShape {
  public:
    PlansByShape() : planOf_(compact::staticShapeCount(), nullptr) {}
    // The shape's plan, made (not yet worked out) when first asked for.
    ElementPlan &operator[](size_t shape) {
        ElementPlan *&plan = planOf_[shape];
        if (!plan) plan = &plans_.emplace_back();
        return *plan;
    }

  private:
    std::vector<ElementPlan *> planOf_;
    std::deque<ElementPlan> plans_;  // a plan stays where it is as others are added
};

// One attribute of the element being read, as OpenCall::take gets it.
struct CompactValue {
    const CompactAttributes *attributes;
    int index;
};
// One value of a static element whose plan is typed: where its number and
// its text are, read only as the attribute's meaning asks.
struct TypedValue {
    const int64_t *number;  // integers; times as nanoseconds after timeAdjustment
    const std::string_view *text;
};

// The attributes of a static shape, as workOutPlan reads an element's.
class StaticShapeAttributes {
  public:
    explicit StaticShapeAttributes(uint32_t shape) : shape_(compact::staticShapes()[shape]) {}
    int size() const { return static_cast<int>(shape_.count); }
    std::string_view name(int index) const { return attribute(index).name; }
    CompactAttributes::Kind kind(int index) const {
        const uint8_t coding = attribute(index).coding;
        if (coding == compact::kText || coding == compact::kRaw)
            return CompactAttributes::Kind::Text;
        if (coding == compact::kTime || coding == compact::kEnd)
            return CompactAttributes::Kind::Time;
        return CompactAttributes::Kind::Integer;
    }

  private:
    const compact::ShapeAttribute &attribute(int index) const {
        return shape_.attributes[static_cast<size_t>(index)];
    }
    const compact::StaticShape &shape_;
};

class CompactColumnBuilder final : public CompactHandler {
  public:
    CompactColumnBuilder(EventColumns &columns, const TraceFilter &filter,
                         const LocalToWorldTable *localToWorld)
        : columns_(columns),
          filter_(filter),
          hasTimeWindow_(filter.hasTimeWindow()),
          rows_(columns, localToWorld) {}
    void trimColumns() { rows_.trim(); }
    int timeFractionDigits() const { return timeFractionDigits_; }

    static constexpr bool kTakesStaticElements = true;
    void startElement(std::string_view name, const CompactAttributes &attributes) override;
    // Elements of a static shape whose plan is typed, without an attribute
    // list; false for the others (startElement then gets them).
    bool startStaticElement(std::string_view name, const StaticElement &element);
    void endElement(std::string_view name) override;

    // The values OpenCall::take asks for.
    IntegerValue integerValue(const CompactValue &value) const {
        const CompactAttributes &attributes = *value.attributes;
        if (attributes.kind(value.index) == CompactAttributes::Kind::Integer)
            return IntegerValue{true, attributes.integer(value.index)};
        const auto number = parseInteger(attributes.value(value.index));
        return IntegerValue{number.has_value(), number.value_or(0)};
    }
    bool timeValue(std::string_view, const CompactValue &value, int64_t *nanoseconds) const {
        // Only typed times get here (takeCall): relative to timeAdjustment.
        const auto absolute = addTimes(adjustmentNs_, value.attributes->integer(value.index));
        if (!absolute) throw Unrecognised{"a time beyond 64-bit nanoseconds"};
        *nanoseconds = *absolute;
        return true;
    }
    std::string_view textOf(const CompactValue &value) const {
        return value.attributes->value(value.index);
    }
    IntegerValue integerValue(const TypedValue &value) const {
        return IntegerValue{true, *value.number};
    }
    bool timeValue(std::string_view, const TypedValue &value, int64_t *nanoseconds) const {
        const auto absolute = addTimes(adjustmentNs_, *value.number);
        if (!absolute) throw Unrecognised{"a time beyond 64-bit nanoseconds"};
        *nanoseconds = *absolute;
        return true;
    }
    std::string_view textOf(const TypedValue &value) const { return *value.text; }

  private:
    void startProgram(const CompactAttributes &attributes);
    // The plan of this element: a static shape's, worked out at its first
    // element, or one worked out for this element alone.
    ElementPlan &planOf(std::string_view name, const CompactAttributes &attributes);
    // Attributes: CompactAttributes or StaticShapeAttributes.
    template <class Attributes>
    void workOutPlan(std::string_view name, const Attributes &attributes, ElementPlan &plan) const;
    void takeCall(std::string_view name, const CompactAttributes &attributes, ElementPlan &plan);
    void takeStaticCall(std::string_view name, const StaticElement &element, ElementPlan &plan);
    // After a call's attributes: whether it is read (the filter's window).
    void closeCall(const ElementPlan &plan);
    void takeStaticChild(const StaticElement &element, const ElementPlan &plan);
    // The XML grammar's checks of an element's attributes that typed values
    // cannot fail; an attribute written as text is checked as text.
    void checkTexts(const CompactAttributes &attributes) const;
    // Numbers must fit the 32-bit columns in a call and below it.
    void checkThirtyTwoBitColumns(const CompactAttributes &attributes,
                                  const ElementPlan &plan) const;
    void takeChild(const CompactAttributes &attributes, const ElementPlan &plan);
    void noteFractionDigits(const CompactAttributes &attributes, int index);
    void noteFractionDigits(std::string_view timeText);
    int32_t nameCode(std::string_view name);

    EventColumns &columns_;
    const TraceFilter &filter_;
    const bool hasTimeWindow_;
    CallRowWriter rows_;
    int depth_ = 0;
    int skipBelowDepth_ = 0;  // > 0: everything deeper is skipped
    int64_t adjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    OpenCall call_;
    std::vector<int64_t> completedRids_;
    std::string openFileName_;
    std::unordered_map<std::string, int32_t> codeByName_;
    std::string lastName_;  // the name looked up last, and its code
    int32_t lastCode_ = -1;
    PlansByShape staticPlans_;
    ElementPlan otherPlan_;  // reused for elements of other shapes
};

const OpenCall kFreshCall{};

int32_t CompactColumnBuilder::nameCode(std::string_view name) {
    if (lastCode_ >= 0 && name == lastName_) return lastCode_;
    auto [entry, added] =
        codeByName_.try_emplace(std::string(name), static_cast<int32_t>(columns_.names.size()));
    if (added) columns_.names.emplace_back(name);
    lastName_.assign(name);
    lastCode_ = entry->second;
    return lastCode_;
}

void CompactColumnBuilder::noteFractionDigits(const CompactAttributes &attributes, int index) {
    if (timeFractionDigits_ >= 0) return;
    noteFractionDigits(attributes.value(index));
}

void CompactColumnBuilder::noteFractionDigits(std::string_view timeText) {
    const size_t point = timeText.find('.');
    timeFractionDigits_ =
        point == std::string_view::npos ? 0 : static_cast<int>(timeText.size() - point - 1);
}

void CompactColumnBuilder::checkTexts(const CompactAttributes &attributes) const {
    for (int index = 0; index < attributes.size(); ++index) {
        const std::string_view name = attributes.name(index);
        const CompactAttributes::Kind kind = attributes.kind(index);
        if (grammar::isTime(name)) {
            if (kind != CompactAttributes::Kind::Time) throw Unrecognised{"a time written as text"};
        } else if (kind == CompactAttributes::Kind::Time) {
            throw Unrecognised{"a time in an attribute other than time and end"};
        } else if (kind == CompactAttributes::Kind::Text && isNumberAttribute(name) &&
                   isOutOfRangeInteger(attributes.value(index))) {
            throw Unrecognised{"a number beyond 64 bits"};
        }
    }
}

template <class Attributes>
void CompactColumnBuilder::workOutPlan(std::string_view name, const Attributes &attributes,
                                       ElementPlan &plan) const {
    plan.nestedBlock = grammar::isNestedBlock(name);
    plan.wanted = grammar::nameWanted(filter_, name);
    plan.sendAndReceive = isSendAndReceiveCall(name);
    plan.isFileOpen = isFileOpenCall(name);
    plan.child = grammar::isCompletion(name)   ? ElementPlan::Child::Completion
                 : grammar::isDataAccess(name) ? ElementPlan::Child::DataAccess
                                               : ElementPlan::Child::Other;
    plan.checksTexts = false;
    plan.nameCode = -1;
    plan.meanings.clear();
    plan.read.clear();
    plan.firstTime = -1;
    plan.thirtyTwoBit.clear();
    plan.rid = -1;
    plan.sizeAndOffset.clear();
    plan.isSize.clear();
    for (int index = 0; index < attributes.size(); ++index) {
        const std::string_view attribute = attributes.name(index);
        const CompactAttributes::Kind kind = attributes.kind(index);
        const bool typedTime = kind == CompactAttributes::Kind::Time;
        if (grammar::isTime(attribute) != typedTime ||
            (kind == CompactAttributes::Kind::Text && isNumberAttribute(attribute)))
            plan.checksTexts = true;
        const CallAttribute meaning = callAttributeOf(attribute);
        plan.meanings.push_back(meaning);
        if (meaning != CallAttribute::Other) plan.read.emplace_back(index, meaning);
        if ((meaning == CallAttribute::Time || meaning == CallAttribute::End) && plan.firstTime < 0)
            plan.firstTime = index;
        if (isThirtyTwoBitColumn(attribute)) plan.thirtyTwoBit.push_back(index);
        if (meaning == CallAttribute::Request && plan.rid < 0) plan.rid = index;
        if (meaning == CallAttribute::Bytes || meaning == CallAttribute::Offset) {
            plan.sizeAndOffset.push_back(index);
            plan.isSize.push_back(meaning == CallAttribute::Bytes);
        }
    }
    const auto isText = [&attributes](int index) {
        return attributes.kind(index) == CompactAttributes::Kind::Text;
    };
    plan.typed = !plan.checksTexts && (plan.rid < 0 || !isText(plan.rid));
    for (int index = 0; index < attributes.size(); ++index) {
        const CallAttribute meaning = plan.meanings[static_cast<size_t>(index)];
        if (meaning == CallAttribute::OpenedName ? !isText(index)
                                                 : meaning != CallAttribute::Other && isText(index))
            plan.typed = false;
    }
    for (const std::vector<int> *indexes : {&plan.thirtyTwoBit, &plan.sizeAndOffset})
        for (const int index : *indexes)
            if (isText(index)) plan.typed = false;
}

ElementPlan &CompactColumnBuilder::planOf(std::string_view name,
                                          const CompactAttributes &attributes) {
    const int shape = attributes.staticShape();
    if (shape < 0) {
        workOutPlan(name, attributes, otherPlan_);
        return otherPlan_;
    }
    ElementPlan &plan = staticPlans_[static_cast<size_t>(shape)];
    if (!plan.known) {
        workOutPlan(name, attributes, plan);
        plan.known = true;
    }
    return plan;
}

void CompactColumnBuilder::checkThirtyTwoBitColumns(const CompactAttributes &attributes,
                                                    const ElementPlan &plan) const {
    for (const int index : plan.thirtyTwoBit) {
        const IntegerValue number = integerValue(CompactValue{&attributes, index});
        if (number.valid && !withinThirtyTwoBitColumn(number.value))
            throw Unrecognised{"a number beyond its 32-bit column"};
    }
}

void CompactColumnBuilder::startProgram(const CompactAttributes &attributes) {
    std::string_view adjustment;
    if (!attributes.find("timeAdjustment", &adjustment)) return;
    const auto parsed = parseDecimalSeconds(adjustment);
    if (!parsed) throw Unrecognised{"a timeAdjustment that is no time"};
    adjustmentNs_ = parsed->nanoseconds;
}

void CompactColumnBuilder::takeCall(std::string_view name, const CompactAttributes &attributes,
                                    ElementPlan &plan) {
    if (plan.checksTexts) checkTexts(attributes);
    call_ = kFreshCall;
    completedRids_.clear();
    // Codes are given in the order names are first read, as the XML readers do.
    if (plan.nameCode < 0 || !plan.known) plan.nameCode = nameCode(name);
    call_.nameCode = plan.nameCode;
    for (int index = 0; index < attributes.size(); ++index) {
        const CallAttribute meaning = plan.meanings[static_cast<size_t>(index)];
        if (meaning == CallAttribute::Time || meaning == CallAttribute::End)
            noteFractionDigits(attributes, index);
        if (!call_.take(meaning, CompactValue{&attributes, index}, *this))
            throw Unrecognised{"a number beyond its 32-bit column"};
    }
    closeCall(plan);
}

void CompactColumnBuilder::takeStaticCall(std::string_view name, const StaticElement &element,
                                          ElementPlan &plan) {
    call_ = kFreshCall;
    completedRids_.clear();
    if (plan.nameCode < 0) plan.nameCode = nameCode(name);
    call_.nameCode = plan.nameCode;
    // The digits of the trace's times are those of its first time: noted
    // once, before the loop, which then tests nothing but each value.
    if (timeFractionDigits_ < 0 && plan.firstTime >= 0) {
        char text[kMaxNumberChars];
        noteFractionDigits(std::string_view(
            text,
            static_cast<size_t>(formatRelativeTime(text, element.numbers[plan.firstTime]) - text)));
    }
    for (const auto &[index, meaning] : plan.read) {
        const TypedValue value{element.numbers + index, element.texts + index};
        if (!call_.take(meaning, value, *this))
            throw Unrecognised{"a number beyond its 32-bit column"};
    }
    closeCall(plan);
}

void CompactColumnBuilder::closeCall(const ElementPlan &plan) {
    switch (call_.closeStartTag(filter_, hasTimeWindow_)) {
        case CallStart::Read:
            break;
        case CallStart::Skip:
            skipBelowDepth_ = depth_;
            return;
        case CallStart::Stop:
            throw WindowEnded{};
    }
    call_.sendAndReceive = plan.sendAndReceive;
    call_.isFileOpen = plan.isFileOpen;
    if (call_.isFileOpen) openFileName_.assign(call_.fileName);
}

void CompactColumnBuilder::takeChild(const CompactAttributes &attributes, const ElementPlan &plan) {
    if (plan.child == ElementPlan::Child::Completion) {
        if (plan.rid < 0) return;
        const IntegerValue rid = integerValue(CompactValue{&attributes, plan.rid});
        completedRids_.push_back(rid.valid ? rid.value : -1);
    } else if (plan.child == ElementPlan::Child::DataAccess) {
        for (size_t at = 0; at < plan.sizeAndOffset.size(); ++at) {
            const IntegerValue number =
                integerValue(CompactValue{&attributes, plan.sizeAndOffset[at]});
            if (plan.isSize[at])
                call_.takeDataSize(number.valid, number.value);
            else
                call_.takeDataOffset(number.valid, number.value);
        }
    }
}

void CompactColumnBuilder::takeStaticChild(const StaticElement &element, const ElementPlan &plan) {
    if (plan.child == ElementPlan::Child::Completion) {
        if (plan.rid >= 0) completedRids_.push_back(element.numbers[plan.rid]);
    } else if (plan.child == ElementPlan::Child::DataAccess) {
        for (size_t at = 0; at < plan.sizeAndOffset.size(); ++at) {
            const int64_t number = element.numbers[plan.sizeAndOffset[at]];
            if (plan.isSize[at])
                call_.takeDataSize(true, number);
            else
                call_.takeDataOffset(true, number);
        }
    }
}

bool CompactColumnBuilder::startStaticElement(std::string_view name, const StaticElement &element) {
    // The root, and anything below a skipped element, the way startElement takes them.
    if (depth_ == 0) return false;
    ElementPlan &plan = staticPlans_[element.shape];
    if (!plan.known) {
        workOutPlan(name, StaticShapeAttributes(element.shape), plan);
        plan.known = true;
    }
    if (!plan.typed) return false;
    ++depth_;
    if (skipBelowDepth_ > 0) return true;
    if (depth_ > SaxFileParser::kMaxElementDepth) throw Unrecognised{"elements nested too deep"};
    if (plan.nestedBlock) {
        skipBelowDepth_ = depth_;
        return true;
    }
    if (depth_ == 2) {
        if (!plan.wanted) {
            skipBelowDepth_ = depth_;
            return true;
        }
        takeStaticCall(name, element, plan);
        return true;
    }
    for (const int index : plan.thirtyTwoBit)
        if (!withinThirtyTwoBitColumn(element.numbers[index]))
            throw Unrecognised{"a number beyond its 32-bit column"};
    if (depth_ == 3) takeStaticChild(element, plan);
    return true;
}

void CompactColumnBuilder::startElement(std::string_view name,
                                        const CompactAttributes &attributes) {
    ++depth_;
    if (skipBelowDepth_ > 0) return;
    if (depth_ > SaxFileParser::kMaxElementDepth) throw Unrecognised{"elements nested too deep"};
    if (depth_ == 1) {
        if (!grammar::isRoot(name)) throw Unrecognised{"a root other than Program"};
        return startProgram(attributes);
    }
    // A <Nested> block comes before every call that made others: skipped
    // without working out a plan for its empty attribute list each time.
    if (grammar::isNestedBlock(name)) {
        skipBelowDepth_ = depth_;
        return;
    }
    ElementPlan &plan = planOf(name, attributes);
    if (plan.nestedBlock) {  // calls inside calls: not in the table
        skipBelowDepth_ = depth_;
        return;
    }
    if (depth_ == 2) {
        if (!plan.wanted) {
            skipBelowDepth_ = depth_;
            return;
        }
        return takeCall(name, attributes, plan);
    }
    if (plan.checksTexts) checkTexts(attributes);
    checkThirtyTwoBitColumns(attributes, plan);
    if (depth_ == 3) takeChild(attributes, plan);
}

void CompactColumnBuilder::endElement(std::string_view) {
    const int depth = depth_--;
    if (skipBelowDepth_ > 0) {
        if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
        return;
    }
    if (depth == 2) rows_.finish(call_, completedRids_, openFileName_);
}

}  // namespace

std::optional<ColumnsResult> readEventColumnsByCompactRecords(
    const std::string &path, const TraceOptions &options, const LocalToWorldTable *localToWorld,
    const std::optional<CompactByteRange> &range, std::string *reason) {
    ColumnsResult result;
    std::unique_ptr<CompactSource> source = openCompactSource(path, options, range);
    uint64_t records = 0;
    for (const FrameInfo &frame : source->file().frames())
        records += frame.records;
    if (!range) result.columns.reserve(static_cast<size_t>(records));
    CompactColumnBuilder builder(result.columns, options.filter, localToWorld);
    try {
        source->readAll(builder);
    } catch (const Unrecognised &unrecognised) {
        if (reason) *reason = unrecognised.reason;
        return std::nullopt;
    } catch (const WindowEnded &) {
    }
    builder.trimColumns();
    result.damage = source->damage();
    result.timeFractionDigits = builder.timeFractionDigits();
    return result;
}

ColumnsResult readCompactEventColumns(const std::string &path, const TraceOptions &options,
                                      const LocalToWorldTable *localToWorld,
                                      const std::optional<CompactByteRange> &range) {
    std::string reason;
    if (auto result = readEventColumnsByCompactRecords(path, options, localToWorld, range, &reason))
        return std::move(*result);
    ColumnsResult result = readEventColumnsOfCompactXml(path, options, localToWorld,
                                                        openCompactSource(path, options, range));
    result.fallback = std::move(reason);
    return result;
}

}  // namespace hdtrace::reader
