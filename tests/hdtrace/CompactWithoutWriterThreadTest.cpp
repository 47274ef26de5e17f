// A compact trace without the background writer (HDTRACE_WRITER_THREAD=0,
// TraceOptions::backgroundWrites = false): the traced thread compresses and
// writes a frame when it is full, and what is buffered at flush and close;
// no call of the program writes or compresses anything else. The file's
// size, taken after every state, shows when that happens, since nothing
// writes it behind the thread's back. (Nothing here depends on the sizes of
// the container's headers.)
#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::ScratchDirectory;

int64_t fileSize(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 ? static_cast<int64_t>(status.st_size) : -1;
}

std::unique_ptr<TraceWriter> compactWriter(const ScratchDirectory &directory, uint32_t frameBytes) {
    TraceOptions options = test::traceOptionsIn(directory, "nothread");
    options.format = TraceOptions::Format::Compact;
    options.backgroundWrites = false;
    options.compactFrameBytes = frameBytes;
    std::string error;
    auto writer = TraceWriter::create(options, &error);
    EXPECT_TRUE(writer) << error;
    return writer;
}

void writeSend(TraceWriter &writer, int64_t step) {
    ASSERT_EQ(writer.beginState("Send"), 0);
    writer.attribute("size", int64_t{16});
    writer.attribute("count", int64_t{4});
    writer.attribute("tid", int64_t{1275069445});
    writer.attribute("toRank", step % 4);
    writer.attribute("toTag", int64_t{7});
    writer.attribute("cid", int64_t{0});
    ASSERT_EQ(writer.endState(), 0);
}

// Frames the writer compressed are smaller in the file than decoded (it
// stores a frame that zstd does not make smaller).
void expectCompressed(const reader::FrameFile &file) {
    for (const reader::FrameInfo &frame : file.frames())
        EXPECT_LT(frame.storedBytes, frame.rawBytes) << "frame at byte " << frame.offset;
}

TEST(CompactWithoutWriterThread, CompressesAFrameWhenItIsFullNeverPerCall) {
    ScratchDirectory directory;
    auto writer = compactWriter(directory, 4096);
    ASSERT_TRUE(writer);
    const std::string path = writer->tracePath();
    constexpr int kStates = 5000;
    std::vector<int64_t> grewTo;    // the file's size each time it changed
    std::vector<int> grewAt;        // after which state
    int64_t size = fileSize(path);  // the file header alone
    EXPECT_GT(size, 0);
    for (int state = 0; state < kStates; ++state) {
        writeSend(*writer, state);
        const int64_t now = fileSize(path);
        if (now != size) {
            grewTo.push_back(now);
            grewAt.push_back(state);
            size = now;
        }
    }
    ASSERT_EQ(writer->close(), 0);

    reader::FrameFile file(path);
    ASSERT_TRUE(file.indexed());
    // Every frame but the last (written at close) was written by the call
    // that did not fit in it, and only then: one growth per frame, by
    // exactly that frame (up to where the next one starts).
    ASSERT_EQ(grewTo.size() + 1, file.frames().size());
    for (size_t frame = 0; frame < grewTo.size(); ++frame)
        EXPECT_EQ(grewTo[frame], static_cast<int64_t>(file.frames()[frame + 1].offset))
            << "frame " << frame;
    uint64_t records = 0;
    for (size_t frame = 0; frame < file.frames().size(); ++frame) {
        records += file.frames()[frame].records;
        if (frame + 1 < file.frames().size()) {
            // A full frame: another state would not have fitted.
            EXPECT_GT(file.frames()[frame].rawBytes, 4096u - 64u) << "frame " << frame;
            EXPECT_GT(file.frames()[frame].records, 100u) << "frame " << frame;
            // Written right after its last state: the states before the
            // growth are the frame's records (with the Program in the first).
            EXPECT_EQ(static_cast<uint64_t>(grewAt[frame]), records - 1) << "frame " << frame;
        }
    }
    EXPECT_EQ(records, kStates + 1u);  // and the Program record
    expectCompressed(file);
}

TEST(CompactWithoutWriterThread, FlushCompressesWhatIsBuffered) {
    ScratchDirectory directory;
    auto writer = compactWriter(directory, 1u << 20);
    ASSERT_TRUE(writer);
    const std::string path = writer->tracePath();
    const int64_t headerSize = fileSize(path);
    for (int state = 0; state < 2000; ++state) {
        writeSend(*writer, state);
        ASSERT_EQ(fileSize(path), headerSize) << "written after state " << state;
    }
    ASSERT_EQ(writer->flush(), 0);
    {
        // Not closed yet: read by walking the frame headers.
        reader::FrameFile flushed(path);
        EXPECT_FALSE(flushed.indexed());
        ASSERT_EQ(flushed.frames().size(), 1u);
        EXPECT_EQ(flushed.frames()[0].records, 2001u);
        EXPECT_EQ(fileSize(path), static_cast<int64_t>(flushed.cutAt()));
        expectCompressed(flushed);
    }
    const int64_t flushedSize = fileSize(path);
    for (int state = 0; state < 10; ++state) {
        writeSend(*writer, state);
        ASSERT_EQ(fileSize(path), flushedSize);
    }
    ASSERT_EQ(writer->close(), 0);
    reader::FrameFile file(path);
    EXPECT_TRUE(file.indexed());
    ASSERT_EQ(file.frames().size(), 2u);
    EXPECT_EQ(file.frames()[1].records, 10u);
    expectCompressed(file);
}

}  // namespace
}  // namespace hdtrace
