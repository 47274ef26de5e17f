// FileRegistry: file ids (docs/format/info.md). One id per file, known by
// its normalised path (FilePaths.hpp), kept when the file is opened again,
// whether through MPI_File_open or the C library (the POSIX layer); open
// handles map to that id. The File line names the file as it was first
// named. Each handle also holds the rid of its pending split collective
// (section 2.3.7).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include <mpi.h>

namespace hdtracempi {

struct FileRecord {
    int64_t id = -1;
    std::string infoLine;  // carries the size at the first open
};

class FileRegistry {
  public:
    // After a successful MPI_File_open: the name's record (made now, with
    // the file's current size, on the first open) now also belongs to fh.
    const FileRecord *opened(const char *name, MPI_File fh);
    // The record of a name (MPI_File_delete, a failed open); made with size
    // 0 when makeIfMissing and the name was never seen, else nullptr.
    const FileRecord *named(const char *name, bool makeIfMissing);
    // A file the C library opened (or a descriptor whose path was looked
    // up): the record of the normalised path, made now with the size of the
    // open descriptor fd when the path was never seen.
    const FileRecord *openedPath(std::string_view name, const std::string &normalised, int fd);
    // The record of a normalised path, nullptr when it was never opened.
    const FileRecord *known(const std::string &normalised);
    const FileRecord *find(MPI_File fh);  // nullptr for unknown handles
    void closed(MPI_File fh);             // before MPI_File_close
    // Changes whenever a handle is closed, so that per-thread caches know
    // when to drop their entry.
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

    // Split collectives: only one can be pending per file handle.
    void beginSplit(MPI_File fh, int64_t rid);
    int64_t endSplit(MPI_File fh);  // -1 when none was pending

  private:
    const FileRecord *makeRecord(std::string_view name, const std::string &key, int64_t size);

    struct OpenFile {
        const FileRecord *record = nullptr;
        int64_t pendingSplitRid = -1;
    };
    std::mutex mutex_;
    std::unordered_map<std::string, const FileRecord *> byName_;
    std::unordered_map<MPI_File, OpenFile> byHandle_;
    std::deque<FileRecord> records_;
    std::atomic<uint64_t> generation_{0};
};

}  // namespace hdtracempi
