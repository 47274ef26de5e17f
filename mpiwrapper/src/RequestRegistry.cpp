#include "RequestRegistry.hpp"

#include <algorithm>

namespace hdtracempi {

int64_t RequestRegistry::created(const MPI_Request *variable, bool persistent) {
    const int64_t rid = newId();
    if (*variable == MPI_REQUEST_NULL) return rid;
    std::lock_guard<std::mutex> lock(mutex_);
    pending_[*variable].push_back(Entry{rid, persistent, !persistent, variable});
    return rid;
}

RequestRegistry::Entry RequestRegistry::find(const MPI_Request *variable, const int64_t *excluded,
                                             int excludedCount) {
    if (*variable == MPI_REQUEST_NULL) return Entry{};
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(*variable);
    if (found == pending_.end()) return Entry{};
    const Entry *oldest = nullptr;
    for (const Entry &entry : found->second) {
        if (std::find(excluded, excluded + excludedCount, entry.rid) != excluded + excludedCount)
            continue;
        if (entry.variable == variable) return entry;
        if (!oldest) oldest = &entry;
    }
    return oldest ? *oldest : Entry{};
}

void RequestRegistry::started(MPI_Request request, int64_t rid) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(request);
    if (found == pending_.end()) return;
    for (Entry &entry : found->second)
        if (entry.rid == rid) entry.active = true;
}

void RequestRegistry::completed(MPI_Request request, int64_t rid) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(request);
    if (found == pending_.end()) return;
    std::vector<Entry> &entries = found->second;
    for (auto entry = entries.begin(); entry != entries.end(); ++entry) {
        if (entry->rid != rid) continue;
        if (entry->persistent)
            entry->active = false;
        else
            entries.erase(entry);
        break;
    }
    if (entries.empty()) pending_.erase(found);
}

void RequestRegistry::freed(MPI_Request request, int64_t rid) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(request);
    if (found == pending_.end()) return;
    std::vector<Entry> &entries = found->second;
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [rid](const Entry &entry) { return entry.rid == rid; }),
                  entries.end());
    if (entries.empty()) pending_.erase(found);
}

}  // namespace hdtracempi
