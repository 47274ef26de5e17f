#include "PosixFiles.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <hdtrace/codec/Inlining.hpp>

#include "CallSelection.hpp"
#include "FilePaths.hpp"
#include "Runtime.hpp"

// Defined beside the wrappers (generated PosixWrappers.cpp): reading it here makes a
// static link take them whenever it takes the runtime.
extern "C" const char hdtracempi_posix;

namespace hdtracempi {

std::atomic<bool> gPosixTracing{false};
const FileRecord kUntracedFile{};
const FileRecord kUnopenedFile{};

namespace {

using Slot = std::atomic<const FileRecord *>;
// Descriptors in chunks, made on first use: 4096 chunks of 4096 cover any
// descriptor limit in practice; one beyond is not traced.
constexpr int kChunkBits = 12;
constexpr int kChunkSize = 1 << kChunkBits;
constexpr int kChunks = 1 << 12;
std::atomic<Slot *> gChunks[kChunks];

const ExcludedPaths *gExcluded = nullptr;
bool gForkHandlerInstalled = false;

void stopInForkChild() {
    gPosixTracing.store(false, std::memory_order_relaxed);
}

HDTRACE_CALL_PATH Slot *slotOf(int fd) {
    if (fd < 0 || (fd >> kChunkBits) >= kChunks) return nullptr;
    std::atomic<Slot *> &chunkPointer = gChunks[fd >> kChunkBits];
    Slot *chunk = chunkPointer.load(std::memory_order_acquire);
    if (!chunk) {
        Slot *fresh = new Slot[kChunkSize]();
        if (chunkPointer.compare_exchange_strong(chunk, fresh, std::memory_order_acq_rel))
            chunk = fresh;
        else
            delete[] fresh;  // another thread's chunk won
    }
    return &chunk[fd & (kChunkSize - 1)];
}

// The record of a normalised path, or kUntracedFile when it is left out.
bool leftOut(const std::string &normalised) {
    return !gExcluded || gExcluded->excludes(normalised) || !traceFilter().tracesFile(normalised);
}

const FileRecord *recordOfPath(std::string_view given, const std::string &normalised, int fd) {
    if (leftOut(normalised)) return &kUntracedFile;
    return gRuntime->files.openedPath(given, normalised, fd);
}

// What /proc/self/fd says fd is: a path, or "socket:[...]", "pipe:[...]".
std::string linkTarget(const std::string &link) {
    std::string target(256, '\0');
    for (;;) {
        const ssize_t length = ::readlink(link.c_str(), target.data(), target.size());
        if (length < 0) return {};
        if (static_cast<size_t>(length) < target.size()) {
            target.resize(static_cast<size_t>(length));
            return target;
        }
        if (target.size() > (1u << 16)) return {};
        target.resize(target.size() * 2);
    }
}

const FileRecord *lookUpDescriptor(int fd) {
    std::string path = linkTarget("/proc/self/fd/" + std::to_string(fd));
    static constexpr std::string_view kDeleted = " (deleted)";
    if (path.empty() || path.front() != '/' ||
        (path.size() > kDeleted.size() &&
         std::string_view(path).substr(path.size() - kDeleted.size()) == kDeleted))
        return &kUntracedFile;
    return recordOfPath(path, path, fd);
}

}  // namespace

void startPosixLayer() {
    static_cast<void>(*static_cast<const volatile char *>(&hdtracempi_posix));
    if (!tracesCLibraryCalls()) return;
    gExcluded = new ExcludedPaths();
    if (!gForkHandlerInstalled) {
        pthread_atfork(nullptr, nullptr, stopInForkChild);
        gForkHandlerInstalled = true;
    }
    gPosixTracing.store(true, std::memory_order_release);
}

void stopPosixLayer() {
    gPosixTracing.store(false, std::memory_order_release);
}

HDTRACE_CALL_PATH const FileRecord *fileOfDescriptor(int fd) {
    Slot *slot = slotOf(fd);
    if (!slot) return &kUntracedFile;
    if (const FileRecord *record = slot->load(std::memory_order_acquire)) return record;
    const FileRecord *record = lookUpDescriptor(fd);
    slot->store(record, std::memory_order_release);
    return record;
}

const FileRecord *descriptorOpened(int fd, const char *path, int dirFd) {
    Slot *slot = slotOf(fd);
    if (!slot) return &kUntracedFile;
    const FileRecord *record;
    if (path && (path[0] == '/' || dirFd == AT_FDCWD))
        record = recordOfPath(path, normalisedPath(path), fd);
    else
        record = lookUpDescriptor(fd);  // relative to another directory
    slot->store(record, std::memory_order_release);
    return record;
}

const FileRecord *fileOfFailedOpen(const char *path, int dirFd) {
    if (!path || (path[0] != '/' && dirFd != AT_FDCWD)) return &kUntracedFile;
    const std::string normalised = normalisedPath(path);
    if (leftOut(normalised)) return &kUntracedFile;
    const FileRecord *record = gRuntime->files.known(normalised);
    return record ? record : &kUnopenedFile;
}

void descriptorClosed(int fd) {
    // No chunk is made here: close() runs before the program's main, and a
    // descriptor of a chunk never made was never recorded.
    if (fd < 0 || (fd >> kChunkBits) >= kChunks) return;
    if (Slot *chunk = gChunks[fd >> kChunkBits].load(std::memory_order_acquire))
        chunk[fd & (kChunkSize - 1)].store(nullptr, std::memory_order_release);
}

void descriptorUntraced(int fd) {
    if (Slot *slot = slotOf(fd)) slot->store(&kUntracedFile, std::memory_order_release);
}

}  // namespace hdtracempi
