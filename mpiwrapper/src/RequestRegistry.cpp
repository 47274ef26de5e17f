#include "RequestRegistry.hpp"

namespace hdtracempi {

int64_t RequestRegistry::created(MPI_Request request, bool persistent) {
    const int64_t rid = newId();
    if (request == MPI_REQUEST_NULL) return rid;
    std::lock_guard<std::mutex> lock(mutex_);
    pending_[request] = Entry{rid, persistent, !persistent};
    return rid;
}

RequestRegistry::Entry RequestRegistry::find(MPI_Request request) {
    if (request == MPI_REQUEST_NULL) return Entry{};
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(request);
    return found != pending_.end() ? found->second : Entry{};
}

void RequestRegistry::started(MPI_Request request) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(request);
    if (found != pending_.end()) found->second.active = true;
}

void RequestRegistry::completed(MPI_Request request) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = pending_.find(request);
    if (found == pending_.end()) return;
    if (found->second.persistent)
        found->second.active = false;
    else
        pending_.erase(found);
}

void RequestRegistry::freed(MPI_Request request) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.erase(request);
}

}  // namespace hdtracempi
