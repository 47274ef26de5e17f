// A text as the key of a FlatMap: a view of text kept elsewhere (which must
// stay in place while the map holds it) with its hash, compared by hash
// first.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace hdtrace::merger {

struct TextKey {
    size_t hash = 0;
    std::string_view text;

    static TextKey of(std::string_view text) { return {std::hash<std::string_view>()(text), text}; }
};

struct TextKeyHash {
    size_t operator()(const TextKey &key) const { return key.hash; }
};

struct TextKeyEqual {
    bool operator()(const TextKey &a, const TextKey &b) const {
        return a.hash == b.hash && a.text == b.text;
    }
};

}  // namespace hdtrace::merger
