// The grammar of a .trc trace, written once for every reader of it:
//
//   <Program timeAdjustment='S'>    the root; S whole seconds (absent: 0)
//     <Name time='T' end='T' .../>  a call (an <Event> too): one element per
//                                   call, in start order, times in seconds
//                                   after S (absolute where S is absent)
//       <For rid=.../> <Data .../>  below a call: its details
//     <Nested> calls </Nested>      the calls made inside the call that
//                                   follows the block; blocks may nest
//
// Every attribute named time or end must be a time, and every number
// attribute (DecimalNumber.hpp) must fit in 64 bits, in every element read
// (calls the filter leaves out are skipped unread, and so are <Nested>
// blocks by the columns); the checks come attribute by attribute, in the
// tag's order, and the first that fails is the error (file:line:column of
// the tag). The columns then refuse numbers beyond their 32-bit columns.
//
// Two sources feed it: libxml2 (SaxTraceGrammar below, for any XML) and the
// dialect scanner (DialectScanner.hpp, for the writer's own bytes, whose
// column builder follows these rules with the roles of each tag shape
// worked out once and answers "unrecognised" where they would fail, so that
// libxml2 words the error). Two sinks take what it reads: the events
// (TraceParser.hpp) and the columns (EventColumns.cpp, DialectColumns.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <hdtrace/codec/Inlining.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

#include "SaxFileParser.hpp"

namespace hdtrace::reader {

// Byte by byte over a literal: unrolled by the compiler, no call to memcmp.
template <size_t N>
inline bool equals(std::string_view name, const char (&literal)[N]) {
    if (name.size() != N - 1) return false;
    for (size_t i = 0; i < N - 1; ++i)
        if (name[i] != literal[i]) return false;
    return true;
}

namespace grammar {

// What an element is, by its depth (1: the root) and name.
enum class Role { Root, Call, NestedBlock, BelowCall };

HDTRACE_HOT_INLINE bool isRoot(std::string_view name) {
    return equals(name, "Program");
}
HDTRACE_HOT_INLINE bool isNestedBlock(std::string_view name) {
    return equals(name, "Nested");
}
HDTRACE_HOT_INLINE bool isTimeAdjustment(std::string_view attribute) {
    return equals(attribute, "timeAdjustment");
}
// The attributes that hold a time: the start, and the end.
inline constexpr char kStartTime[] = "time", kEndTime[] = "end";
HDTRACE_HOT_INLINE bool isStartTime(std::string_view attribute) {
    return equals(attribute, kStartTime);
}
HDTRACE_HOT_INLINE bool isEndTime(std::string_view attribute) {
    return equals(attribute, kEndTime);
}
HDTRACE_HOT_INLINE bool isTime(std::string_view attribute) {
    return isStartTime(attribute) || isEndTime(attribute);
}
// The details below a call that the table takes: <For rid> names a request
// the call completes; <Data size offset> is the access of a split collective.
HDTRACE_HOT_INLINE bool isCompletion(std::string_view name) {
    return equals(name, "For");
}
HDTRACE_HOT_INLINE bool isDataAccess(std::string_view name) {
    return equals(name, "Data");
}

inline Role roleOf(int depth, std::string_view name) {
    if (depth == 1) return Role::Root;
    if (isNestedBlock(name)) return Role::NestedBlock;
    return depth == 2 ? Role::Call : Role::BelowCall;
}

// Whether the filter's names take a call of this name (no names: every call).
inline bool nameWanted(const TraceFilter &filter, std::string_view name) {
    return filter.names.empty() ||
           std::find(filter.names.begin(), filter.names.end(), name) != filter.names.end();
}

// What a call's start tag decides, given the filter's time window.
enum class CallStart {
    Read,  // the call is read: its children and end follow
    Skip,  // outside the window: skipped unread
    Stop   // after the window, and so is every later call
};
// call: what has hasStart, startNs and endNs (an Event, a call's open record);
// hasTimeWindow: filter.hasTimeWindow(), worked out once by the caller.
template <class Call>
HDTRACE_HOT_INLINE CallStart windowDecision(const TraceFilter &filter, bool hasTimeWindow,
                                            const Call &call) {
    if (hasTimeWindow) {
        if (call.hasStart && call.startNs > filter.toNs) return CallStart::Stop;
        if (!call.hasStart || call.endNs < filter.fromNs) return CallStart::Skip;
    }
    return CallStart::Read;
}

// The times of one element, read by the grammar's checks.
struct ElementTimes {
    bool hasStart = false, hasEnd = false;
    int64_t startNs = 0, endNs = 0;
};

// A time attribute's text as absolute nanoseconds (after timeAdjustment).
enum class TimeRead { Ok, NotATime, Overflows };
TimeRead readTime(int64_t adjustmentNs, std::string_view text, int64_t *nanoseconds,
                  int *fractionDigits);

// The problems, worded once.
std::string rootProblem(std::string_view name);
std::string timeAdjustmentProblem(std::string_view text);
std::string timeProblem(TimeRead read, std::string_view attribute, std::string_view text);
std::string beyondSixtyFourBits(std::string_view attribute, std::string_view value);
std::string beyondThirtyTwoBits(std::string_view attribute, std::string_view value);

}  // namespace grammar

// The attributes of the element being read, as the grammar's checks
// decoded them from libxml2's: the sinks read them again without a second
// decoding. Valid during the sink's call.
class ElementAttributes {
  public:
    int size() const { return static_cast<int>(entries_.size()); }
    std::string_view name(int index) const { return entries_[static_cast<size_t>(index)].first; }
    std::string_view value(int index) const { return entries_[static_cast<size_t>(index)].second; }
    // The value of the first attribute called attribute; false when none is.
    bool find(std::string_view attribute, std::string_view *value) const {
        for (const auto &[name, text] : entries_)
            if (name == attribute) return *value = text, true;
        return false;
    }
    void clear() { entries_.clear(); }
    void add(std::string_view name, std::string_view value) { entries_.emplace_back(name, value); }

  private:
    std::vector<std::pair<std::string_view, std::string_view>> entries_;
};

// The grammar over libxml2's SAX events: depth, root, <Nested> blocks,
// skipping, the name filter and the checks of every attribute, failing the
// parser with the problem. The sink gets only what passed:
//   void callLeftOut(int depth)         a call the names filter leaves out (skipped unread)
//   bool enterNested(int depth)         false: the block is skipped unread
//   CallStart startCall(std::string_view name, const ElementAttributes &attributes,
//                       const ElementTimes &times)
//   void startBelowCall(int depth, std::string_view name, const ElementAttributes &attributes,
//                       const ElementTimes &times)
//   void endElement(int depth)
// A sink whose kTakesEachAttribute is true gets instead, before the start
// calls above (whose attributes are then empty), each element's
//   void beginElement(int depth, std::string_view name)
//   void attribute(std::string_view name, std::string_view value)   but the times
// as the checks pass them (the events: one pass over the attributes).
// A sink that fails the parser (parser().fail) returns at once.
template <class Sink>
class SaxTraceGrammar final : public SaxHandler {
  public:
    SaxTraceGrammar(Sink &sink, const TraceFilter &filter) : sink_(sink), filter_(filter) {}
    void setParser(SaxFileParser *parser) { parser_ = parser; }
    SaxFileParser &parser() { return *parser_; }

    int64_t timeAdjustmentNs() const { return timeAdjustmentNs_; }
    // Digits after the point in the first time value read; -1 before any.
    int timeFractionDigits() const { return timeFractionDigits_; }

    void startElement(std::string_view name, const AttributeList &attributes) override {
        ++depth_;
        if (skipBelowDepth_ > 0) return;
        switch (grammar::roleOf(depth_, name)) {
            case grammar::Role::Root:
                startRoot(name, attributes);
                return;
            case grammar::Role::NestedBlock:
                if (!sink_.enterNested(depth_)) skipBelowDepth_ = depth_;
                return;
            case grammar::Role::Call:
                if (!grammar::nameWanted(filter_, name)) {
                    skipBelowDepth_ = depth_;
                    sink_.callLeftOut(depth_);
                    return;
                }
                if (!attributesFit(depth_, name, attributes)) return;
                switch (sink_.startCall(name, attributes_, times_)) {
                    case grammar::CallStart::Read:
                        return;
                    case grammar::CallStart::Skip:
                        skipBelowDepth_ = depth_;
                        return;
                    case grammar::CallStart::Stop:
                        parser_->stop();
                        return;
                }
                return;
            case grammar::Role::BelowCall:
                if (!attributesFit(depth_, name, attributes)) return;
                sink_.startBelowCall(depth_, name, attributes_, times_);
                return;
        }
    }

    void endElement(std::string_view) override {
        const int depth = depth_--;
        if (skipBelowDepth_ > 0) {
            if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
            return;
        }
        sink_.endElement(depth);
    }

  private:
    // A time attribute's value; false (the parser failed) when it is none.
    bool time(std::string_view attribute, std::string_view text, int64_t *nanoseconds) {
        const grammar::TimeRead read =
            grammar::readTime(timeAdjustmentNs_, text, nanoseconds, &timeFractionDigits_);
        if (read == grammar::TimeRead::Ok) return true;
        parser_->fail(grammar::timeProblem(read, attribute, text));
        return false;
    }

    void startRoot(std::string_view name, const AttributeList &attributes) {
        if (!grammar::isRoot(name)) return parser_->fail(grammar::rootProblem(name));
        std::string_view adjustment;
        if (!attributes.find("timeAdjustment", &adjustment)) return;
        const auto parsed = parseDecimalSeconds(adjustment);
        if (!parsed) return parser_->fail(grammar::timeAdjustmentProblem(adjustment));
        timeAdjustmentNs_ = parsed->nanoseconds;
    }

    // Times are times, numbers fit in 64 bits: the first that does not
    // fails. The times go into times_, the other attributes to the sink or
    // into attributes_.
    bool attributesFit(int depth, std::string_view name, const AttributeList &attributes) {
        times_ = grammar::ElementTimes();
        if constexpr (Sink::kTakesEachAttribute) sink_.beginElement(depth, name);
        attributes_.clear();
        for (int index = 0; index < attributes.size(); ++index) {
            const std::string_view attribute = attributes.name(index);
            const std::string_view value = attributes.value(index);
            if constexpr (!Sink::kTakesEachAttribute) attributes_.add(attribute, value);
            if (grammar::isStartTime(attribute)) {
                if (!time(attribute, value, &times_.startNs)) return false;
                times_.hasStart = true;
            } else if (grammar::isEndTime(attribute)) {
                if (!time(attribute, value, &times_.endNs)) return false;
                times_.hasEnd = true;
            } else if (isNumberAttribute(attribute) && isOutOfRangeInteger(value)) {
                parser_->fail(grammar::beyondSixtyFourBits(attribute, value));
                return false;
            } else if constexpr (Sink::kTakesEachAttribute) {
                sink_.attribute(attribute, value);
            }
        }
        return true;
    }

    Sink &sink_;
    const TraceFilter &filter_;
    SaxFileParser *parser_ = nullptr;
    int depth_ = 0;
    int skipBelowDepth_ = 0;  // > 0: everything deeper than this is skipped
    int64_t timeAdjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    grammar::ElementTimes times_;
    ElementAttributes attributes_;
};

}  // namespace hdtrace::reader
