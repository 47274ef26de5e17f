#include "DirectoryListing.hpp"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hdtrace::merger {
namespace {

DirectoryListing::Type typeOf(const dirent &entry) {
#ifdef _DIRENT_HAVE_D_TYPE
    if (entry.d_type == DT_REG) return DirectoryListing::Type::Regular;
    // A symbolic link is followed when the file is opened: the directory
    // does not say what it leads to.
    if (entry.d_type != DT_UNKNOWN && entry.d_type != DT_LNK) return DirectoryListing::Type::Other;
#else
    (void)entry;
#endif
    return DirectoryListing::Type::Unknown;
}

}  // namespace

bool DirectoryListing::read(const std::string &directory, std::string *error) {
    DIR *handle = opendir(directory.empty() ? "." : directory.c_str());
    if (!handle) {
        *error = std::strerror(errno);
        return false;
    }
    while (const dirent *entry = readdir(handle))
        entries_.push_back({names_.keep(entry->d_name), typeOf(*entry)});
    closedir(handle);
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry &a, const Entry &b) { return a.name < b.name; });
    return true;
}

const DirectoryListing::Entry *DirectoryListing::find(std::string_view name, size_t near) const {
    for (size_t index = near; index < entries_.size() && index - near < kNearEntries; ++index)
        if (entries_[index].name == name) return &entries_[index];
    if (!indexed_) {
        byName_.reserve(entries_.size());
        for (size_t index = 0; index < entries_.size(); ++index)
            byName_.tryEmplace(TextKey::of(entries_[index].name), static_cast<uint32_t>(index));
        indexed_ = true;
    }
    const uint32_t *found = byName_.find(TextKey::of(name));
    return found ? &entries_[*found] : nullptr;
}

const DirectoryListing *DirectoryListings::of(const std::string &directory, std::string *error) {
    auto [found, added] = listings_.try_emplace(directory);
    Listed &listed = found->second;
    if (added) {
        listed.listing = std::make_unique<DirectoryListing>();
        if (!listed.listing->read(directory, &listed.error)) listed.listing.reset();
    }
    if (!listed.listing) *error = listed.error;
    return listed.listing.get();
}

}  // namespace hdtrace::merger
