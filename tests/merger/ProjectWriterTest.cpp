// The project file as ProjectWriter leaves it: a project far longer than
// the part kept in the page cache while it is written (its head is synced
// and dropped as the rest comes) reads back whole and in order, and nothing
// is left beside it.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"
#include "ProjectWriter.hpp"

namespace hdtrace::merger::testing {
namespace {

std::vector<std::string> namesIn(const std::string &directory) {
    std::vector<std::string> names;
    DIR *listing = opendir(directory.c_str());
    if (!listing) return names;
    while (const dirent *entry = readdir(listing)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    closedir(listing);
    return names;
}

TEST(ProjectWriter, AProjectLongerThanTheCachedPartReadsBackWhole) {
    RunDirectory run;
    const std::string output = run.file("app.proj");
    // About 140 bytes a file: some 100 MB, several times what is kept.
    constexpr size_t kFiles = 750'000;
    std::vector<ProjectFile> files(kFiles);
    for (size_t i = 0; i < kFiles; ++i)
        files[i] = {"/scratch/run/output-" + std::to_string(i), static_cast<int64_t>(i) * 7};
    {
        ProjectWriter writer(output);
        writer.startApplication("app", "long");
        writer.fileList(files, "Simple", "64K");
        ASSERT_GT(writer.bytesWritten(), uint64_t(96) << 20);
        writer.commit();
    }
    EXPECT_EQ(namesIn(run.path()), std::vector<std::string>{"app.proj"});

    std::ifstream file(output, std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    const std::string project = bytes.str();
    // Every file in order, each with its own size.
    size_t at = 0;
    for (size_t i = 0; i < kFiles; ++i) {
        const std::string name = "<File name=\"" + files[i].name + "\">";
        at = project.find(name, at);
        ASSERT_NE(at, std::string::npos) << "file " << i << " is missing";
        at += name.size();
        const std::string size = "<InitialSize>" + std::to_string(files[i].initialSize) + "<";
        const size_t sizeAt = project.find("<InitialSize>", at);
        ASSERT_EQ(project.compare(sizeAt, size.size(), size), 0) << "file " << i;
    }
    EXPECT_EQ(project.find("<File ", at), std::string::npos);
    const std::string end = "</FileList>\n</Application>\n";
    ASSERT_GE(project.size(), end.size());
    EXPECT_EQ(project.substr(project.size() - end.size()), end);
}

}  // namespace
}  // namespace hdtrace::merger::testing
