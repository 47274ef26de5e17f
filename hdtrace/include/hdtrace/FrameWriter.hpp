// FrameWriter: the container of a compact trace. It takes records (byte
// strings an encoder made; the container does not delimit them) with a
// time each, gathers them into a frame of bounded size, compresses a full
// frame with zstd into a frame that decodes on its own, and appends it to
// the file behind a small header. The one thing it reads in the records:
// HDTrace records have their times gathered behind their other bytes
// before zstd (GatheredTimes.hpp); any other bytes are compressed as they
// are. Closing the file writes an index of
// the frames (offsets, times, record counts) and a footer that points at
// it, so that a reader seeks to a slice or a time window directly; a file
// without them (a killed process) still reads by walking the frame headers.
// The layout is in FrameFormat.hpp and docs/format/compact.md.
//
// Full frames are compressed and written by the process's background writer
// thread when it runs (options.background), else on the appending thread;
// flush() always works on the calling thread. Like TraceWriter, a
// FrameWriter belongs to one thread, is closed at exit, forgotten in a
// fork() child, and saved by closeForCrash() in a dying process: there the
// records not yet compressed are written as stored (uncompressed) frames,
// then the index, with nothing but async-signal-safe calls.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <hdtrace/MappedMemory.hpp>
#include <hdtrace/OpenTrace.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/codec/RecordSink.hpp>

namespace hdtrace {

class FrameIndexEntries;
struct BackgroundJob;

struct FrameWriterOptions {
    // Bytes of records per frame before compression, at most
    // frames::kMaxFrameBytesLimit and at least frames::kMinFrameBytes; a
    // record must fit in one frame.
    uint32_t frameBytes = 1u << 20;
    // zstd's level: 1 by default, higher for fewer bytes, negative for
    // zstd's faster levels; 0 stores the frames uncompressed, which costs no
    // CPU beyond the copy and takes the records' own size in the file.
    int compressionLevel = 1;
    // Compress and write full frames on the background writer thread.
    bool background = true;
    // Every append() ends its frame and writes it (flush()): a process killed
    // without warning leaves every record it appended.
    bool forceFlush = false;
    // Compress a frame of HDTrace records with their times gathered
    // (frame encoding 2): fewer bytes. Records of any other kind, or that
    // would not get smaller, are compressed as they are (encoding 1).
    bool gatherTimes = true;
};

// RecordSink comes first: the encoder's calls through it, one or two a
// traced call, then reach claim() and commit() without a thunk that adjusts
// the pointer, code that would lie apart from the call path's other pages.
class FrameWriter final : public RecordSink, public OpenTrace {
  public:
    // Creates (truncates) path and writes the file header. nullptr on
    // failure, with a message naming the file and the reason in *error.
    static std::unique_ptr<FrameWriter> create(const std::string &path,
                                               const FrameWriterOptions &options,
                                               std::string *error = nullptr);
    // The memory a writer with these options holds while it is open: its
    // record buffers, the compressed frame and zstd's context (the frame
    // index, 40 bytes a frame, aside).
    static size_t memoryBytes(const FrameWriterOptions &options);
    // Whether options.compressionLevel may be level: 0, or a level of zstd's.
    static bool compressionLevelIsValid(int level);
    ~FrameWriter() override;  // close()
    FrameWriter(const FrameWriter &) = delete;
    FrameWriter &operator=(const FrameWriter &) = delete;

    // Appends one record of length bytes (1 to the frame size) taken at
    // time (nanoseconds, any origin). 0, EINVAL (empty), EMSGSIZE (larger
    // than a frame), EBADF (closed) or EIO (a write failed before).
    int append(const void *record, size_t length, int64_t time) override;
    // append() for an encoder that writes its record in place: room for up
    // to maxBytes at the end of the frame being filled, or nullptr when
    // the record would start a frame (the frame is empty or lacks the room)
    // or the writer takes no records; append() it then. commit() ends the
    // record: its length (1 to maxBytes) and time; 0 or flush()'s error.
    unsigned char *claim(size_t maxBytes) override;
    int commit(size_t length, int64_t time) override;
    // Ends the current frame and writes it, compressed on this thread, after
    // any frame the background writer still holds. 0 or EIO/EBADF.
    int flush();
    // Writes the last frame, the index and the footer; closes the file.
    int close() override;
    void closeForCrash() override;
    void abandonAfterFork() override;

    const std::string &path() const { return path_; }
    bool hasFailed() const { return failed_.load(std::memory_order_relaxed); }
    // Frames in the file so far (the index's entries).
    uint32_t framesWritten() const;
    uint64_t recordsAppended() const { return recordsAppended_; }
    // Bytes of records in the frame being filled: 0 when the next record
    // starts a frame (an encoder whose records depend on the ones before
    // in the frame starts its tables afresh then).
    size_t pendingBytes() const override;
    uint32_t frameBytes() const override { return options_.frameBytes; }
    // Ends the frame being filled, as a full one is ended (on the
    // background writer when it runs). 0 or EIO/EBADF.
    int closeFrame() override;

  private:
    struct Buffer;
    struct Job;
    FrameWriter() = default;

    Buffer &other() const;
    // Publishes a record written at the end of buffer (committed: its
    // committed word before the record).
    int commitRecord(Buffer &buffer, uint64_t committed, size_t length, int64_t time);
    // Hands the active buffer to the background writer, or writes it here.
    bool endFrame();
    // Waits until the background writer holds no frame of this file.
    bool waitForBackground();
    // Compresses buffer and writes it as the next frame (not in a signal
    // handler: zstd may allocate). 0 or the errno of the failed write.
    int compressAndWrite(const Buffer &buffer);
    // The two halves of it, which the background writer does apart: the
    // size of buffer's records compressed into compressed_, or 0 when they
    // are stored as they are (level 0, or they do not shrink); then the
    // frame written with that payload.
    size_t compress(const Buffer &buffer);
    int writeCompressedOrStored(const Buffer &buffer, size_t compressedBytes);
    // Writes buffer's records as the next frame with the given payload and
    // publishes its index entry; async-signal-safe. 0 or an errno value.
    int writeFrame(const Buffer &buffer, const unsigned char *payload, size_t payloadBytes,
                   uint8_t encoding);
    // Empties buffer for the records of frame number sequence.
    static void reset(Buffer &buffer, uint32_t sequence);
    int writeIndexAndFooter();
    int64_t fileEnd() const;
    static void runJob(BackgroundJob *job);
    void fail(int error);

    std::string path_;
    int fd_ = -1;
    FrameWriterOptions options_;
    bool closed_ = true;
    std::atomic<bool> failed_{false};
    std::atomic<bool> crashClosed_{false};
    std::atomic<int> backgroundError_{0};
    uint64_t recordsAppended_ = 0;
    // The frame being filled and the one being written, one mapping for both.
    static constexpr size_t kFrameBuffers = 2;
    std::unique_ptr<Buffer> buffers_[kFrameBuffers];
    MappedArray<unsigned char> frameMemory_;
    std::atomic<Buffer *> active_{nullptr};
    std::unique_ptr<Job> job_;
    std::unique_ptr<FrameIndexEntries> index_;
    // zstd's compression context and its output, used by one thread at a
    // time: the background writer while a frame is queued, else the owner.
    void *compressor_ = nullptr;
    MappedArray<unsigned char> compressed_;
    size_t compressedCapacity_ = 0;
    // What compressed_ holds a frame of: Zstd, ZstdGatheredTimes or ZstdGatheredTimesLarger.
    frames::Encoding compressedEncoding_ = frames::Encoding::Zstd;
    // The gathered form of the frame being compressed, by the same thread.
    compact::TimeGathering gathering_;
    std::vector<unsigned char> gathered_;
};

}  // namespace hdtrace
