// Scratch files (WriterLayout.hpp): each thread makes them in a directory
// of its own, private to the user, with names of their own; a file is gone
// when its ScratchFile is, and the directory when its thread ends.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "TestFiles.hpp"
#include "WriterLayout.hpp"

namespace hdtrace::reader::layout {
namespace {

using hdtrace::reader::testing::pathExists;

void makeFile(const std::string &path) {
    std::FILE *file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr) << path;
    std::fputs("x", file);
    std::fclose(file);
}

std::string directoryOf(const std::string &path) {
    return std::filesystem::path(path).parent_path().string();
}

TEST(ScratchFile, AThreadsFilesShareAPrivateDirectoryUnderTheirOwnNames) {
    std::string first, second;
    {
        const ScratchFile a(".trc"), b(".ctrc");
        first = a.path();
        second = b.path();
        EXPECT_NE(first, second);
        EXPECT_EQ(first.substr(first.size() - 4), ".trc");
        EXPECT_EQ(second.substr(second.size() - 5), ".ctrc");
        const std::string directory = directoryOf(first);
        EXPECT_EQ(directory, directoryOf(second));
        EXPECT_TRUE(std::filesystem::equivalent(directoryOf(directory),
                                                std::filesystem::temp_directory_path()));
        struct stat status {};
        ASSERT_EQ(::stat(directory.c_str(), &status), 0);
        EXPECT_TRUE(S_ISDIR(status.st_mode));
        EXPECT_EQ(status.st_mode & 0777, 0700u) << "others may not make files there";
        EXPECT_FALSE(pathExists(first)) << "a scratch file is a name until a writer makes it";
        makeFile(first);
        makeFile(second);
    }
    EXPECT_FALSE(pathExists(first));
    EXPECT_FALSE(pathExists(second));
    const ScratchFile again(".trc");
    EXPECT_NE(again.path(), first) << "a name is not given twice";
}

TEST(ScratchFile, EachThreadHasItsDirectoryWhichGoesWithIt) {
    const ScratchFile mine(".trc");
    std::string theirs;
    std::thread other([&theirs] {
        const ScratchFile file(".trc");
        theirs = file.path();
        makeFile(theirs);
    });
    other.join();
    ASSERT_FALSE(theirs.empty());
    EXPECT_NE(directoryOf(theirs), directoryOf(mine.path()));
    EXPECT_FALSE(pathExists(theirs));
    EXPECT_FALSE(pathExists(directoryOf(theirs))) << "the ended thread's directory is left";
    EXPECT_TRUE(pathExists(directoryOf(mine.path())));
}

// Forks a child that makes a scratch file if asked, then ends by exit()
// (its thread's objects destroyed, as a program's are); the child's
// scratch path, or "" where it made none.
std::string scratchPathOfAForkedChild(bool makesOne) {
    int pipeEnds[2];
    if (::pipe(pipeEnds) != 0) return "pipe failed";
    std::fflush(nullptr);  // nothing buffered to be written twice
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipeEnds[0]);
        std::string path;
        if (makesOne) path = ScratchFile(".trc").path();
        const bool written =
            ::write(pipeEnds[1], path.data(), path.size()) == static_cast<ssize_t>(path.size());
        std::exit(written ? 0 : 1);
    }
    ::close(pipeEnds[1]);
    std::string path;
    char buffer[512];
    for (ssize_t got; (got = ::read(pipeEnds[0], buffer, sizeof buffer)) > 0;)
        path.append(buffer, static_cast<size_t>(got));
    ::close(pipeEnds[0]);
    int status = 0;
    if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return "the child failed";
    return path;
}

TEST(ScratchFile, AForkedChildHasADirectoryOfItsOwnAndLeavesTheParentsBe) {
    const ScratchFile mine(".trc");
    const std::string theirs = scratchPathOfAForkedChild(true);
    ASSERT_EQ(theirs.front(), '/') << theirs;
    EXPECT_NE(directoryOf(theirs), directoryOf(mine.path()));
    EXPECT_FALSE(pathExists(directoryOf(theirs))) << "the child's directory is left";
    EXPECT_TRUE(pathExists(directoryOf(mine.path()))) << "the child removed the parent's directory";
    EXPECT_EQ(scratchPathOfAForkedChild(false), "");
    EXPECT_TRUE(pathExists(directoryOf(mine.path())))
        << "a child without scratch files removed the parent's directory";
}

TEST(ScratchFile, ADirectoryRemovedMeanwhileIsMadeAgain) {
    std::string gone;
    {
        const ScratchFile file(".trc");
        gone = directoryOf(file.path());
    }
    ASSERT_EQ(::rmdir(gone.c_str()), 0);
    const ScratchFile file(".trc");
    makeFile(file.path());
    EXPECT_TRUE(pathExists(file.path()));
}

}  // namespace
}  // namespace hdtrace::reader::layout
