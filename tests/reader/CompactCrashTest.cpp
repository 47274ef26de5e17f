// Crash safety of compact traces: a process that dies while writing frames
// leaves a file that reads back with every record it completed (and, when
// anything ran at the end, with its index), as an XML trace does.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/CrashHandlers.hpp>
#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>

#include "BackgroundWriter.hpp"
#include "CompactRecords.hpp"
#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

using testing::appendAll;
using testing::makeRecords;
using testing::readAllRecords;
using testing::TemporaryFile;
using testing::TestRecord;

struct ChildSetup {
    FrameWriterOptions options;
    // Keep the background writer from running, so that a full frame is still
    // queued (uncompressed) when the end comes.
    bool holdBackground = false;
    bool installHandlers = true;
};

// In a child: appends records to path, then runs end(). Returns the wait
// status; exit status 100 and up means the child failed before end().
template <typename End>
int childWriting(const std::string &path, const std::vector<TestRecord> &records, End end,
                 ChildSetup setup) {
    const pid_t child = fork();
    if (child == 0) {
        rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        auto writer = FrameWriter::create(path, setup.options);
        if (!writer) _exit(100);
        if (setup.installHandlers) installCrashHandlers();
        if (setup.holdBackground) BackgroundWriter::holdForTesting(true);
        for (const TestRecord &record : records) {
            const std::string encoded = testing::encodeRecord(record);
            if (writer->append(encoded.data(), encoded.size(), record.time) != 0) _exit(101);
        }
        // Held: whatever frame was full is still queued, not in the file.
        if (setup.holdBackground && writer->framesWritten() != 0) _exit(102);
        end();
        _exit(103);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return status;
}

void expectAllRecords(const std::string &path, const std::vector<TestRecord> &records,
                      bool indexed) {
    FrameFile read(path);
    EXPECT_EQ(read.indexed(), indexed);
    EXPECT_FALSE(read.damage());
    EXPECT_EQ(readAllRecords(read), records);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerHandlesFaults = true;
#else
constexpr bool kSanitizerHandlesFaults = false;
#endif

TEST(CompactCrash, SigkillWithForceFlushLeavesEveryRecordAndACutTrace) {
    TemporaryFile file("", ".ctrc");
    const auto records = makeRecords(500, 30, 5);
    ChildSetup setup;
    setup.options.forceFlush = true;
    setup.options.frameBytes = 4096;
    const int status = childWriting(
        file.path(), records, [] { raise(SIGKILL); }, setup);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    ASSERT_EQ(WTERMSIG(status), SIGKILL);
    FrameFile read(file.path());
    EXPECT_FALSE(read.indexed());
    EXPECT_EQ(read.frames().size(), records.size());  // one frame per flushed record
    EXPECT_EQ(read.cutAt(), testing::readBytes(file.path()).size());
    EXPECT_EQ(readAllRecords(read), records);
}

TEST(CompactCrash, SigkillWithoutForceFlushKeepsTheFramesWritten) {
    TemporaryFile file("", ".ctrc");
    const auto records = makeRecords(3000, 30, 6);
    ChildSetup setup;
    setup.options.frameBytes = 1024;
    setup.options.background = false;  // frames reach the file as they fill
    const int status = childWriting(
        file.path(), records, [] { raise(SIGKILL); }, setup);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    FrameFile read(file.path());
    EXPECT_FALSE(read.indexed());
    const auto back = readAllRecords(read);
    ASSERT_GT(back.size(), 0u);
    ASSERT_LT(back.size(), records.size());  // the last frame was not full
    EXPECT_EQ(back, std::vector<TestRecord>(records.begin(), records.begin() + back.size()));
}

// What the MPI wrapper's _exit does: closeAllTracesForCrash, then the exit.
TEST(CompactCrash, ExitWithoutAtexitHandlersClosesTheStream) {
    for (bool background : {false, true}) {
        SCOPED_TRACE(background ? "background" : "in thread");
        TemporaryFile file("", ".ctrc");
        const auto records = makeRecords(4000, 40, 8);
        ChildSetup setup;
        setup.options.frameBytes = 2048;
        setup.options.background = background;
        const int status = childWriting(
            file.path(), records,
            [] {
                closeAllTracesForCrash();
                _exit(7);
            },
            setup);
        ASSERT_TRUE(WIFEXITED(status)) << status;
        ASSERT_EQ(WEXITSTATUS(status), 7);
        expectAllRecords(file.path(), records, true);
    }
}

TEST(CompactCrash, ExitClosesTheStreamThroughAtexit) {
    TemporaryFile file("", ".ctrc");
    const auto records = makeRecords(2500, 40, 9);
    ChildSetup setup;
    setup.options.frameBytes = 2048;
    // The writer is never closed by its owner: exit() runs the library's
    // atexit handler. (The unique_ptr lives on the child's stack.)
    const int status = childWriting(
        file.path(), records, [] { std::exit(0); }, setup);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    ASSERT_EQ(WEXITSTATUS(status), 0);
    expectAllRecords(file.path(), records, true);
}

TEST(CompactCrash, FatalSignalsCloseTheStreamWithQueuedFramesSaved) {
    for (int signalNumber : {SIGSEGV, SIGABRT, SIGTERM, SIGBUS, SIGFPE}) {
        for (bool hold : {false, true}) {
            SCOPED_TRACE(std::string(strsignal(signalNumber)) +
                         (hold ? ", background writer held" : ""));
            TemporaryFile file("", ".ctrc");
            // With frames of 4 KiB: one full frame queued and one partly
            // filled when held (about 6 KB of records).
            const auto records = makeRecords(hold ? 250 : 3000, 30, signalNumber);
            ChildSetup setup;
            setup.options.frameBytes = 4096;
            setup.holdBackground = hold;
            const int status = childWriting(
                file.path(), records, [signalNumber] { raise(signalNumber); }, setup);
            ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) >= 100)
                << "the child failed before the signal: " << WEXITSTATUS(status);
            const bool fault = signalNumber != SIGABRT && signalNumber != SIGTERM;
            if (kSanitizerHandlesFaults && fault) {
                EXPECT_TRUE(WIFSIGNALED(status) || WIFEXITED(status));
            } else {
                ASSERT_TRUE(WIFSIGNALED(status)) << status;
                EXPECT_EQ(WTERMSIG(status), signalNumber);
            }
            expectAllRecords(file.path(), records, true);
            if (hold) {
                // Nothing was compressed: the crash path stored both frames.
                FrameFile read(file.path());
                ASSERT_EQ(read.frames().size(), 2u);
                for (const FrameInfo &frame : read.frames())
                    EXPECT_EQ(frame.storedBytes, frame.rawBytes);
            }
        }
    }
}

TEST(CompactCrash, AForkChildLeavesTheParentsTraceAlone) {
    TemporaryFile file("", ".ctrc");
    const auto records = makeRecords(3000, 30, 12);
    FrameWriterOptions options;
    options.frameBytes = 2048;
    auto writer = FrameWriter::create(file.path(), options);
    ASSERT_TRUE(writer);
    const std::vector<TestRecord> before(records.begin(), records.begin() + 1500);
    const std::vector<TestRecord> after(records.begin() + 1500, records.end());
    appendAll(*writer, before);
    const pid_t child = fork();
    if (child == 0) {
        // The child's exit would close its copy of the writer, if it had one.
        std::exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    appendAll(*writer, after);
    ASSERT_EQ(writer->close(), 0);
    expectAllRecords(file.path(), records, true);
}

}  // namespace
}  // namespace hdtrace::reader
