#include "InfoRecordPool.hpp"

#include <cstdint>
#include <cstring>

namespace hdtrace::merger {
namespace {

// A hash of the whole text, 32 bytes per step in four independent lanes:
// the longest lines (a map with an entry per member, tens of kilobytes on
// every rank of a large run) are hashed at memory speed rather than byte by
// byte. Equal texts are still compared whole, so the hash needs to spread
// texts well, not to be unforgeable.
uint64_t mix(uint64_t value) {
    value ^= value >> 32;
    value *= 0xd6e8feb86659fd93ull;
    value ^= value >> 32;
    return value;
}

size_t hashText(std::string_view text) {
    constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ull;
    uint64_t lanes[4] = {text.size(), 0x243f6a8885a308d3ull, 0x13198a2e03707344ull,
                         0xa4093822299f31d0ull};
    const char *data = text.data();
    size_t left = text.size();
    while (left >= 32) {
        for (uint64_t &lane : lanes) {
            uint64_t word;
            std::memcpy(&word, data, 8);
            lane = (lane ^ word) * kMultiplier;
            lane ^= lane >> 29;
            data += 8;
        }
        left -= 32;
    }
    uint64_t tail[4] = {0, 0, 0, 0};
    std::memcpy(tail, data, left);
    uint64_t hash = 0;
    for (size_t lane = 0; lane < 4; ++lane)
        hash = mix(hash ^ ((lanes[lane] ^ tail[lane]) * kMultiplier));
    return static_cast<size_t>(hash);
}

}  // namespace

HashedText::HashedText(std::string_view lineText) : text(lineText), hash(hashText(lineText)) {}

}  // namespace hdtrace::merger
