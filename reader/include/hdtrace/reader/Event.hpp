// One element of a trace: a call with its times, attributes and children.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::reader {

struct Attribute {
    std::string name;
    std::string value;  // decoded text, as written
};

struct Event {
    std::string name;  // the tag: the MPI function without "MPI_", or Data, For, Info, ...
    bool hasStart = false;
    bool hasEnd = false;
    int64_t startNs = 0;  // absolute: timeAdjustment + time, in nanoseconds since the epoch
    int64_t endNs = 0;
    std::vector<Attribute> attributes;  // every attribute but time and end, in document order
    // Nested calls (from the <Nested> block before this element) first, then
    // the element's own children (<Data>, <For>, <Info>, ...) in document order.
    std::vector<Event> children;
    int line = 0;  // where the element starts; 0: not known (a slice read)

    // The attribute's value, or nullptr when the element has none by that name.
    const std::string *attribute(std::string_view attributeName) const {
        for (const Attribute &attribute : attributes)
            if (std::string_view(attribute.name) == attributeName) return &attribute.value;
        return nullptr;
    }

    void clear() {
        name.clear();
        hasStart = hasEnd = false;
        startNs = endNs = 0;
        attributes.clear();
        children.clear();
        line = 0;
    }
};

}  // namespace hdtrace::reader
