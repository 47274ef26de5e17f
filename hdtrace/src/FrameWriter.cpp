#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/MappedMemory.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/codec/Inlining.hpp>

#include "BackgroundWriter.hpp"
#include "FrameIndexEntries.hpp"
#include "TraceRegistry.hpp"
#include "WriteFully.hpp"

namespace hdtrace {

struct FrameWriter::Buffer {
    unsigned char *data = nullptr;  // frameBytes in the writer's frameMemory_
    // (bytes << 32) | records, in one store: a signal handler on the owner
    // thread never sees the bytes of a record without its count.
    std::atomic<uint64_t> committed{0};
    std::atomic<int64_t> earliest{std::numeric_limits<int64_t>::max()};
    std::atomic<int64_t> latest{std::numeric_limits<int64_t>::min()};
    // The frame number these records get: once the index holds more frames
    // than this, they are in the file.
    std::atomic<uint32_t> sequence{0};

    size_t bytes() const { return committed.load(std::memory_order_acquire) >> 32; }
    uint32_t records() const {
        return static_cast<uint32_t>(committed.load(std::memory_order_acquire));
    }
};

namespace {

// The most bytes zstd is given at once: a frame's records, or their
// gathered form, which may be larger (compact::maxGatheredBytes).
size_t largestCompressorInput(const FrameWriterOptions &options) {
    return options.gatherTimes ? compact::maxGatheredBytes(options.frameBytes) : options.frameBytes;
}

// Who holds the frame handed to the background writer.
enum JobState : int {
    kIdle,          // no frame handed over, or written
    kQueued,        // waiting for the writer thread
    kCompressing,   // the writer thread compresses it
    kWriting,       // the writer thread writes it
    kTakenByCrash,  // a crash handler wrote it uncompressed
};

// How long a crash handler waits for the writer thread to finish writing a
// frame it compressed before the handler writes what follows.
constexpr long kCrashWaitNanoseconds = 2'000'000'000;

int64_t monotonicNanoseconds() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
    return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

}  // namespace

struct FrameWriter::Job : BackgroundJob {
    FrameWriter *owner = nullptr;
    std::atomic<Buffer *> buffer{nullptr};
    std::atomic<int> state{kIdle};
};

bool FrameWriter::compressionLevelIsValid(int level) {
    return level == 0 || (level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel());
}

size_t FrameWriter::memoryBytes(const FrameWriterOptions &options) {
    if (options.compressionLevel == 0) return kFrameBuffers * options.frameBytes;
    // zstd's context grows to what a frame needs at its first compression:
    // measured on one frame of zeros.
    size_t contextBytes = 0;
    if (ZSTD_CCtx *context = ZSTD_createCCtx()) {
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, options.compressionLevel);
        std::vector<unsigned char> frame(options.frameBytes);
        std::vector<unsigned char> compressed(ZSTD_compressBound(options.frameBytes));
        ZSTD_compress2(context, compressed.data(), compressed.size(), frame.data(), frame.size());
        contextBytes = ZSTD_sizeof_CCtx(context);
        ZSTD_freeCCtx(context);
    }
    // The gathered frame; its times are gathered first in the compressed frame's buffer.
    const size_t gatheredBytes = options.gatherTimes ? largestCompressorInput(options) : 0;
    return kFrameBuffers * options.frameBytes + gatheredBytes +
           ZSTD_compressBound(largestCompressorInput(options)) + contextBytes;
}

std::unique_ptr<FrameWriter> FrameWriter::create(const std::string &path,
                                                 const FrameWriterOptions &options,
                                                 std::string *error) {
    auto report = [error](const std::string &message) {
        if (error) *error = message;
        return nullptr;
    };
    if (options.frameBytes < frames::kMinFrameBytes ||
        options.frameBytes > frames::kMaxFrameBytesLimit)
        return report("frame size " + std::to_string(options.frameBytes) + " is outside " +
                      std::to_string(frames::kMinFrameBytes) + ".." +
                      std::to_string(frames::kMaxFrameBytesLimit) + " bytes");
    if (!compressionLevelIsValid(options.compressionLevel))
        return report("zstd level " + std::to_string(options.compressionLevel) + " is outside " +
                      std::to_string(ZSTD_minCLevel()) + ".." + std::to_string(ZSTD_maxCLevel()) +
                      " (0: frames stored uncompressed)");

    std::unique_ptr<FrameWriter> writer(new FrameWriter());
    writer->path_ = path;
    writer->options_ = options;
    // The records are written into the frames during the traced calls:
    // their pages are made resident here, at once and on huge pages where
    // the kernel has them, and not one page fault at a time inside the calls
    // of the first frames.
    const size_t frameMemoryBytes = kFrameBuffers * size_t{options.frameBytes};
    writer->frameMemory_ = mapResident<unsigned char>(frameMemoryBytes);
    if (!writer->frameMemory_)
        return report("no memory for the " + std::to_string(frameMemoryBytes) +
                      " bytes of frames of '" + path + "'");
    for (size_t index = 0; index < kFrameBuffers; ++index) {
        writer->buffers_[index].reset(new Buffer());
        writer->buffers_[index]->data = writer->frameMemory_.get() + index * options.frameBytes;
    }
    writer->active_.store(writer->buffers_[0].get(), std::memory_order_relaxed);
    writer->job_.reset(new Job());
    writer->job_->run = runJob;
    writer->job_->owner = writer.get();
    writer->index_.reset(new FrameIndexEntries());
    writer->index_->reserve(3);
    // Level 0 stores every frame: no zstd context, no buffer for its output
    // (memoryBytes() counts neither).
    if (options.compressionLevel != 0) {
        ZSTD_CCtx *compressor = ZSTD_createCCtx();
        if (!compressor) return report("cannot create a zstd context for '" + path + "'");
        writer->compressor_ = compressor;
        ZSTD_CCtx_setParameter(compressor, ZSTD_c_compressionLevel, options.compressionLevel);
        ZSTD_CCtx_setParameter(compressor, ZSTD_c_checksumFlag, 0);  // the frame has its own
        // What the first compression writes is made resident here, as the
        // frames are: zstd's tables, its output (where the times are
        // gathered first) and the gathered frame, 3-5 MB that a first frame
        // otherwise faults in page by page inside a traced call, stalling
        // its rank (and a partner waiting for it).
        writer->compressedCapacity_ = ZSTD_compressBound(largestCompressorInput(options));
        writer->compressed_ = mapResident<unsigned char>(writer->compressedCapacity_);
        if (!writer->compressed_)
            return report("no memory for the " + std::to_string(writer->compressedCapacity_) +
                          " bytes of compressed frames of '" + path + "'");
        if (options.gatherTimes) {
            writer->gathered_.resize(largestCompressorInput(options));
            writer->gathered_.clear();  // keeps its pages
        }
        ZSTD_compress2(compressor, writer->compressed_.get(), writer->compressedCapacity_,
                       writer->frameMemory_.get(), options.frameBytes);
    }

    writer->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (writer->fd_ < 0) return report("cannot create '" + path + "': " + std::strerror(errno));
    unsigned char header[frames::kFileHeaderBytes] = {};
    std::memcpy(header + frames::file_header::kMagic, frames::kFileMagic,
                sizeof frames::kFileMagic);
    frames::putU16(header + frames::file_header::kVersion, frames::kVersion);
    frames::putU32(header + frames::file_header::kMaxFrameBytes, options.frameBytes);
    frames::putU32(header + frames::file_header::kHeaderCrc,
                   frames::crc32c(header, frames::file_header::kHeaderCrc));
    if (const int writeError =
            writeFullyAt(writer->fd_, reinterpret_cast<const char *>(header), sizeof header, 0))
        return report("cannot write '" + path + "': " + std::strerror(writeError));
    writer->closed_ = false;
    registry::add(writer.get());
    return writer;
}

FrameWriter::~FrameWriter() {
    close();
    registry::remove(this);
    if (fd_ >= 0) ::close(fd_);
    ZSTD_freeCCtx(static_cast<ZSTD_CCtx *>(compressor_));
}

uint32_t FrameWriter::framesWritten() const {
    return index_->size();
}

size_t FrameWriter::pendingBytes() const {
    return active_.load(std::memory_order_relaxed)->bytes();
}

FrameWriter::Buffer &FrameWriter::other() const {
    Buffer *active = active_.load(std::memory_order_relaxed);
    return active == buffers_[0].get() ? *buffers_[1] : *buffers_[0];
}

void FrameWriter::reset(Buffer &buffer, uint32_t sequence) {
    // Records first, so that a crash handler in between finds nothing to write.
    buffer.committed.store(0, std::memory_order_release);
    buffer.earliest.store(std::numeric_limits<int64_t>::max(), std::memory_order_relaxed);
    buffer.latest.store(std::numeric_limits<int64_t>::min(), std::memory_order_relaxed);
    buffer.sequence.store(sequence, std::memory_order_release);
}

int FrameWriter::append(const void *record, size_t length, int64_t time) {
    if (closed_) return EBADF;
    if (length == 0) return EINVAL;
    if (length > options_.frameBytes) return EMSGSIZE;
    if (failed_.load(std::memory_order_relaxed)) return EIO;
    Buffer *buffer = active_.load(std::memory_order_relaxed);
    uint64_t committed = buffer->committed.load(std::memory_order_relaxed);
    if (length > options_.frameBytes - (committed >> 32)) {
        if (!endFrame()) return EIO;
        buffer = active_.load(std::memory_order_relaxed);
        committed = 0;
    }
    std::memcpy(buffer->data + (committed >> 32), record, length);
    return commitRecord(*buffer, committed, length, time);
}

HDTRACE_CALL_PATH unsigned char *FrameWriter::claim(size_t maxBytes) {
    if (closed_ || failed_.load(std::memory_order_relaxed)) return nullptr;
    Buffer *buffer = active_.load(std::memory_order_relaxed);
    const size_t used = buffer->committed.load(std::memory_order_relaxed) >> 32;
    if (used == 0 || maxBytes > options_.frameBytes - used) return nullptr;
    return buffer->data + used;
}

HDTRACE_CALL_PATH int FrameWriter::commit(size_t length, int64_t time) {
    Buffer *buffer = active_.load(std::memory_order_relaxed);
    return commitRecord(*buffer, buffer->committed.load(std::memory_order_relaxed), length, time);
}

HDTRACE_CALL_PATH int FrameWriter::commitRecord(Buffer &buffer, uint64_t committed, size_t length,
                                                int64_t time) {
    const size_t used = committed >> 32;
    if (time < buffer.earliest.load(std::memory_order_relaxed))
        buffer.earliest.store(time, std::memory_order_relaxed);
    if (time > buffer.latest.load(std::memory_order_relaxed))
        buffer.latest.store(time, std::memory_order_relaxed);
    buffer.committed.store(((used + length) << 32) | ((committed & 0xFFFFFFFFu) + 1),
                           std::memory_order_release);
    ++recordsAppended_;
    return options_.forceFlush ? flush() : 0;
}

bool FrameWriter::endFrame() {
    // Room in the index for this frame and the next, and for the two frames
    // a crash handler may have to add.
    if (!index_->reserve(3)) {
        fail(EFBIG);
        return false;
    }
    Buffer &full = *active_.load(std::memory_order_relaxed);
    if (options_.background && BackgroundWriter::start()) {
        if (!waitForBackground()) return false;
        Buffer &next = other();
        reset(next, full.sequence.load(std::memory_order_relaxed) + 1);
        job_->buffer.store(&full, std::memory_order_relaxed);
        job_->state.store(kQueued, std::memory_order_release);
        active_.store(&next, std::memory_order_release);
        BackgroundWriter::enqueue(*job_);
        return true;
    }
    if (const int error = compressAndWrite(full)) {
        fail(error);
        return false;
    }
    reset(full, index_->size());
    return true;
}

bool FrameWriter::waitForBackground() {
    BackgroundWriter::waitUntilDone(*job_);
    if (const int error = backgroundError_.load(std::memory_order_acquire)) {
        fail(error);
        return false;
    }
    return true;
}

int FrameWriter::closeFrame() {
    if (closed_) return EBADF;
    if (failed_.load(std::memory_order_relaxed)) return EIO;
    if (active_.load(std::memory_order_relaxed)->records() == 0) return 0;
    return endFrame() ? 0 : EIO;
}

int FrameWriter::flush() {
    if (closed_) return EBADF;
    if (failed_.load(std::memory_order_relaxed)) return EIO;
    if (!waitForBackground()) return EIO;
    Buffer &buffer = *active_.load(std::memory_order_relaxed);
    if (buffer.records() == 0) return 0;
    if (!index_->reserve(3)) {
        fail(EFBIG);
        return EIO;
    }
    if (const int error = compressAndWrite(buffer)) {
        fail(error);
        return EIO;
    }
    reset(buffer, index_->size());
    return 0;
}

size_t FrameWriter::compress(const Buffer &buffer) {
    if (options_.compressionLevel == 0) return 0;
    const size_t rawBytes = buffer.bytes();
    const unsigned char *input = buffer.data;
    size_t inputBytes = rawBytes;
    compressedEncoding_ = frames::Encoding::Zstd;
    if (options_.gatherTimes &&
        gathering_.gather(input, rawBytes, gathered_, compressed_.get(), compressedCapacity_)) {
        input = gathered_.data();
        inputBytes = gathered_.size();
        compressedEncoding_ = inputBytes < rawBytes ? frames::Encoding::ZstdGatheredTimes
                                                    : frames::Encoding::ZstdGatheredTimesLarger;
    }
    const size_t size = ZSTD_compress2(static_cast<ZSTD_CCtx *>(compressor_), compressed_.get(),
                                       compressedCapacity_, input, inputBytes);
    // Records that do not shrink (or a zstd failure, which cannot happen with
    // a bound-sized output) are stored as they are.
    return ZSTD_isError(size) || size >= rawBytes ? 0 : size;
}

int FrameWriter::writeCompressedOrStored(const Buffer &buffer, size_t compressedBytes) {
    if (compressedBytes == 0)
        return writeFrame(buffer, buffer.data, buffer.bytes(),
                          static_cast<uint8_t>(frames::Encoding::Stored));
    return writeFrame(buffer, compressed_.get(), compressedBytes,
                      static_cast<uint8_t>(compressedEncoding_));
}

int FrameWriter::compressAndWrite(const Buffer &buffer) {
    return writeCompressedOrStored(buffer, compress(buffer));
}

int64_t FrameWriter::fileEnd() const {
    const uint32_t frames = index_->size();
    if (frames == 0) return static_cast<int64_t>(frames::kFileHeaderBytes);
    const FrameIndexEntry &last = index_->at(frames - 1);
    return static_cast<int64_t>(last.offset + last.frameBytes);
}

int FrameWriter::writeFrame(const Buffer &buffer, const unsigned char *payload, size_t payloadBytes,
                            uint8_t encoding) {
    namespace fh = frames::frame_header;
    FrameIndexEntry entry;
    entry.offset = static_cast<uint64_t>(fileEnd());
    entry.records = buffer.records();
    entry.rawBytes = static_cast<uint32_t>(buffer.bytes());
    entry.earliest = buffer.earliest.load(std::memory_order_relaxed);
    entry.latest = buffer.latest.load(std::memory_order_relaxed);

    unsigned char header[frames::kMaxFrameHeaderBytes];
    header[fh::kEncoding] = encoding;
    unsigned char *out = header + fh::kFields;
    out = frames::putVarint(out, entry.records);
    out = frames::putVarint(out, entry.rawBytes);
    out = frames::putVarint(out, payloadBytes);
    out = frames::putSignedVarint(out, entry.earliest);
    out = frames::putVarint(
        out, static_cast<uint64_t>(entry.latest) - static_cast<uint64_t>(entry.earliest));
    const size_t headerBytes = static_cast<size_t>(out - header) + 8;
    header[fh::kHeaderBytes] = static_cast<unsigned char>(headerBytes);
    frames::putU32(out, frames::crc32c(payload, payloadBytes));
    unsigned char sequence[4];
    frames::putU32(sequence, index_->size());
    frames::putU32(out + 4, frames::crc32c(header, headerBytes - 4, frames::crc32c(sequence, 4)));
    entry.headerBytes = static_cast<uint32_t>(headerBytes);
    entry.frameBytes = static_cast<uint32_t>(headerBytes + payloadBytes);
    if (const int error =
            writeFullyAtThenEnding(fd_, reinterpret_cast<const char *>(header), headerBytes,
                                   reinterpret_cast<const char *>(payload), payloadBytes,
                                   static_cast<int64_t>(entry.offset)))
        return error;
    index_->publish(entry);
    return 0;
}

void FrameWriter::runJob(BackgroundJob *backgroundJob) {
    Job &job = *static_cast<Job *>(backgroundJob);
    FrameWriter &writer = *job.owner;
    int expected = kQueued;
    if (!job.state.compare_exchange_strong(expected, kCompressing)) return;  // a crash took it
    const Buffer &buffer = *job.buffer.load(std::memory_order_relaxed);
    const size_t compressedBytes = writer.compress(buffer);
    expected = kCompressing;
    if (!job.state.compare_exchange_strong(expected, kWriting)) return;
    const int error = writer.writeCompressedOrStored(buffer, compressedBytes);
    if (error != 0) {
        int none = 0;
        writer.backgroundError_.compare_exchange_strong(none, error);
    }
    job.state.store(kIdle, std::memory_order_release);
}

int FrameWriter::writeIndexAndFooter() {
    namespace ft = frames::footer;
    const int64_t indexOffset = fileEnd();
    const uint32_t frames = index_->size();
    // In batches through the stack: the crash path allocates nothing.
    constexpr uint32_t kBatch = 64;
    unsigned char batch[kBatch * frames::kMaxIndexEntryBytes];
    uint32_t crc = 0;
    int64_t offset = indexOffset;
    int64_t previousLatest = 0;
    // A file of one frame has no index: that frame's header says all its
    // entry would, and the reader finds it right after the file header.
    const uint32_t entries = frames == 1 ? 0 : frames;
    for (uint32_t first = 0; first < entries; first += kBatch) {
        const uint32_t count = entries - first < kBatch ? entries - first : kBatch;
        unsigned char *out = batch;
        for (uint32_t i = 0; i < count; ++i) {
            const FrameIndexEntry &entry = index_->at(first + i);
            out = frames::putVarint(out, entry.headerBytes);
            out = frames::putVarint(out, entry.frameBytes - entry.headerBytes);
            out = frames::putVarint(out, entry.records);
            out = frames::putVarint(out, entry.rawBytes);
            out = frames::putSignedVarint(
                out, static_cast<int64_t>(static_cast<uint64_t>(entry.earliest) -
                                          static_cast<uint64_t>(previousLatest)));
            out = frames::putVarint(
                out, static_cast<uint64_t>(entry.latest) - static_cast<uint64_t>(entry.earliest));
            previousLatest = entry.latest;
        }
        const size_t bytes = static_cast<size_t>(out - batch);
        crc = frames::crc32c(batch, bytes, crc);
        if (const int error =
                writeFullyAt(fd_, reinterpret_cast<const char *>(batch), bytes, offset))
            return error;
        offset += static_cast<int64_t>(bytes);
    }
    unsigned char footer[frames::kFooterBytes] = {};
    frames::putU32(footer + ft::kIndexBytes, static_cast<uint32_t>(offset - indexOffset));
    frames::putU32(footer + ft::kFrames, frames);
    frames::putU32(footer + ft::kCrc, frames::crc32c(footer, ft::kCrc, crc));
    std::memcpy(footer + ft::kMagic, frames::kFooterMagic, sizeof frames::kFooterMagic);
    if (const int error =
            writeFullyAt(fd_, reinterpret_cast<const char *>(footer), sizeof footer, offset))
        return error;
    // Whatever lies beyond (a frame a dying thread had begun to write) goes.
    if (::ftruncate(fd_, offset + static_cast<int64_t>(sizeof footer)) != 0) return errno;
    return 0;
}

int FrameWriter::close() {
    if (closed_) return 0;
    if (!crashClosed_.load()) {
        if (!failed_.load()) flush();
        // Even after a failure: the background writer must be done with the
        // descriptor before its number can be given to another file.
        BackgroundWriter::waitUntilDone(*job_);
        if (!failed_.load())
            if (const int error = writeIndexAndFooter()) fail(error);
    }
    ::close(fd_);
    fd_ = -1;
    closed_ = true;
    registry::remove(this);
    return failed_.load() ? EIO : 0;
}

void FrameWriter::closeForCrash() {
    if (closed_ || crashClosed_.exchange(true)) return;
    failed_.store(true);
    // The frame handed to the background writer: taken back unless it is
    // being written, in which case the handler waits (briefly) for it.
    Buffer *taken = nullptr;
    const int64_t deadline = monotonicNanoseconds() + kCrashWaitNanoseconds;
    for (;;) {
        int state = job_->state.load(std::memory_order_acquire);
        if (state == kQueued || state == kCompressing) {
            if (job_->state.compare_exchange_strong(state, kTakenByCrash)) {
                taken = job_->buffer.load(std::memory_order_relaxed);
                break;
            }
            continue;
        }
        if (state != kWriting || monotonicNanoseconds() > deadline) break;
        sched_yield();
    }
    if (taken && taken->records() > 0)
        writeFrame(*taken, taken->data, taken->bytes(),
                   static_cast<uint8_t>(frames::Encoding::Stored));
    // The records being gathered, unless their frame is in the file already
    // (the owner was stopped between writing it and emptying the buffer).
    Buffer &active = *active_.load(std::memory_order_acquire);
    if (active.records() > 0 && index_->size() <= active.sequence.load(std::memory_order_acquire))
        writeFrame(active, active.data, active.bytes(),
                   static_cast<uint8_t>(frames::Encoding::Stored));
    writeIndexAndFooter();
}

void FrameWriter::abandonAfterFork() {
    if (closed_) return;
    // The parent's writer thread is not in the child: nothing is queued here.
    job_->queued.store(false, std::memory_order_relaxed);
    job_->state.store(kIdle, std::memory_order_relaxed);
    ::close(fd_);
    fd_ = -1;
    closed_ = true;
}

void FrameWriter::fail(int error) {
    if (failed_.exchange(true)) return;
    std::fprintf(stderr,
                 "hdtrace: cannot write '%s': %s; this trace stops here, the program goes on\n",
                 path_.c_str(), std::strerror(error));
}

}  // namespace hdtrace
