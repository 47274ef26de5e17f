// The call tree of a trace, read three ways that give the same columns: by
// the XML scanner (DialectScanner.hpp) or from a compact trace's typed
// records, each through a CallTreeAssembler, and, for a trace either of
// those does not recognise (and for every damaged one), by the event
// reader, which reads any trace the other readers read and words their
// errors.

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "CallTreeAssembler.hpp"
#include "CompactSource.hpp"
#include "DialectCalls.hpp"  // generated from the dialect: attribute meanings, isFileOpenCall
#include "DialectNumbers.hpp"
#include "DialectScanner.hpp"
#include "DialectTagScan.hpp"
#include "ForeseenRows.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {
namespace {

HDTRACE_HOT_INLINE int64_t integerOr(std::string_view text, int64_t fallback) {
    const ParsedInteger number = parseIntegerValue(text);
    return number.valid ? number.value : fallback;
}

// A time attribute's text as absolute nanoseconds; false where it is none.
HDTRACE_HOT_INLINE bool absoluteTime(int64_t adjustmentNs, std::string_view text,
                                     int64_t *nanoseconds) {
    if (parseWriterTime(text, adjustmentNs, nanoseconds)) return true;
    int fractionDigits = 0;  // not asked for: set only when negative
    return grammar::readTime(adjustmentNs, text, nanoseconds, &fractionDigits) ==
           grammar::TimeRead::Ok;
}

// What an attribute of a call is to the tree. Number: one the tree does
// not take that the readers still hold to 64 bits (isNumberAttribute).
enum class Meaning : uint8_t {
    Other,
    Number,
    Start,
    End,
    Fid,
    Offset,
    Size,
    Asked,
    Errno,
    OpenedName
};

// Whether a number attribute's value lies beyond 64 bits, which every
// reader refuses: only a value of 19 characters or more can.
HDTRACE_HOT_INLINE bool beyondSixtyFourBits(std::string_view text) {
    return text.size() >= 19 && isOutOfRangeInteger(text);
}

// Whether one of a child element's attributes is a number beyond 64 bits.
template <class NameOf, class ValueOf>
bool childNumberBeyondSixtyFourBits(int count, NameOf nameOf, ValueOf valueOf) {
    for (int index = 0; index < count; ++index)
        if (beyondSixtyFourBits(valueOf(index)) && isNumberAttribute(nameOf(index))) return true;
    return false;
}

// From the layers' meanings (callAttributeOf). The tree's size is the
// first attribute of the bytes column only: its users read file accesses,
// where that is the only one.
Meaning meaningOfColumn(std::string_view callName, std::string_view name) {
    const CallAttribute attribute = callAttributeOf(name);
    switch (columnOf(attribute)) {
        case AttributeColumn::Time:
            return Meaning::Start;
        case AttributeColumn::End:
            return Meaning::End;
        case AttributeColumn::File:
            return Meaning::Fid;
        case AttributeColumn::Offset:
            return Meaning::Offset;
        case AttributeColumn::Bytes:
            return priorityOf(attribute) == 0 ? Meaning::Size : Meaning::Other;
        case AttributeColumn::Asked:
            return Meaning::Asked;
        case AttributeColumn::Error:
            return Meaning::Errno;
        case AttributeColumn::OpenedName:
            return isFileOpenCall(callName) ? Meaning::OpenedName : Meaning::Other;
        default:
            return Meaning::Other;
    }
}
Meaning meaningOf(std::string_view callName, std::string_view name) {
    const Meaning meaning = meaningOfColumn(callName, name);
    return meaning == Meaning::Other && isNumberAttribute(name) ? Meaning::Number : meaning;
}

// Takes a number of a call into values; false if the meaning is no number's.
HDTRACE_HOT_INLINE bool takeNumber(Meaning meaning, int64_t number, CallValues &values) {
    switch (meaning) {
        case Meaning::Fid:
            values.fid = number;
            return true;
        case Meaning::Offset:
            values.offset = number;
            return true;
        case Meaning::Size:
            values.size = number;
            return true;
        case Meaning::Asked:
            values.asked = number;
            return true;
        default:
            return false;
    }
}

// Takes one attribute of a call into values; false where the event reader
// would refuse it (a time that is no time, a number beyond 64 bits).
HDTRACE_HOT_INLINE bool takeAttribute(Meaning meaning, std::string_view text, int64_t adjustmentNs,
                                      CallValues &values, bool &hasStart) {
    switch (meaning) {
        case Meaning::Start:
            hasStart = absoluteTime(adjustmentNs, text, &values.startNs);
            return hasStart;
        case Meaning::End:
            values.hasEnd = absoluteTime(adjustmentNs, text, &values.endNs);
            return values.hasEnd;
        case Meaning::Fid:
        case Meaning::Offset:
        case Meaning::Size:
        case Meaning::Asked:
            if (beyondSixtyFourBits(text)) return false;
            takeNumber(meaning, integerOr(text, -1), values);
            break;
        case Meaning::Number:
            return !beyondSixtyFourBits(text);
        case Meaning::Errno:
            values.failed = true;
            break;
        case Meaning::OpenedName:
            values.openedName = text;
            values.hasOpenedName = true;
            break;
        case Meaning::Other:
            break;
    }
    return true;
}

// A <Data> child's size and offset, from its attributes' names and values.
template <class NameOf, class NumberOf>
void takeDataAccess(int count, NameOf nameOf, NumberOf numberOf, int64_t *size, int64_t *offset) {
    for (int index = 0; index < count; ++index) {
        const CallAttribute meaning = callAttributeOf(nameOf(index));
        if (meaning == CallAttribute::Bytes) *size = numberOf(index);
        if (meaning == CallAttribute::Offset) *offset = numberOf(index);
    }
}

// The meanings of the attributes of calls of one shape (same name, same
// attributes in the same order), and the name's code in the tree, worked
// out once per shape: a reader that numbers its shapes names one by slot
// and generation (which changes when the slot is given to another shape);
// slot -1 is a tag of no known shape.
class MeaningsByShape {
  public:
    struct Shape {
        uint32_t generation = 0;  // of the shape described; 0: none yet
        std::vector<Meaning> meanings;
        int32_t nameCode = -1;  // -1: not known (every element of no known shape)
    };

    explicit MeaningsByShape(size_t slots) : shapes_(slots) {}

    template <class NameOf>
    const Shape &of(int slot, uint32_t generation, std::string_view callName, int count,
                    NameOf nameOf, CallTreeAssembler &assembler) {
        const bool shaped = slot >= 0 && static_cast<size_t>(slot) < shapes_.size();
        Shape &known = shaped ? shapes_[static_cast<size_t>(slot)] : unshaped_;
        if (!shaped || known.generation != generation) {
            known.generation = generation;
            known.meanings.resize(static_cast<size_t>(count));
            for (int index = 0; index < count; ++index)
                known.meanings[static_cast<size_t>(index)] = meaningOf(callName, nameOf(index));
            known.nameCode = shaped ? assembler.code(callName) : -1;
        }
        return known;
    }

  private:
    std::vector<Shape> shapes_;
    Shape unshaped_;
};

// --- The XML scanner's way.

class XmlTreeHandler final : public DialectHandler {
  public:
    XmlTreeHandler(CallTree &tree, TreeColumns columns) : assembler_(tree, columns) {}
    void reserve(size_t rows) { assembler_.reserve(rows); }
    bool finished() const { return assembler_.finished(); }

    Verdict startElement(int depth, std::string_view name, const ScannedAttribute *attributes,
                         int count, const TagShapeId &shape) override {
        bool accepted = false;
        if (depth == 1) {
            if (!grammar::isRoot(name)) return Verdict::Unrecognised;
            for (int index = 0; index < count; ++index) {
                if (!grammar::isTimeAdjustment(attributes[index].name)) continue;
                const auto parsed = parseDecimalSeconds(attributes[index].value);
                if (!parsed) return Verdict::Unrecognised;
                adjustmentNs_ = parsed->nanoseconds;
            }
            accepted = assembler_.startRoot();
        } else if (assembler_.parentIsCall(depth)) {
            if (childNumberBeyondSixtyFourBits(
                    count, [&](int index) { return attributes[index].name; },
                    [&](int index) { return attributes[index].value; }))
                return Verdict::Unrecognised;
            int64_t size = -1, offset = -1;
            const bool isData = grammar::isDataAccess(name);
            if (isData)
                takeDataAccess(
                    count, [&](int index) { return attributes[index].name; },
                    [&](int index) { return integerOr(attributes[index].value, -1); }, &size,
                    &offset);
            accepted = assembler_.startChild(depth, isData, size, offset);
        } else if (grammar::isNestedBlock(name)) {
            accepted = assembler_.startNested(depth);
        } else {
            const MeaningsByShape::Shape &known = meanings_.of(
                shape.slot, shape.generation, name, count,
                [&](int index) { return attributes[index].name; }, assembler_);
            const Meaning *meanings = known.meanings.data();
            CallValues values;
            bool hasStart = false;
            for (int index = 0; index < count; ++index)
                if (!takeAttribute(meanings[index], attributes[index].value, adjustmentNs_, values,
                                   hasStart))
                    return Verdict::Unrecognised;
            accepted =
                hasStart &&
                assembler_.startCall(
                    depth, known.nameCode >= 0 ? known.nameCode : assembler_.code(name), values);
        }
        return accepted ? Verdict::Continue : Verdict::Unrecognised;
    }
    void endElement(int depth) override {
        if (!assembler_.endElement(depth)) refused_ = true;
    }
    bool refused() const { return refused_; }

  private:
    CallTreeAssembler assembler_;
    int64_t adjustmentNs_ = 0;
    bool refused_ = false;
    MeaningsByShape meanings_{static_cast<size_t>(DialectScanner::kShapeSlots)};
};

// --- The compact records' way.

struct NotRecognised {};

// What the tree takes of a call of one static shape, by the index of the
// value in the shape (-1: none), when every value it takes is typed as it
// needs it: then a call of the shape is read from its values alone.
struct StaticTreePlan {
    bool known = false;  // worked out
    bool typed = false;
    int32_t nameCode = -1;
    int start = -1, end = -1, fid = -1, offset = -1, size = -1, asked = -1;
    int openedName = -1;
    bool failed = false;  // it has an errno
};

// The plan of a static shape, as startCall reads a call of it through its
// attribute list. Only calls have a start: a child of a call (<Data>,
// <For>, <Info>) has none and goes the attribute list's way.
void workOutStaticPlan(uint32_t shape, CallTreeAssembler &assembler, StaticTreePlan &plan) {
    const compact::StaticShape &known = compact::staticShapes()[shape];
    plan.known = true;
    bool typed = !grammar::isNestedBlock(known.element) && !grammar::isRoot(known.element);
    for (uint32_t index = 0; index < known.count; ++index) {
        const compact::ShapeAttribute &attribute = known.attributes[index];
        const bool isTime = attribute.coding == compact::kTime || attribute.coding == compact::kEnd;
        const bool isInteger =
            !isTime && attribute.coding != compact::kText && attribute.coding != compact::kRaw;
        const int at = static_cast<int>(index);
        switch (meaningOf(known.element, attribute.name)) {
            case Meaning::Start:
                typed = typed && isTime;
                plan.start = at;
                break;
            case Meaning::End:
                typed = typed && isTime;
                plan.end = at;
                break;
            case Meaning::Fid:
                typed = typed && isInteger;
                plan.fid = at;
                break;
            case Meaning::Offset:
                typed = typed && isInteger;
                plan.offset = at;
                break;
            case Meaning::Size:
                typed = typed && isInteger;
                plan.size = at;
                break;
            case Meaning::Asked:
                typed = typed && isInteger;
                plan.asked = at;
                break;
            case Meaning::Errno:
                plan.failed = true;
                break;
            case Meaning::OpenedName:
                typed = typed && attribute.coding == compact::kText;
                plan.openedName = at;
                break;
            case Meaning::Number:
                typed = typed && isInteger;
                break;
            case Meaning::Other:
                break;
        }
    }
    // A call without a start goes the attribute list's way, which refuses it.
    plan.typed = typed && plan.start >= 0;
    if (plan.typed) plan.nameCode = assembler.code(known.element);
}

class CompactTreeHandler final : public CompactHandler {
  public:
    CompactTreeHandler(CallTree &tree, TreeColumns columns)
        : assembler_(tree, columns), staticPlans_(compact::staticShapeCount()) {}
    bool finished() const { return assembler_.finished(); }
    void reserve(size_t rows) { assembler_.reserve(rows); }
    size_t rows() const { return assembler_.rows(); }

    // Calls of static shapes whose values the tree takes typed, without an
    // attribute list; false for the other elements (startElement gets them).
    static constexpr bool kTakesStaticElements = true;
    bool startStaticElement(std::string_view, const StaticElement &element) {
        // The root is never of a static shape; a call's children go the
        // attribute list's way.
        if (depth_ == 0 || assembler_.parentIsCall(depth_ + 1)) return false;
        StaticTreePlan &plan = staticPlans_[element.shape];
        if (!plan.known) workOutStaticPlan(element.shape, assembler_, plan);
        if (!plan.typed) return false;
        const int depth = ++depth_;
        const int64_t *numbers = element.numbers;
        CallValues values;
        const auto start = addTimes(adjustmentNs_, numbers[plan.start]);
        if (!start) throw NotRecognised{};
        values.startNs = *start;
        if (plan.end >= 0) {
            const auto end = addTimes(adjustmentNs_, numbers[plan.end]);
            if (!end) throw NotRecognised{};
            values.endNs = *end;
            values.hasEnd = true;
        }
        if (plan.fid >= 0) values.fid = numbers[plan.fid];
        if (plan.offset >= 0) values.offset = numbers[plan.offset];
        if (plan.size >= 0) values.size = numbers[plan.size];
        if (plan.asked >= 0) values.asked = numbers[plan.asked];
        values.failed = plan.failed;
        if (plan.openedName >= 0) {
            values.openedName = element.texts[plan.openedName];
            values.hasOpenedName = true;
        }
        if (!assembler_.startCall(depth, plan.nameCode, values)) throw NotRecognised{};
        return true;
    }

    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        const int depth = ++depth_;
        bool accepted = false;
        if (depth == 1) {
            std::string_view adjustment;
            if (attributes.find("timeAdjustment", &adjustment)) {
                const auto parsed = parseDecimalSeconds(adjustment);
                if (!parsed) throw NotRecognised{};
                adjustmentNs_ = parsed->nanoseconds;
            }
            accepted = assembler_.startRoot();
        } else if (assembler_.parentIsCall(depth)) {
            // Typed integers fit; a number written as text may not.
            if (childNumberBeyondSixtyFourBits(
                    attributes.size(), [&](int index) { return attributes.name(index); },
                    [&](int index) {
                        return attributes.kind(index) == CompactAttributes::Kind::Text
                                   ? attributes.value(index)
                                   : std::string_view();
                    }))
                throw NotRecognised{};
            int64_t size = -1, offset = -1;
            const bool isData = grammar::isDataAccess(name);
            if (isData)
                takeDataAccess(
                    attributes.size(), [&](int index) { return attributes.name(index); },
                    [&](int index) {
                        return attributes.kind(index) == CompactAttributes::Kind::Integer
                                   ? attributes.integer(index)
                                   : integerOr(attributes.value(index), -1);
                    },
                    &size, &offset);
            accepted = assembler_.startChild(depth, isData, size, offset);
        } else if (grammar::isNestedBlock(name)) {
            accepted = assembler_.startNested(depth);
        } else {
            accepted = startCall(depth, name, attributes);
        }
        if (!accepted) throw NotRecognised{};
    }
    void endElement(std::string_view) override {
        if (!assembler_.endElement(depth_--)) throw NotRecognised{};
    }

  private:
    bool startCall(int depth, std::string_view name, const CompactAttributes &attributes) {
        CallValues values;
        bool hasStart = false;
        // A static shape's elements share their attributes' names and kinds.
        const Meaning *meanings =
            meanings_
                .of(
                    attributes.staticShape(), 1, name, attributes.size(),
                    [&](int index) { return attributes.name(index); }, assembler_)
                .meanings.data();
        for (int index = 0; index < attributes.size(); ++index) {
            const Meaning meaning = meanings[index];
            const CompactAttributes::Kind kind = attributes.kind(index);
            if (kind == CompactAttributes::Kind::Time) {
                // Typed times count nanoseconds after timeAdjustment.
                const auto absolute = addTimes(adjustmentNs_, attributes.integer(index));
                if (!absolute) return false;
                if (meaning == Meaning::Start) {
                    values.startNs = *absolute;
                    hasStart = true;
                } else if (meaning == Meaning::End) {
                    values.endNs = *absolute;
                    values.hasEnd = true;
                }
                continue;
            }
            // A typed integer needs no text: formatting it only to parse it
            // again would cost more than the rest of the call.
            if (kind == CompactAttributes::Kind::Integer &&
                (takeNumber(meaning, attributes.integer(index), values) ||
                 meaning == Meaning::Number || meaning == Meaning::Other))
                continue;
            if (!takeAttribute(meaning, attributes.value(index), adjustmentNs_, values, hasStart))
                return false;
        }
        return hasStart && assembler_.startCall(depth, name, values);
    }

    CallTreeAssembler assembler_;
    int depth_ = 0;
    int64_t adjustmentNs_ = 0;
    MeaningsByShape meanings_{compact::staticShapeCount()};
    std::vector<StaticTreePlan> staticPlans_;
};

// --- The event reader's way, for every trace.

// Gives the assembler an Event's elements in the order a trace has them:
// the <Nested> block of its nested calls, then the call and its children.
class EventFeeder {
  public:
    EventFeeder(CallTree &tree, TreeColumns columns) : assembler_(tree, columns) {
        assembler_.startRoot();
    }
    // After the last event (the root is never closed here).
    void finish() { assembler_.trim(); }
    void add(const Event &event, int depth) {
        bool nested = false;
        for (const Event &child : event.children) {
            if (!child.hasStart) continue;
            if (!nested) assembler_.startNested(depth);
            nested = true;
            add(child, depth + 1);
        }
        if (nested) assembler_.endElement(depth);
        CallValues values;
        values.startNs = event.startNs;
        values.endNs = event.endNs;
        values.hasEnd = event.hasEnd;
        bool hasStart = true;
        for (const Attribute &attribute : event.attributes)
            takeAttribute(meaningOf(event.name, attribute.name), attribute.value, 0, values,
                          hasStart);
        assembler_.startCall(depth, event.name, values);
        for (const Event &child : event.children) {
            if (child.hasStart) continue;
            int64_t size = -1, offset = -1;
            const bool isData = grammar::isDataAccess(child.name);
            if (isData)
                takeDataAccess(
                    static_cast<int>(child.attributes.size()),
                    [&](int index) { return std::string_view(child.attributes[index].name); },
                    [&](int index) { return integerOr(child.attributes[index].value, -1); }, &size,
                    &offset);
            assembler_.startChild(depth + 1, isData, size, offset);
            assembler_.endElement(depth + 1);
        }
        assembler_.endElement(depth);
    }

  private:
    CallTreeAssembler assembler_;
};

CallTreeResult readByEvents(const std::string &path, const TraceOptions &options,
                            TreeColumns columns) {
    CallTreeResult result;
    TraceReader reader(path, options);
    EventFeeder feeder(result.tree, columns);
    Event event;
    while (reader.next(event))
        if (event.hasStart) feeder.add(event, 2);
    feeder.finish();
    result.damage = reader.damage();
    return result;
}

std::optional<CallTreeResult> readByScanner(const std::string &path, TreeColumns columns) {
    CallTreeResult result;
    XmlTreeHandler handler(result.tree, columns);
    handler.reserve(foreseenXmlCalls(path));
    DialectScanner scanner(path);
    if (scanner.runWith(handler) != DialectScanner::Outcome::Complete || handler.refused() ||
        !handler.finished())
        return std::nullopt;
    return result;
}

std::optional<CallTreeResult> readByCompactRecords(const std::string &path,
                                                   const TraceOptions &options,
                                                   TreeColumns columns) {
    CallTreeResult result;
    std::unique_ptr<CompactSource> source = openCompactSource(path, options);
    CompactTreeHandler handler(result.tree, columns);
    const std::vector<FrameInfo> &frames = source->file().frames();
    uint64_t records = 0;  // top-level calls, each with the calls nested in it
    for (const FrameInfo &frame : frames)
        records += frame.records;
    try {
        // The tree's rows, foreseen: columns that grow as they fill copy
        // every row they hold, and take fresh pages for each size they
        // pass through. Two rows a record before the first frame (a call
        // and the one it made, as most I/O calls; rows reserved and not
        // written take no memory), then more where the first frame had more.
        constexpr uint64_t kForeseenRowsPerRecord = 2;
        handler.reserve(static_cast<size_t>(kForeseenRowsPerRecord * records) + 1024);
        if (source->next(handler) && !frames.empty()) {
            const double perRecord = static_cast<double>(handler.rows()) /
                                     static_cast<double>(std::max<uint32_t>(1, frames[0].records));
            if (perRecord > kForeseenRowsPerRecord)
                handler.reserve(
                    static_cast<size_t>(perRecord * 1.05 * static_cast<double>(records)) + 1024);
        }
        source->readAll(handler);
    } catch (const NotRecognised &) {
        return std::nullopt;
    }
    // A partial read that stopped at damage may leave a call open: the
    // event reader keeps what it keeps of such a trace.
    if (source->damage() || !handler.finished()) return std::nullopt;
    return result;
}

}  // namespace

CallTreeResult readCallTree(const std::string &path, const TraceOptions &options,
                            TreeColumns columns) {
    TraceOptions whole = options;
    whole.filter = TraceFilter();  // the tree has every call
    const bool compact = traceFormOf(path) == TraceForm::Compact;
    if (compact) {
        if (auto result = readByCompactRecords(path, whole, columns)) return std::move(*result);
    } else if (auto result = readByScanner(path, columns)) {
        return std::move(*result);
    }
    return readByEvents(path, whole, columns);
}

}  // namespace hdtrace::reader
