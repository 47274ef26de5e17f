#include "TypeDefinitions.hpp"

#include <cstring>

namespace hdtracempi {

void packTypeArguments(std::string &packed, const int64_t *integers, size_t integerCount,
                       const int64_t *addresses, size_t addressCount) {
    const uint64_t counts[2] = {integerCount, addressCount};
    packed.resize(sizeof counts + (integerCount + addressCount) * sizeof(int64_t));
    char *at = packed.data();
    std::memcpy(at, counts, sizeof counts);
    at += sizeof counts;
    if (integerCount > 0) std::memcpy(at, integers, integerCount * sizeof(int64_t));
    at += integerCount * sizeof(int64_t);
    if (addressCount > 0) std::memcpy(at, addresses, addressCount * sizeof(int64_t));
}

void unpackTypeArguments(const std::string &packed, std::vector<int64_t> &integers,
                         std::vector<int64_t> &addresses) {
    uint64_t counts[2];
    std::memcpy(counts, packed.data(), sizeof counts);
    const char *at = packed.data() + sizeof counts;
    integers.resize(counts[0]);
    addresses.resize(counts[1]);
    if (counts[0] > 0) std::memcpy(integers.data(), at, counts[0] * sizeof(int64_t));
    at += counts[0] * sizeof(int64_t);
    if (counts[1] > 0) std::memcpy(addresses.data(), at, counts[1] * sizeof(int64_t));
}

std::string_view definitionKey(std::string &buffer, int combiner, std::string_view name,
                               std::string_view arguments, const int64_t *typeIds,
                               size_t typeCount) {
    // Fixed-size fields, and the name's length before it: no two
    // definitions give one key.
    const uint32_t nameBytes = static_cast<uint32_t>(name.size());
    const uint32_t argumentBytes = static_cast<uint32_t>(arguments.size());
    const size_t size = sizeof combiner + sizeof nameBytes + name.size() + sizeof argumentBytes +
                        arguments.size() + typeCount * sizeof(int64_t);
    // Grown, never shrunk: resize() fills the bytes it adds, and the keys of
    // a chain of types (contiguous, vector, hindexed) differ in length.
    if (buffer.size() < size) buffer.resize(size);
    char *at = buffer.data();
    const auto put = [&at](const void *bytes, size_t count) {
        if (count > 0) std::memcpy(at, bytes, count);
        at += count;
    };
    put(&combiner, sizeof combiner);
    put(&nameBytes, sizeof nameBytes);
    put(name.data(), name.size());
    put(&argumentBytes, sizeof argumentBytes);
    put(arguments.data(), arguments.size());
    put(typeIds, typeCount * sizeof(int64_t));
    return std::string_view(buffer.data(), size);
}

uint64_t TypeDefinitions::hashOf(std::string_view key) {
    // Eight bytes a step, each step one multiply: a key is mostly 64-bit
    // counts, ids and displacements, and std::hash's mixing cost 1.5 to 2
    // times as many instructions for them (the longer the key, the more).
    constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ull;
    uint64_t hash = key.size() * kMultiplier;
    const char *at = key.data();
    size_t left = key.size();
    for (; left >= 8; left -= 8, at += 8) {
        uint64_t word;
        std::memcpy(&word, at, 8);
        // A difference in one word survives the xor and the odd multiplier;
        // the end brings the high bits, where multiplying moves it, down.
        hash = (hash ^ word) * kMultiplier;
    }
    if (left > 0) {
        uint64_t word = 0;
        std::memcpy(&word, at, left);
        hash = (hash ^ word) * kMultiplier;
    }
    hash ^= hash >> 32;
    hash *= kMultiplier;
    return hash ^ (hash >> 29);
}

TypeDefinitions::Known TypeDefinitions::find(std::string_view key) {
    if (slots_.empty()) return {};
    const uint64_t hash = hashOf(key);
    const size_t set = hash % kSets;
    for (size_t way = 0; way < kWays; ++way) {
        Slot &slot = slots_[set * kWays + way];
        if (slot.id >= 0 && slot.hash == hash && slot.key == key) {
            slot.used = ++uses_;
            return {slot.id, &slot.line, slot.size};
        }
    }
    return {};
}

void TypeDefinitions::remember(std::string_view key, int64_t id, std::string_view line,
                               int64_t size) {
    if (slots_.empty()) slots_.resize(kSets * kWays);
    const uint64_t hash = hashOf(key);
    Slot *const set = &slots_[hash % kSets * kWays];
    // An empty slot (used 0) or else the one used least recently.
    Slot *slot = set;
    for (size_t way = 1; way < kWays; ++way)
        if (set[way].used < slot->used) slot = &set[way];
    slot->hash = hash;
    slot->id = id;
    slot->size = size;
    slot->used = ++uses_;
    slot->key.assign(key);  // reuses the slot's memory
    slot->line.assign(line);
}

}  // namespace hdtracempi
