#include "MessageRegistry.hpp"

namespace hdtracempi {

int64_t MessageRegistry::probed(MPI_Message message, const MessageRecord &record) {
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC) return -1;
    MessageRecord stored = record;
    stored.mid = nextId_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex_);
    byHandle_[message] = stored;
    return stored.mid;
}

MessageRecord MessageRegistry::take(MPI_Message message) {
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC) return MessageRecord{};
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byHandle_.find(message);
    if (found == byHandle_.end()) return MessageRecord{};
    const MessageRecord record = found->second;
    byHandle_.erase(found);
    return record;
}

}  // namespace hdtracempi
