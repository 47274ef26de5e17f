#include "FileRegistry.hpp"

#include <sys/stat.h>

#include "FilePaths.hpp"
#include "HandleGeneration.hpp"
#include "InfoLines.hpp"

namespace hdtracempi {

const FileRecord *FileRegistry::makeRecord(std::string_view name, const std::string &key,
                                           int64_t size) {
    FileRecord &record = records_.emplace_back();
    record.id = static_cast<int64_t>(records_.size()) - 1;
    record.infoLine = fileLine(name, size, record.id);
    byName_[key] = &record;
    return &record;
}

const FileRecord *FileRegistry::opened(const char *name, MPI_File fh) {
    const std::string_view given = name ? name : "";
    const std::string key = normalisedPath(given);
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byName_.find(key);
    const FileRecord *record = nullptr;
    if (found != byName_.end()) {
        record = found->second;
    } else {
        MPI_Offset size = 0;
        if (PMPI_File_get_size(fh, &size) != MPI_SUCCESS) size = 0;
        record = makeRecord(given, key, size);
    }
    byHandle_[fh] = OpenFile{record, -1};
    return record;
}

const FileRecord *FileRegistry::named(const char *name, bool makeIfMissing) {
    const std::string_view given = name ? name : "";
    const std::string key = normalisedPath(given);
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byName_.find(key);
    if (found != byName_.end()) return found->second;
    return makeIfMissing ? makeRecord(given, key, 0) : nullptr;
}

const FileRecord *FileRegistry::openedPath(std::string_view name, const std::string &normalised,
                                           int fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byName_.find(normalised);
    if (found != byName_.end()) return found->second;
    struct stat status;
    const int64_t size = ::fstat(fd, &status) == 0 ? static_cast<int64_t>(status.st_size) : 0;
    return makeRecord(name, normalised, size);
}

const FileRecord *FileRegistry::known(const std::string &normalised) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byName_.find(normalised);
    return found != byName_.end() ? found->second : nullptr;
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
