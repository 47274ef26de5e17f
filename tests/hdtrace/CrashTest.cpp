// Crash safety: a process that dies of a fatal signal leaves well-formed
// traces holding every state completed before the signal, and the signal
// proceeds as it would have without the library.
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include <hdtrace/CrashHandlers.hpp>
#include <hdtrace/TraceWriter.hpp>

#include "BackgroundWriter.hpp"
#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::Element;
using test::parseXmlFile;
using test::readFile;
using test::ScratchDirectory;

constexpr int kStatesBeforeCrash = 3000;  // more than one 64 KiB buffer holds

struct CrashSetup {
    int states = kStatesBeforeCrash;
    // Keep the background writer from writing, so that full halves of the
    // buffer are still queued when the signal comes.
    bool holdBackgroundWrites = false;
};

// In a child: writes states (some flushed, the rest buffered), leaves one
// state open, then runs crash(). Returns the child's wait status.
template <typename Crash>
int crashingChild(const ScratchDirectory &directory, Crash crash, CrashSetup setup = {}) {
    const pid_t child = fork();
    if (child == 0) {
        rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        TraceOptions options = test::traceOptionsIn(directory, "crash");
        options.bufferBytes = 64 * 1024;
        auto writer = TraceWriter::create(options);
        if (!writer) _exit(100);
        installCrashHandlers();
        const size_t prologBytes = readFile(writer->tracePath()).size();
        if (setup.holdBackgroundWrites) BackgroundWriter::holdForTesting(true);
        for (int i = 0; i < setup.states; ++i) {
            writer->beginState("Send");
            writer->attribute("index", int64_t{i});
            writer->endState();
        }
        // Held: a full half is queued, yet nothing but the prolog is in the file.
        if (setup.holdBackgroundWrites && readFile(writer->tracePath()).size() != prologBytes)
            _exit(102);
        writer->beginState("Open");  // in flight when the signal comes
        crash();
        _exit(101);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return status;
}

// AddressSanitizer installs its own handlers for SIGSEGV, SIGBUS and SIGFPE
// before main(); chaining to them (as to any earlier handler) ends the
// process with ASan's report and exit status instead of the signal.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerHandlesFaults = true;
#else
constexpr bool kSanitizerHandlesFaults = false;
#endif

void expectDiedOf(int status, int signalNumber) {
    const bool faultSignal =
        signalNumber == SIGSEGV || signalNumber == SIGBUS || signalNumber == SIGFPE;
    if (kSanitizerHandlesFaults && faultSignal) {
        EXPECT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0))
            << "status " << status;
        return;
    }
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_EQ(WTERMSIG(status), signalNumber);
}

void expectCompleteTrace(const ScratchDirectory &directory, int states = kStatesBeforeCrash,
                         const std::string &name = "crash") {
    const std::string path = directory.path() + "/" + name + "_host_0_0.trc";
    const std::string text = readFile(path);
    ASSERT_GE(text.size(), 11u);
    EXPECT_EQ(text.substr(text.size() - 11), "</Program>\n");
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), static_cast<size_t>(states));
    for (int i = 0; i < states; ++i) {
        ASSERT_EQ(root.children[i].attribute("index"), std::to_string(i));
    }
}

TEST(Crash, FatalSignalsKeepTheirDefaultActionAndLeaveWellFormedTraces) {
    for (int signalNumber : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGTERM}) {
        SCOPED_TRACE(strsignal(signalNumber));
        ScratchDirectory directory;
        const int status = crashingChild(directory, [signalNumber] { raise(signalNumber); });
        expectDiedOf(status, signalNumber);
        expectCompleteTrace(directory);
    }
}

// The crash path writes the halves the background writer has not written
// yet: here one full 32 KiB half is queued and the other half partly filled.
TEST(Crash, HalvesStillQueuedForTheBackgroundWriterAreSaved) {
    for (int signalNumber : {SIGSEGV, SIGTERM}) {
        SCOPED_TRACE(strsignal(signalNumber));
        ScratchDirectory directory;
        CrashSetup setup;
        setup.states = 900;  // about 50 KB: more than one half, less than two
        setup.holdBackgroundWrites = true;
        const int status = crashingChild(
            directory, [signalNumber] { raise(signalNumber); }, setup);
        ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 102)
            << "the held background writer wrote anyway";
        expectDiedOf(status, signalNumber);
        expectCompleteTrace(directory, setup.states);
    }
}

TEST(Crash, ARealSegmentationFaultIsCaught) {
    ScratchDirectory directory;
    const int status = crashingChild(directory, [] {
        volatile int *nowhere = nullptr;
        *nowhere = 1;
    });
    expectDiedOf(status, SIGSEGV);
    expectCompleteTrace(directory);
}

TEST(Crash, AbortIsCaught) {
    ScratchDirectory directory;
    const int status = crashingChild(directory, [] { abort(); });
    expectDiedOf(status, SIGABRT);
    expectCompleteTrace(directory);
}

void exitWith42(int) {
    _exit(42);
}

TEST(Crash, ChainsToTheProgramsOwnHandler) {
    // The program installs its handler first, as programs do before MPI_Init.
    ScratchDirectory directory;
    const pid_t child = fork();
    if (child == 0) {
        signal(SIGTERM, exitWith42);
        TraceOptions options = test::traceOptionsIn(directory, "chain");
        auto writer = TraceWriter::create(options);
        installCrashHandlers();
        writer->beginState("Barrier");
        writer->endState();
        raise(SIGTERM);
        _exit(101);
    }
    int chainStatus = 0;
    waitpid(child, &chainStatus, 0);
    ASSERT_TRUE(WIFEXITED(chainStatus)) << chainStatus;
    EXPECT_EQ(WEXITSTATUS(chainStatus), 42);
    Element root = parseXmlFile(directory.path() + "/chain_host_0_0.trc");
    ASSERT_EQ(root.children.size(), 1u);
    EXPECT_EQ(root.children[0].name, "Barrier");
}

TEST(Crash, IgnoredSignalsStayIgnoredAndTheTraceGoesOnWellFormed) {
    ScratchDirectory directory;
    const pid_t child = fork();
    if (child == 0) {
        signal(SIGTERM, SIG_IGN);
        TraceOptions options = test::traceOptionsIn(directory, "ignored");
        auto writer = TraceWriter::create(options);
        installCrashHandlers();
        writer->beginState("Before");
        writer->endState();
        raise(SIGTERM);
        writer->beginState("After");
        writer->endState();
        writer->close();
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    Element root = parseXmlFile(directory.path() + "/ignored_host_0_0.trc");
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[1].name, "After");
}

// A program whose own handler survives the signal keeps running; its trace
// was closed by the crash path and stays well-formed, without later states.
TEST(Crash, ATraceClosedForACrashStaysWellFormedIfTheProcessLivesOn) {
    ScratchDirectory directory;
    TraceOptions options = test::traceOptionsIn(directory, "survivor");
    auto writer = TraceWriter::create(options);
    ASSERT_TRUE(writer);
    writer->beginState("Before");
    writer->endState();
    closeAllTracesForCrash();
    writer->beginState("After");
    writer->endState();
    writer->close();
    Element root = parseXmlFile(writer->tracePath());
    ASSERT_EQ(root.children.size(), 1u);
    EXPECT_EQ(root.children[0].name, "Before");
}

// SIGKILL runs nothing in the process. With force flush every completed
// state is in the file at once, and the file ends in </Program> after every
// flush, so it is well-formed whenever the kill comes. Without force flush
// the buffered states are lost, and the file is visibly cut.
TEST(Crash, SigkillWithForceFlushLeavesAWellFormedTraceOfEveryState) {
    for (const bool forceFlush : {true, false}) {
        SCOPED_TRACE(forceFlush ? "force flush" : "buffered");
        ScratchDirectory directory;
        const pid_t child = fork();
        if (child == 0) {
            TraceOptions options = test::traceOptionsIn(directory, "killed");
            options.forceFlush = forceFlush;
            options.bufferBytes = 64 * 1024;
            auto writer = TraceWriter::create(options);
            if (!writer) _exit(100);
            // 2000 states: more than one half of the buffer, so that the
            // buffered run has written some of them.
            for (int i = 0; i < 2000; ++i) {
                writer->beginState("Send");
                writer->attribute("index", int64_t{i});
                writer->endState();
            }
            writer->beginState("Open");  // in flight when the kill comes
            raise(SIGKILL);
            _exit(101);
        }
        int status = 0;
        waitpid(child, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
        if (forceFlush) {
            expectCompleteTrace(directory, 2000, "killed");
        } else {
            const std::string text = readFile(directory.path() + "/killed_host_0_0.trc");
            EXPECT_GT(text.size(), 32u * 1024) << "nothing was written before the kill";
            EXPECT_EQ(text.find("</Program>"), std::string::npos) << "a cut trace looks complete";
        }
    }
}

// Turned on after some states: from the next flush on, the file ends in
// </Program>; turned off, the end is left to close().
TEST(Crash, ForceFlushTurnedOnLaterKeepsTheFileEndedAfterItsNextState) {
    ScratchDirectory directory;
    TraceOptions options = test::traceOptionsIn(directory, "later");
    auto writer = TraceWriter::create(options);
    ASSERT_TRUE(writer);
    writer->beginState("Buffered");
    writer->endState();
    EXPECT_EQ(readFile(writer->tracePath()).find("</Program>"), std::string::npos);
    writer->setForceFlush(true);
    writer->beginState("Flushed");
    writer->endState();
    Element root = parseXmlFile(writer->tracePath());
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[1].name, "Flushed");
    writer->setForceFlush(false);
    writer->close();
    const std::string text = readFile(writer->tracePath());
    EXPECT_EQ(text.find("</Program>"), text.rfind("</Program>")) << text;
    EXPECT_EQ(parseXmlFile(writer->tracePath()).children.size(), 2u);
}

}  // namespace
}  // namespace hdtrace
