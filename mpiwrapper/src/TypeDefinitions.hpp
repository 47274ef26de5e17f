// TypeDefinitions: the ids and .info lines of recently declared derived
// types, by their definition (definitionKey: combiner, name, the
// constructor's arrays, the ids of the types it was built from; size, lb
// and extent follow from these). A program like parallel HDF5 makes and
// frees the same few types for every transfer; giving an identical
// definition the id and line it had keeps one line per definition in the
// .info instead of one per construction, and spares formatting the line
// and asking MPI for its figures again. The table is bounded (sets of
// four: a new definition takes the place of the one of its set used least
// recently; with sets of two, three definitions of one set used in turn
// pushed each other out every time), so that a program making ever new
// types does not grow the wrapper's memory; a definition pushed out only
// gets a new id and line when it comes back. Not thread-safe: the type
// registry locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hdtracempi {

// A constructor's integers and addresses as bytes, into packed (whose
// memory is reused): what a definition's key holds of them, copied rather
// than formatted, since most definitions are met again.
void packTypeArguments(std::string &packed, const int64_t *integers, size_t integerCount,
                       const int64_t *addresses, size_t addressCount);
// The integers and addresses packTypeArguments packed.
void unpackTypeArguments(const std::string &packed, std::vector<int64_t> &integers,
                         std::vector<int64_t> &addresses);

// The key of a derived type's definition: its combiner, name, packed
// arguments and the ids of its input types, written at the start of buffer
// (whose memory is reused; bytes after the key are left over from before).
std::string_view definitionKey(std::string &buffer, int combiner, std::string_view name,
                               std::string_view packedArguments, const int64_t *typeIds,
                               size_t typeCount);

class TypeDefinitions {
  public:
    static constexpr size_t kSets = 2048;
    static constexpr size_t kWays = 4;

    struct Known {
        int64_t id = -1;                    // -1: not known
        const std::string *line = nullptr;  // valid until the next remember
        int64_t size = 0;                   // MPI_Type_size_x, 0 where undefined
    };
    // What was remembered for key.
    Known find(std::string_view key);
    // Remembers the id, line and size of a definition find did not know.
    void remember(std::string_view key, int64_t id, std::string_view line, int64_t size);

    // The set a key's definition is kept in.
    static size_t setOf(std::string_view key) { return hashOf(key) % kSets; }

  private:
    struct Slot {
        uint64_t hash = 0;
        int64_t id = -1;
        int64_t size = 0;
        uint64_t used = 0;  // when found or filled last (uses_)
        std::string key;
        std::string line;
    };
    static uint64_t hashOf(std::string_view key);
    // kSets * kWays once the first definition comes; set s holds slots
    // [s * kWays, s * kWays + kWays).
    std::vector<Slot> slots_;
    uint64_t uses_ = 0;
};

}  // namespace hdtracempi
