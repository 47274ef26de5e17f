#include "FileRegistry.hpp"

#include "HandleGeneration.hpp"
#include "InfoLines.hpp"

namespace hdtracempi {

const FileRecord *FileRegistry::makeRecord(const std::string &name, int64_t size) {
    FileRecord &record = records_.emplace_back();
    record.id = static_cast<int64_t>(records_.size()) - 1;
    record.infoLine = fileLine(name, size, record.id);
    byName_[name] = &record;
    return &record;
}

const FileRecord *FileRegistry::opened(const char *name, MPI_File fh) {
    const std::string key = name ? name : "";
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byName_.find(key);
    const FileRecord *record = nullptr;
    if (found != byName_.end()) {
        record = found->second;
    } else {
        MPI_Offset size = 0;
        if (PMPI_File_get_size(fh, &size) != MPI_SUCCESS) size = 0;
        record = makeRecord(key, size);
    }
    byHandle_[fh] = OpenFile{record, -1};
    return record;
}

const FileRecord *FileRegistry::named(const char *name, bool makeIfMissing) {
    const std::string key = name ? name : "";
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byName_.find(key);
    if (found != byName_.end()) return found->second;
    return makeIfMissing ? makeRecord(key, 0) : nullptr;
}

const FileRecord *FileRegistry::find(MPI_File fh) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byHandle_.find(fh);
    return found != byHandle_.end() ? found->second.record : nullptr;
}

void FileRegistry::closed(MPI_File fh) {
    std::lock_guard<std::mutex> lock(mutex_);
    byHandle_.erase(fh);
    bumpGeneration(generation_);
}

void FileRegistry::beginSplit(MPI_File fh, int64_t rid) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byHandle_.find(fh);
    if (found != byHandle_.end()) found->second.pendingSplitRid = rid;
}

int64_t FileRegistry::endSplit(MPI_File fh) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byHandle_.find(fh);
    if (found == byHandle_.end()) return -1;
    const int64_t rid = found->second.pendingSplitRid;
    found->second.pendingSplitRid = -1;
    return rid;
}

}  // namespace hdtracempi
