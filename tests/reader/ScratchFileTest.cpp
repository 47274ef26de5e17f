// Scratch files (WriterLayout.hpp): each thread makes them in a directory
// of its own, private to the user, with names of their own; a file is gone
// when its ScratchFile is, and the directory when its thread ends.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "WriterLayout.hpp"

namespace hdtrace::reader::layout {
namespace {

bool exists(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0;
}

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
        EXPECT_FALSE(exists(first)) << "a scratch file is a name until a writer makes it";
        makeFile(first);
        makeFile(second);
    }
    EXPECT_FALSE(exists(first));
    EXPECT_FALSE(exists(second));
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
    EXPECT_FALSE(exists(theirs));
    EXPECT_FALSE(exists(directoryOf(theirs))) << "the ended thread's directory is left";
    EXPECT_TRUE(exists(directoryOf(mine.path())));
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
    EXPECT_TRUE(exists(file.path()));
}

}  // namespace
}  // namespace hdtrace::reader::layout
