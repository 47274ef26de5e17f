// CallPlans: the calls and child elements of the dialect's static shapes
// (CompactFormat.hpp) as plans: which attributes a state of that name
// takes, in which order, and how each is coded. A writer that is given a
// call's attributes in its plan's order keeps them as values only, without
// names, and either form writes the call from its plan and the values:
// the XML text from the plan's names, the compact record from its codings.
#pragma once

#include <cstdint>
#include <string_view>

#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Inlining.hpp>

namespace hdtrace {

// How an element of a static shape whose own attributes are numbers and
// texts is gathered and written: a call (its own attributes are the
// shape's but time and end) or a child element of a call (all of the
// shape's). One per such shape, made once from the generated table. A
// text's value is a handle into the texts given with the values
// (typedTextHandle).
struct CallPlan {
    std::string_view element;                   // the element's name
    const compact::ShapeAttribute *attributes;  // own attributes (then time and end)
    uint32_t own;
    uint32_t shape;
    uint32_t fieldBase;  // compact::staticFieldOffset(shape)
    uint32_t maxBytes;   // the most the element's compact code and values can take
    bool timed;          // a call: time and end follow the own attributes
    bool hasText;        // some own attributes are texts
    // Where the texts are among the own attributes, so that a call's texts
    // are found without a pass over every attribute. A shape of more texts
    // than kMaxTexts has no plan (the dialect's have at most two).
    static constexpr uint8_t kMaxTexts = 8;
    uint8_t textCount;
    uint8_t textAt[kMaxTexts];
    // The plan of the same element whose own attributes are the first of
    // these, the most of them (a call of a library layer without its error
    // attribute), or nullptr. planOf() gives the one with the most.
    const CallPlan *shorter;
};

// A text value of a typed element as its handle: where it lies in the texts
// given with the values, and its length.
inline int64_t typedTextHandle(size_t offset, size_t length) {
    return static_cast<int64_t>((static_cast<uint64_t>(offset) << 32) | length);
}
inline std::string_view typedText(std::string_view texts, int64_t handle) {
    const auto bits = static_cast<uint64_t>(handle);
    return texts.substr(bits >> 32, bits & 0xffffffffu);
}

// plan, or the shorter plan of its element with count values, or nullptr.
inline const CallPlan *planWithValues(const CallPlan *plan, uint32_t count) {
    while (plan && plan->own > count)
        plan = plan->shorter;
    return plan && plan->own == count ? plan : nullptr;
}

// A typed call's child elements (their plans, and their values one after
// the other) and its nested states, each a leaf call (their plans, values,
// and start and end times one pair after the other).
struct TypedChildren {
    const CallPlan *const *plans = nullptr;
    uint32_t count = 0;
    const int64_t *values = nullptr;
};
struct TypedNested {
    const CallPlan *const *plans = nullptr;
    uint32_t count = 0;
    const int64_t *values = nullptr;
    const int64_t *times = nullptr;
};

// Every plan, in the order of the static shapes they are made from.
const CallPlan *callPlans(uint32_t *count);

// The plans by name, for one writer: cached by the address of the name, as
// callers pass the same literal each time; a hit is checked against the
// name's text.
class CallPlanCache {
  public:
    CallPlanCache();
    // The plan of the call (timed) or child element named name, or nullptr
    // (not one of the dialect's, or one whose attributes are not all
    // numbers and texts).
    const CallPlan *planOf(std::string_view name, bool timed) {
        const CachedPlan &cached = cache_[slot(name.data())];
        if (HDTRACE_LIKELY(cached.name == name.data() && cached.plan &&
                           cached.plan->timed == timed &&
                           compact_items::sameNameOrLiteral(cached.plan->element, name)))
            return cached.plan;
        return planMiss(name, timed);
    }

  private:
    static constexpr size_t kSize = 64;
    struct CachedPlan {
        const char *name = nullptr;
        const CallPlan *plan = nullptr;
    };
    static size_t slot(const char *name) {
        return (reinterpret_cast<uintptr_t>(name) * 0x9E3779B97F4A7C15ull) >> 58;
    }
    const CallPlan *planMiss(std::string_view name, bool timed);
    CachedPlan cache_[kSize];
};

}  // namespace hdtrace
