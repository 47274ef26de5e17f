// The call tree of a trace, read three ways that give the same columns: by
// the XML scanner (DialectScanner.hpp) or from a compact trace's typed
// records, each through a CallTreeAssembler, and, for a trace either of
// those does not recognise (and for every damaged one), by the event
// reader, which reads any trace the other readers read and words their
// errors.
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "CallTreeAssembler.hpp"
#include "CompactSource.hpp"
#include "DecimalNumber.hpp"
#include "DialectCalls.hpp"  // generated from the dialect: isFileOpenCall
#include "DialectNumbers.hpp"
#include "DialectScanner.hpp"
#include "DialectTagScan.hpp"

namespace hdtrace::reader {
namespace {

// The attributes whose meaning the tree's columns carry (docs/format/calls.md:
// a call's file id, offset and bytes; a C library call's bytes asked for and
// its errno, written only when it failed; an open's file name), the times,
// and the elements that are not calls.
constexpr std::string_view kFid = "fid";
constexpr std::string_view kOffset = "offset";
constexpr std::string_view kSize = "size";
constexpr std::string_view kAsked = "asked";
constexpr std::string_view kErrno = "errno";
constexpr std::string_view kName = "name";
constexpr std::string_view kTime = "time";
constexpr std::string_view kEnd = "end";
constexpr std::string_view kTimeAdjustment = "timeAdjustment";
constexpr std::string_view kNestedBlock = "Nested";
constexpr std::string_view kDataChild = "Data";

HDTRACE_HOT_INLINE int64_t integerOr(std::string_view text, int64_t fallback) {
    const ParsedInteger number = parseIntegerValue(text);
    return number.valid ? number.value : fallback;
}

// A time attribute's text as absolute nanoseconds; false where it is none.
HDTRACE_HOT_INLINE bool absoluteTime(int64_t adjustmentNs, std::string_view text,
                                     int64_t *nanoseconds) {
    if (parseWriterTime(text, adjustmentNs, nanoseconds)) return true;
    const auto parsed = parseDecimalSeconds(text);
    if (!parsed) return false;
    const auto absolute = addTimes(adjustmentNs, parsed->nanoseconds);
    if (!absolute) return false;
    *nanoseconds = *absolute;
    return true;
}

// Takes one attribute of a call into values; false where the event reader
// would refuse it (a time that is no time).
HDTRACE_HOT_INLINE bool takeAttribute(std::string_view callName, std::string_view name,
                                      std::string_view text, int64_t adjustmentNs,
                                      CallValues &values, bool &hasStart) {
    if (name == kTime) {
        hasStart = absoluteTime(adjustmentNs, text, &values.startNs);
        return hasStart;
    }
    if (name == kEnd) {
        values.hasEnd = absoluteTime(adjustmentNs, text, &values.endNs);
        return values.hasEnd;
    }
    if (name == kFid) {
        values.fid = integerOr(text, -1);
    } else if (name == kOffset) {
        values.offset = integerOr(text, -1);
    } else if (name == kSize) {
        values.size = integerOr(text, -1);
    } else if (name == kAsked) {
        values.asked = integerOr(text, -1);
    } else if (name == kErrno) {
        values.failed = true;
    } else if (name == kName && isFileOpenCall(callName)) {
        values.openedName = text;
        values.hasOpenedName = true;
    }
    return true;
}

// --- The XML scanner's way.

class XmlTreeHandler final : public DialectHandler {
  public:
    explicit XmlTreeHandler(CallTree &tree) : assembler_(tree) {}
    bool finished() const { return assembler_.finished(); }

    Verdict startElement(int depth, std::string_view name, const ScannedAttribute *attributes,
                         int count, TagShapeId) override {
        bool accepted = false;
        if (depth == 1) {
            for (int index = 0; index < count; ++index) {
                if (attributes[index].name != kTimeAdjustment) continue;
                const auto parsed = parseDecimalSeconds(attributes[index].value);
                if (!parsed) return Verdict::Unrecognised;
                adjustmentNs_ = parsed->nanoseconds;
            }
            accepted = assembler_.startRoot();
        } else if (assembler_.parentIsCall(depth)) {
            int64_t size = -1, offset = -1;
            const bool isData = name == kDataChild;
            for (int index = 0; isData && index < count; ++index) {
                if (attributes[index].name == kSize) size = integerOr(attributes[index].value, -1);
                if (attributes[index].name == kOffset)
                    offset = integerOr(attributes[index].value, -1);
            }
            accepted = assembler_.startChild(depth, isData, size, offset);
        } else if (name == kNestedBlock) {
            accepted = assembler_.startNested(depth);
        } else {
            CallValues values;
            bool hasStart = false;
            for (int index = 0; index < count; ++index)
                if (!takeAttribute(name, attributes[index].name, attributes[index].value,
                                   adjustmentNs_, values, hasStart))
                    return Verdict::Unrecognised;
            accepted = hasStart && assembler_.startCall(depth, name, values);
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
};

// --- The compact records' way.

struct NotRecognised {};

class CompactTreeHandler final : public CompactHandler {
  public:
    explicit CompactTreeHandler(CallTree &tree) : assembler_(tree) {}
    bool finished() const { return assembler_.finished(); }

    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        const int depth = ++depth_;
        bool accepted = false;
        if (depth == 1) {
            std::string_view adjustment;
            if (attributes.find(kTimeAdjustment, &adjustment)) {
                const auto parsed = parseDecimalSeconds(adjustment);
                if (!parsed) throw NotRecognised{};
                adjustmentNs_ = parsed->nanoseconds;
            }
            accepted = assembler_.startRoot();
        } else if (assembler_.parentIsCall(depth)) {
            int64_t size = -1, offset = -1;
            const bool isData = name == kDataChild;
            for (int index = 0; isData && index < attributes.size(); ++index) {
                if (attributes.name(index) == kSize) size = integer(attributes, index);
                if (attributes.name(index) == kOffset) offset = integer(attributes, index);
            }
            accepted = assembler_.startChild(depth, isData, size, offset);
        } else if (name == kNestedBlock) {
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
    static int64_t integer(const CompactAttributes &attributes, int index) {
        if (attributes.kind(index) == CompactAttributes::Kind::Integer)
            return attributes.integer(index);
        return integerOr(attributes.value(index), -1);
    }
    bool startCall(int depth, std::string_view name, const CompactAttributes &attributes) {
        CallValues values;
        bool hasStart = false;
        for (int index = 0; index < attributes.size(); ++index) {
            const std::string_view attribute = attributes.name(index);
            const CompactAttributes::Kind kind = attributes.kind(index);
            if (kind == CompactAttributes::Kind::Time) {
                // Typed times count nanoseconds after timeAdjustment.
                const auto absolute = addTimes(adjustmentNs_, attributes.integer(index));
                if (!absolute) return false;
                if (attribute == kTime) {
                    values.startNs = *absolute;
                    hasStart = true;
                } else if (attribute == kEnd) {
                    values.endNs = *absolute;
                    values.hasEnd = true;
                }
                continue;
            }
            if (kind == CompactAttributes::Kind::Integer &&
                (attribute == kFid || attribute == kOffset || attribute == kSize ||
                 attribute == kAsked)) {
                const int64_t number = attributes.integer(index);
                if (attribute == kFid) values.fid = number;
                if (attribute == kOffset) values.offset = number;
                if (attribute == kSize) values.size = number;
                if (attribute == kAsked) values.asked = number;
                continue;
            }
            if (!takeAttribute(name, attribute, attributes.value(index), adjustmentNs_, values,
                               hasStart))
                return false;
        }
        return hasStart && assembler_.startCall(depth, name, values);
    }

    CallTreeAssembler assembler_;
    int depth_ = 0;
    int64_t adjustmentNs_ = 0;
};

// --- The event reader's way, for every trace.

class EventTreeBuilder {
  public:
    explicit EventTreeBuilder(CallTree &tree) : tree_(tree) {}

    void add(const Event &event, int depth, int64_t parent, int64_t topRow) {
        const int64_t row = static_cast<int64_t>(tree_.rows());
        tree_.nameCode.push_back(code(event.name));
        tree_.depth.push_back(static_cast<int8_t>(depth));
        tree_.parent.push_back(parent);
        tree_.topRow.push_back(topRow);
        tree_.startNs.push_back(event.startNs);
        tree_.endNs.push_back(event.hasEnd ? event.endNs : event.startNs);
        const int64_t fid = valueOf(event, kFid);
        tree_.fid.push_back(static_cast<int32_t>(fid));
        tree_.offset.push_back(valueOf(event, kOffset));
        tree_.size.push_back(valueOf(event, kSize));
        tree_.asked.push_back(valueOf(event, kAsked));
        tree_.failed.push_back(event.attribute(kErrno) != nullptr ? 1 : 0);
        int64_t dataSize = -1, dataOffset = -1;
        for (const Event &child : event.children) {
            if (child.hasStart || child.name != kDataChild) continue;
            dataSize = valueOf(child, kSize);
            dataOffset = valueOf(child, kOffset);
            break;
        }
        tree_.dataSize.push_back(dataSize);
        tree_.dataOffset.push_back(dataOffset);
        if (isFileOpenCall(event.name)) {
            if (const std::string *name = event.attribute(kName)) {
                tree_.openRow.push_back(row);
                tree_.openFid.push_back(static_cast<int32_t>(fid));
                tree_.openName.push_back(*name);
            }
        }
        // Nested calls come first among the children, and carry times.
        for (const Event &child : event.children)
            if (child.hasStart) add(child, depth + 1, row, topRow);
    }

  private:
    static int64_t valueOf(const Event &event, std::string_view name) {
        const std::string *text = event.attribute(name);
        return text == nullptr ? -1 : integerOr(*text, -1);
    }
    int32_t code(const std::string &name) {
        auto [entry, added] = codes_.try_emplace(name, static_cast<int32_t>(tree_.names.size()));
        if (added) tree_.names.push_back(name);
        return entry->second;
    }

    CallTree &tree_;
    std::unordered_map<std::string, int32_t> codes_;
};

CallTreeResult readByEvents(const std::string &path, const TraceOptions &options) {
    CallTreeResult result;
    TraceReader reader(path, options);
    EventTreeBuilder builder(result.tree);
    Event event;
    int64_t topRow = 0;
    while (reader.next(event)) {
        if (!event.hasStart) continue;
        builder.add(event, 0, -1, topRow++);
    }
    result.damage = reader.damage();
    return result;
}

std::optional<CallTreeResult> readByScanner(const std::string &path) {
    CallTreeResult result;
    XmlTreeHandler handler(result.tree);
    DialectScanner scanner(path);
    if (scanner.runWith(handler) != DialectScanner::Outcome::Complete || handler.refused() ||
        !handler.finished())
        return std::nullopt;
    return result;
}

std::optional<CallTreeResult> readByCompactRecords(const std::string &path,
                                                   const TraceOptions &options) {
    CallTreeResult result;
    std::unique_ptr<CompactSource> source = openCompactSource(path, options);
    CompactTreeHandler handler(result.tree);
    try {
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

CallTreeResult readCallTree(const std::string &path, const TraceOptions &options) {
    TraceOptions whole = options;
    whole.filter = TraceFilter();  // the tree has every call
    const bool compact = traceFormOf(path) == TraceForm::Compact;
    if (compact) {
        if (auto result = readByCompactRecords(path, whole)) return std::move(*result);
    } else if (auto result = readByScanner(path)) {
        return std::move(*result);
    }
    return readByEvents(path, whole);
}

}  // namespace hdtrace::reader
