#include "ProjectCheck.hpp"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/PiosimTypes.hpp>

#include "FlatMap.hpp"
#include "TextKey.hpp"

namespace hdtrace::merger {
namespace {

const std::string *attributeOf(const TypeElement &element, const char *name) {
    for (const auto &[key, value] : element.attributes)
        if (std::string(key) == name) return &value;
    return nullptr;
}

// The ids a rank has defined so far: open addressing in one array, twice
// as many slots as the rank has elements, where a node-based set cost an
// allocation per element on every rank of the run.
class DefinedIds {
  public:
    explicit DefinedIds(size_t most) {
        size_t slots = 16;
        while (slots < 2 * most)
            slots *= 2;
        slots_.assign(slots, nullptr);
    }

    bool contains(const std::string &id) const { return slots_[slotOf(id)] != nullptr; }

    // False when the id was there already.
    bool insert(const std::string &id) {
        const std::string *&slot = slots_[slotOf(id)];
        if (slot) return false;
        slot = &id;
        return true;
    }

  private:
    // The slot holding id, or the empty one where it would go.
    size_t slotOf(const std::string &id) const {
        const size_t mask = slots_.size() - 1;
        size_t slot = std::hash<std::string_view>()(id) & mask;
        while (slots_[slot] && *slots_[slot] != id)
            slot = (slot + 1) & mask;
        return slot;
    }

    std::vector<const std::string *> slots_;  // nullptr: empty
};

bool toolsKnowName(const std::string &name) {
    for (const PiosimNamedType &known : kPiosimNamedTypes)
        if (known.name == name) return true;
    return false;
}

bool toolsReadInFull(const std::string &tag) {
    for (std::string_view form : kPiosimFullForms)
        if (form == tag) return true;
    return false;
}

bool toolsReadAsPlaceholder(const std::string &tag) {
    for (std::string_view form : kPiosimPlaceholderForms)
        if (form == tag) return true;
    return false;
}

// The first number of the element or its children that the tools read as a
// 32-bit integer and that does not fit one; ids they read as 64 bits.
const std::string *numberBeyondTools(const TypeElement &element) {
    const auto beyond = [](const TypeElement &e) -> const std::string * {
        for (const auto &[name, value] : e.attributes) {
            bool readAsInt = false;
            for (std::string_view key : kPiosimIntAttributes)
                readAsInt = readAsInt || key == name;
            if (!readAsInt) continue;
            errno = 0;
            const long long number = std::strtoll(value.c_str(), nullptr, 10);
            if (errno == ERANGE || number > kPiosimLargestNumber ||
                number < -kPiosimLargestNumber - 1)
                return &value;
        }
        return nullptr;
    };
    if (const std::string *found = beyond(element)) return found;
    for (const TypeElement &child : element.children)
        if (const std::string *found = beyond(child)) return found;
    return nullptr;
}

}  // namespace

TypeElementCheck checkTypeElement(const TypeElement &element) {
    TypeElementCheck check;
    check.tag = element.tag;
    if (const std::string *id = attributeOf(element, "id")) check.id = *id;
    const auto fail = [&](std::string what) { check.failures.push_back(std::move(what)); };
    if (element.tag == "NAMED") {
        const std::string *name = attributeOf(element, "name");
        if (!name || !toolsKnowName(*name))
            fail("the PIOsim tools know no predefined type named '" + (name ? *name : "") +
                 "' (they refuse the whole project); the .info line has no size and "
                 "extent, so it was written before HDTrace wrote them: trace the program "
                 "again, then merge");
    }
    if (!toolsReadInFull(element.tag)) {
        fail(std::string(toolsReadAsPlaceholder(element.tag)
                             ? "the PIOsim tools read this element as a placeholder of "
                               "size 0, so the simulator moves no bytes for it"
                             : "the PIOsim tools know no datatype element of this name "
                               "(they refuse the whole project)") +
             "; the .info line has no size, lb and extent, so it was written before "
             "HDTrace wrote them: trace the program again, then merge");
    } else if (const std::string *large = numberBeyondTools(element)) {
        fail("the number " + *large +
             " does not fit the 32-bit integers the PIOsim tools read (they refuse the "
             "whole project); the type is too large for them");
    }
    if (const std::string *oldType = attributeOf(element, "oldType"))
        check.references.push_back(*oldType);
    for (const TypeElement &child : element.children)
        if (child.tag == "Type")
            if (const std::string *id = attributeOf(child, "id")) check.references.push_back(*id);
    return check;
}

void checkRankTypes(const RunModel &run, int64_t rank,
                    const std::vector<PlacedTypeElement> &elements, Diagnostics &diagnostics) {
    // The ids point into the checks, which outlive this call.
    DefinedIds defined(elements.size());
    const std::string rankText = "rank " + std::to_string(rank) + ": ";
    for (const PlacedTypeElement &placed : elements) {
        const TypeElementCheck &element = *placed.check;
        const auto fail = [&](const std::string &what) {
            diagnostics.failedCheck(run.infoPathOf(placed.source), placed.source.line,
                                    rankText + "<" + element.tag + " id='" +
                                        (element.id ? *element.id : "?") + "'>: " + what);
        };
        for (const std::string &failure : element.failures)
            fail(failure);
        for (const std::string &referenced : element.references)
            if (!defined.contains(referenced))
                fail("references type id " + referenced + ", not defined before it");
        if (element.id && !defined.insert(*element.id))
            fail("the id is defined twice in this rank");
    }
}

void checkCommunicators(const std::vector<UnifiedCommunicator> &communicators,
                        Diagnostics &diagnostics) {
    // The names point into communicators, which outlive the map.
    FlatMap<TextKey, size_t, TextKeyHash, TextKeyEqual> firstWithName(communicators.size());
    bool world = false;
    for (size_t i = 0; i < communicators.size(); ++i) {
        const std::string &name = communicators[i].name;
        world = world || name == "WORLD";
        if (name.empty()) continue;
        const auto [found, added] = firstWithName.tryEmplace(TextKey::of(name), i);
        if (!added)
            diagnostics.failedCheck("", 0,
                                    "communicator " + std::to_string(i + 1) +
                                        " of the list is "
                                        "named '" +
                                        name + "' like communicator " + std::to_string(*found + 1) +
                                        ": the PIOsim tools keep only one of them");
    }
    if (!communicators.empty() && !world)
        diagnostics.failedCheck("", 0, "no communicator is named WORLD");
}

}  // namespace hdtrace::merger
