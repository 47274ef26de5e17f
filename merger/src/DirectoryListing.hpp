// The names in a directory, read once and kept sorted, each with the file
// type the directory itself records. A run of 100,000 ranks is 200,000
// files in one directory: discovery asks about each of them several times
// (is there a .info, a .trc, is it a regular file), and answers them from
// the listing, without a system call or an allocation per question.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "FlatMap.hpp"
#include "TextArena.hpp"
#include "TextKey.hpp"

namespace hdtrace::merger {

class DirectoryListing {
  public:
    // What the directory says of an entry's type, without following a
    // symbolic link; Unknown where it does not say (some file systems).
    enum class Type : uint8_t { Unknown, Regular, Other };

    struct Entry {
        std::string_view name;
        Type type;
    };

    // Lists the directory ("" is the working directory); false with *error
    // set when it cannot be read.
    bool read(const std::string &directory, std::string *error);

    const std::vector<Entry> &sorted() const { return entries_; }
    // The entry of this name, or nullptr. `near`, an index into sorted(),
    // is where the caller expects it: the few entries from there are
    // looked at first (a trace's .info and .trc are neighbours), the
    // index of all names only when it is not there.
    const Entry *find(std::string_view name, size_t near = SIZE_MAX) const;

  private:
    static constexpr size_t kNearEntries = 3;

    TextArena names_;
    std::vector<Entry> entries_;  // by name
    // Index into entries_ by name; made on the first lookup that needs it.
    mutable FlatMap<TextKey, uint32_t, TextKeyHash, TextKeyEqual> byName_;
    mutable bool indexed_ = false;
};

// Each directory listed once, on first use.
class DirectoryListings {
  public:
    // nullptr when the directory cannot be read; *error says why.
    const DirectoryListing *of(const std::string &directory, std::string *error);

  private:
    struct Listed {
        std::unique_ptr<DirectoryListing> listing;  // nullptr when unreadable
        std::string error;
    };
    std::unordered_map<std::string, Listed> listings_;
};

}  // namespace hdtrace::merger
