// StateParts: what TraceWriter holds of one open state until it ends, in
// the form of the trace's encoding (StateEncoding): its name and the
// attributes that were not kept as typed values, its child elements, the
// nested states that ended inside it. One per depth, reused from state to
// state, so that a steady stream of states allocates nothing.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include <hdtrace/Timestamp.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

namespace hdtrace {

struct StateParts {
    // '<', the name, then the attributes as the encoding writes them: the
    // XML text's "<Name a='1'", or compact items after "<Name".
    TextBuffer head;
    TextBuffer children;  // child elements and events
    TextBuffer nested;    // nested states that ended
    size_t nameLength = 0;
    Timestamp start;
    bool childOpen = false;
    size_t childBeganAt = 0;  // what the encoding's beginChild returned

    std::string_view name() const { return head.view().substr(1, nameLength); }
    // The attributes after the name.
    std::string_view attributes() const { return head.view().substr(1 + nameLength); }

    __attribute__((always_inline)) void open(std::string_view stateName, Timestamp at) {
        head.clear();
        char *out = head.reserve(1 + stateName.size());
        *out = '<';
        std::memcpy(out + 1, stateName.data(), stateName.size());
        head.commit(out + 1 + stateName.size());
        nameLength = stateName.size();
        children.clear();
        nested.clear();
        start = at;
        childOpen = false;
    }
};

}  // namespace hdtrace
