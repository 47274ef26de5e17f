#include <string>
#include <unordered_map>
#include <vector>

#include <hdtrace/codec/CallPlans.hpp>

namespace hdtrace {

using namespace compact;

namespace {

// The plans of every static shape whose own attributes are all numbers,
// and the same by name: calls (ending in time and end) and elements
// without times (children of calls); built once.
struct PlanTable {
    std::vector<CallPlan> plans;
    std::unordered_map<std::string_view, const CallPlan *> callsByName;
    std::unordered_map<std::string_view, const CallPlan *> childrenByName;
};

const PlanTable &planTable() {
    static const PlanTable table = [] {
        PlanTable built;
        for (uint32_t shape = 0; shape < staticShapeCount(); ++shape) {
            const StaticShape &known = staticShapes()[shape];
            const bool timed = known.count >= 2 &&
                               known.attributes[known.count - 2].coding == kTime &&
                               known.attributes[known.count - 1].coding == kEnd;
            const uint32_t own = timed ? known.count - 2 : known.count;
            bool numbersAndTexts = true;
            bool hasText = false;
            for (uint32_t index = 0; index < own; ++index) {
                const uint8_t coding = known.attributes[index].coding;
                hasText = hasText || coding == kText;
                numbersAndTexts = numbersAndTexts && (isIntegerCoding(coding) || coding == kText);
            }
            if (!numbersAndTexts) continue;
            const auto maxBytes = static_cast<uint32_t>(kMaxVarintBytes * (known.count + 1));
            CallPlan plan{known.element,
                          known.attributes,
                          own,
                          shape,
                          staticFieldOffset(shape),
                          maxBytes,
                          timed,
                          hasText,
                          0,
                          {},
                          nullptr};
            bool listed = true;  // a shape of more texts takes the general way
            for (uint32_t index = 0; listed && index < own; ++index) {
                if (known.attributes[index].coding != kText) continue;
                listed = plan.textCount < CallPlan::kMaxTexts;
                if (listed) plan.textAt[plan.textCount++] = static_cast<uint8_t>(index);
            }
            if (listed) built.plans.push_back(plan);
        }
        // Filled after the vector stops growing, so that the pointers hold.
        const auto isPrefixOf = [](const CallPlan &shorter, const CallPlan &longer) {
            if (shorter.timed != longer.timed || shorter.own >= longer.own ||
                !compact_items::sameName(shorter.element, longer.element))
                return false;
            for (uint32_t index = 0; index < shorter.own; ++index)
                if (shorter.attributes[index].coding != longer.attributes[index].coding ||
                    !compact_items::sameName(shorter.attributes[index].name,
                                             longer.attributes[index].name))
                    return false;
            return true;
        };
        for (CallPlan &longer : built.plans)
            for (const CallPlan &shorter : built.plans)
                if (isPrefixOf(shorter, longer) &&
                    (!longer.shorter || longer.shorter->own < shorter.own))
                    longer.shorter = &shorter;
        for (const CallPlan &plan : built.plans) {
            auto &byName = plan.timed ? built.callsByName : built.childrenByName;
            const auto [entry, added] = byName.emplace(plan.element, &plan);
            if (!added && entry->second->own < plan.own) entry->second = &plan;
        }
        return built;
    }();
    return table;
}

}  // namespace

const CallPlan *callPlans(uint32_t *count) {
    const PlanTable &table = planTable();
    *count = static_cast<uint32_t>(table.plans.size());
    return table.plans.data();
}

CallPlanCache::CallPlanCache() {
    planTable();  // built now rather than in the first traced call
}

const CallPlan *CallPlanCache::planMiss(std::string_view name, bool timed) {
    const auto &byName = timed ? planTable().callsByName : planTable().childrenByName;
    const auto found = byName.find(name);
    if (found == byName.end()) return nullptr;
    cache_[slot(name.data())] = CachedPlan{name.data(), found->second};
    return found->second;
}

}  // namespace hdtrace
