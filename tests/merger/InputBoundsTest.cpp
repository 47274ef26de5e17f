// Memory follows the input present, never a number in it, and the merger
// writes only names the readers can read back: a rank number far beyond the
// traced ranks, a large .info, an overlong line or name, and file names the
// readers would not find are refused with file, line and what is wrong.
// The memory bounds are checked in a child process under RLIMIT_AS.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <new>

#include <gtest/gtest.h>

#include "InfoFileLines.hpp"
#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

// How a merge run in a child ended.
enum ChildEnd { kMerged = 10, kMergeError = 11, kOutOfMemory = 12, kOther = 13 };

size_t addressSpaceBytes() {
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0;
    statm >> pages;
    return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Runs work in a child whose address space may grow by at most headroom
// bytes; returns how it ended. detail gets the MergeError's what().
ChildEnd runBounded(size_t headroom, const std::function<void()> &work, std::string *detail) {
    int pipeEnds[2];
    if (pipe(pipeEnds) != 0) return kOther;
    const pid_t child = fork();
    if (child == 0) {
        close(pipeEnds[0]);
        const rlimit limit{addressSpaceBytes() + headroom, addressSpaceBytes() + headroom};
        setrlimit(RLIMIT_AS, &limit);
        int end = kOther;
        try {
            work();
            end = kMerged;
        } catch (const MergeError &error) {
            const std::string text = error.what();
            (void)!write(pipeEnds[1], text.data(), text.size());
            end = kMergeError;
        } catch (const std::bad_alloc &) {
            end = kOutOfMemory;
        } catch (...) {
        }
        _exit(end);
    }
    close(pipeEnds[1]);
    char buffer[4096];
    ssize_t got;
    while ((got = read(pipeEnds[0], buffer, sizeof buffer)) > 0)
        detail->append(buffer, static_cast<size_t>(got));
    close(pipeEnds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? static_cast<ChildEnd>(WEXITSTATUS(status)) : kOther;
}

constexpr size_t kMiB = size_t(1) << 20;

void mergeRun(const RunDirectory &run, bool force) {
    MergeOptions options;
    options.inputs = {run.path()};
    options.force = force;
    merge(options);
}

std::string fileLines(size_t count, const std::string &name) {
    std::string text;
    for (size_t i = 0; i < count; ++i)
        text += "File name=\"" + name + "\" Size=1 id=" + std::to_string(i % 7) + "\n";
    return text;
}

// --- rank numbers

TEST(InputBounds, RankTwoToTheThirtyOneMinusOneIsRefusedInBoundedMemory) {
    for (const int rank : {2147483647, 10000000}) {
        RunDirectory run;
        run.addTrace("app", "h", rank, 0, standardHeader(0, 1));
        std::string detail;
        EXPECT_EQ(runBounded(
                      50 * kMiB, [&] { mergeRun(run, false); }, &detail),
                  kMergeError)
            << "rank " << rank;
        const std::string name = "app_h_" + std::to_string(rank) + "_0.trc";
        EXPECT_EQ(detail, run.file(name) + ": gaps in the rank numbers: rank " +
                              std::to_string(rank) +
                              " in the file name, but only 1 rank(s) are traced (at most 1025 "
                              "rank numbers are allowed for them)");
        EXPECT_EQ(run.names(),
                  (std::vector<std::string>{name.substr(0, name.size() - 4) + ".info", name}));
    }
}

TEST(InputBounds, ForceDropsTheFarRankAndMergesTheRest) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2));
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2));
    run.addTrace("app", "h", 10000000, 0, standardHeader(0, 1));
    std::string detail;
    ASSERT_EQ(runBounded(
                  50 * kMiB, [&] { mergeRun(run, true); }, &detail),
              kMerged)
        << detail;
    const MergeResult result = mergeDirectory(run, true);
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_EQ(result.warnings[0],
              run.file("app_h_10000000_0.trc") +
                  ": gaps in the rank numbers: rank 10000000 in the file name, but only 3 rank(s) "
                  "are traced (at most 1027 rank numbers are allowed for them); dropped this "
                  "trace");
    EXPECT_EQ(result.rankCount, 2u);
    ProjectXml project(result.outputPath);
    EXPECT_EQ(project.elements("/Application/CommunicatorList/Communicator[1]/Rank").size(), 2u);
}

TEST(InputBounds, GapsWithinTheLimitAreStillOrdinaryGaps) {
    // Two traced ranks allow rank numbers up to 2 + 1024.
    RunDirectory far;
    far.addTrace("app", "h", 0, 0, standardHeader(0, 1));
    far.addTrace("app", "h", 1026, 0, standardHeader(0, 1));
    const MergeError error = mergeError(far);
    EXPECT_EQ(error.file(), far.file("app_h_1026_0.trc"));
    EXPECT_EQ(std::string(error.detail()),
              "gaps in the rank numbers: rank 1026 in the file name, but only 2 rank(s) are "
              "traced (at most 1026 rank numbers are allowed for them)");
    RunDirectory near;
    near.addTrace("app", "h", 0, 0, standardHeader(0, 1));
    near.addTrace("app", "h", 1025, 0, standardHeader(0, 1));
    EXPECT_EQ(std::string(mergeError(near).detail()),
              "gaps in the rank numbers: no trace of rank 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... "
              "(1024 of 0..1025)");
}

// --- the size of a .info

TEST(InputBounds, ALargeInfoIsReadLineByLine) {
    // 48 MiB of lines naming one file: the merge keeps one record, so it
    // fits in far less memory than the file (the whole file used to be read).
    const std::string line = fileLines(1, "f");
    RunDirectory run;
    std::string info = standardHeader(0, 1);
    info.reserve(48 * kMiB + line.size());
    while (info.size() < 48 * kMiB)
        info += line;
    run.addTrace("app", "h", 0, 0, info);
    info = std::string();
    std::string detail;
    EXPECT_EQ(runBounded(
                  24 * kMiB, [&] { mergeRun(run, false); }, &detail),
              kMerged)
        << detail;
    EXPECT_TRUE(run.exists("app.proj"));
}

TEST(InputBounds, ALineLongerThanTheLimitIsRefusedWithoutBeingKept) {
    RunDirectory run;
    const std::string path = run.file("lines.info");
    run.write("lines.info", "one\n" + std::string(5000, 'x') + "\nthree\n" + std::string(300, 'y') +
                                "\nlast without newline");
    InfoFileLines lines;
    std::string error;
    ASSERT_TRUE(lines.open(path, &error)) << error;
    lines.maxLineBytes = 1000;
    std::string_view text;
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::Line);
    EXPECT_EQ(text, "one");
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::TooLong);
    EXPECT_EQ(lines.lineNumber(), 2u);
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::Line);
    EXPECT_EQ(text, "three");
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::Line);
    EXPECT_EQ(text, std::string(300, 'y'));
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::Unterminated);
    EXPECT_EQ(text, "last without newline");
    EXPECT_EQ(lines.lineNumber(), 5u);
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::End);
    EXPECT_TRUE(error.empty()) << error;
}

TEST(InputBounds, LinesAcrossBlockBoundariesAreWhole) {
    // Lines of every length around the 64 KiB read blocks.
    RunDirectory run;
    std::string content;
    std::vector<std::string> expected;
    for (size_t length = 65530; length < 65545; ++length) {
        expected.push_back(std::string(length, char('a' + length % 26)));
        content += expected.back() + "\n";
    }
    run.write("blocks.info", content);
    InfoFileLines lines;
    std::string error;
    ASSERT_TRUE(lines.open(run.file("blocks.info"), &error));
    std::string_view text;
    for (const std::string &line : expected) {
        ASSERT_EQ(lines.next(&text, &error), InfoFileLines::Status::Line);
        EXPECT_EQ(text, line);
    }
    EXPECT_EQ(lines.next(&text, &error), InfoFileLines::Status::End);
}

// --- names the readers would refuse

TEST(InputBounds, ANameLongerThanTheReadersAcceptIsRefused) {
    RunDirectory run;
    const std::string longest(kMaxInfoNameBytes, 'n');
    run.addTrace("app", "h", 0, 0,
                 standardHeader(0, 1) + fileLines(1, longest) + fileLines(1, longest + "x"));
    const MergeError error = mergeError(run);
    EXPECT_EQ(error.file(), run.file("app_h_0_0.info"));
    EXPECT_EQ(error.line(), 5u);
    EXPECT_EQ(std::string(error.detail()),
              "a name of 65537 bytes, longer than the 65536 the readers of the .proj accept");
    const MergeResult forced = mergeDirectory(run, true);
    ProjectXml project(forced.outputPath);
    const auto files = project.elements("/Application/FileList/File");
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].at("name"), longest);
}

TEST(InputBounds, HostAndProgramNamesTheReadersWouldNotFindAreRefused) {
    struct Host {
        std::string name, shown, sanitised;
    };
    const std::vector<Host> hosts = {{"h\"<&'", "h\"<&'", "h----"},
                                     {"h+x", "h+x", "h-x"},
                                     {"h\nx", "h\\x0ax", "h-x"},
                                     {"h\xff", "h\\xff", "h-"}};
    for (const auto &[host, shown, sanitised] : hosts) {
        RunDirectory run;
        run.addTrace("app", "good", 0, 0, standardHeader(0, 2));
        run.addTrace("app", host, 1, 0, standardHeader(1, 2));
        const MergeError error = mergeError(run);
        EXPECT_EQ(error.file(), run.file("app_" + host + "_1_0.info")) << shown;
        EXPECT_EQ(std::string(error.detail()),
                  "host name '" + shown +
                      "' in the file name has characters outside [A-Za-z0-9.-]: the readers "
                      "would look for the trace as app_" +
                      sanitised + "_1_0.trc; rename the trace and its .info");
        EXPECT_FALSE(run.exists("app.proj"));
    }
    RunDirectory program;
    program.addTrace("my_app", "h", 0, 0, standardHeader(0, 1));
    EXPECT_EQ(std::string(mergeError(program).detail()),
              "program name 'my_app' in the file name has characters outside [A-Za-z0-9.-]: "
              "the readers would look for the trace as my-app_h_0_0.trc; rename the trace and "
              "its .info");
}

// --- messages

TEST(InputBounds, ATraceFileThatIsADirectoryIsNotARegularFile) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2));
    ASSERT_EQ(mkdir(run.file("app_h_1_0.trc").c_str(), 0755), 0);
    run.write("app_h_1_0.info", standardHeader(1, 2));
    for (const std::string &input : {run.file("app_h_1_0.trc"), run.path()}) {
        MergeOptions options;
        options.inputs = {input};
        try {
            merge(options);
            ADD_FAILURE() << "merged " << input;
        } catch (const MergeError &error) {
            EXPECT_EQ(error.file(), run.file("app_h_1_0.trc"));
            EXPECT_EQ(std::string(error.detail()).rfind("not a regular file", 0), 0u)
                << error.detail();
        }
    }
}

}  // namespace
}  // namespace hdtrace::merger::testing
