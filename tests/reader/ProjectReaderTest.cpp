#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::TemporaryFile;

TEST(ProjectReader, OurLayout) {
    const std::string directory = std::string(HDTRACE_READER_TEST_DATA) + "/ours/";
    Project project = readProject(directory + "app.proj");
    EXPECT_EQ(project.name, "app");
    EXPECT_EQ(project.description, "two ranks & a file");
    EXPECT_EQ(project.distributionStyle, DistributionStyle::Implementation);
    ASSERT_EQ(project.files.size(), 1u);
    EXPECT_EQ(project.files[0].name, "out & data.bin");
    EXPECT_EQ(project.files[0].initialSize, 1024);
    EXPECT_EQ(project.files[0].chunkSize, "64K");
    EXPECT_EQ(project.levels, (std::vector<std::string>{"Hostname", "Rank", "Thread"}));
    ASSERT_EQ(project.leaves.size(), 2u);
    EXPECT_EQ(project.leaves[1].labels, (std::vector<std::string>{"node01", "1", "0"}));
    EXPECT_EQ(project.leaves[1].tracePath, directory + "app_node01_1_0.trc");
    ASSERT_EQ(project.communicators.size(), 2u);
    EXPECT_EQ(project.communicators[1].name, "reversed");
    ASSERT_EQ(project.communicators[1].members.size(), 2u);
    EXPECT_EQ(project.communicators[1].members[0].global, 0);
    EXPECT_EQ(project.communicators[1].members[0].local, 1);
    EXPECT_EQ(project.communicators[1].members[0].cid, 2);
    ASSERT_EQ(project.datatypes.size(), 2u);
    ASSERT_EQ(project.datatypes[0].types.size(), 2u);
    EXPECT_EQ(project.datatypes[0].types[1].combiner, "VECTOR");
    EXPECT_EQ(project.datatypes[1].rank, "1");
}

TEST(ProjectReader, SeedLayout) {
    Project project = readProject(std::string(HDTRACE_READER_TEST_DATA) + "/seed/seed.proj");
    EXPECT_EQ(project.distributionStyle, DistributionStyle::Class);
    EXPECT_EQ(project.levels, (std::vector<std::string>{"Hostname", "Rank", "Thread"}));
    ASSERT_EQ(project.leaves.size(), 2u);
    EXPECT_EQ(project.leaves[0].labels, (std::vector<std::string>{"node01", "1", "0"}));
    EXPECT_EQ(project.files[0].chunkSize, "64K");
    EXPECT_EQ(project.datatypes[0].thread, "0");
}

TEST(ProjectReader, StructTypesKeepTheirChildren) {
    Project project = readProject(std::string(HDTRACE_READER_TEST_DATA) + "/original/orig.proj");
    const DatatypeElement &type = project.datatypes[1].types[2];
    EXPECT_EQ(type.combiner, "STRUCT");
    ASSERT_EQ(type.children.size(), 2u);
    EXPECT_EQ(type.children[1].combiner, "Type");
    EXPECT_EQ(type.children[1].attributes[1].name, "displacement");
    EXPECT_EQ(type.children[1].attributes[1].value, "8");
}

namespace {

// The error that reading path as a project gives; a test failure where it
// gives none.
std::optional<ReadError> errorReading(const std::string &path) {
    try {
        readProject(path);
    } catch (const ReadError &error) {
        return error;
    }
    ADD_FAILURE() << path << " was read as a project";
    return std::nullopt;
}

// What a user may pass where a project goes: each refused with what it is
// and what to give instead, at line 1, column 1.
std::string problemOf(const std::string &path) {
    const std::optional<ReadError> error = errorReading(path);
    if (!error) return {};
    EXPECT_EQ(error->line(), 1) << error->what();
    EXPECT_EQ(error->column(), 1) << error->what();
    return error->problem();
}

}  // namespace

TEST(ProjectReader, BadValuesNameTheLine) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Application name='x'>\n<CommunicatorList>\n"
        "<Communicator name='WORLD'>\n<Rank global='0' local='0'/>\n</Communicator>\n"
        "</CommunicatorList>\n</Application>\n",
        ".proj");
    const std::optional<ReadError> error = errorReading(file.path());
    ASSERT_TRUE(error);
    EXPECT_EQ(error->line(), 5);
    EXPECT_EQ(error->problem(), "<Rank> has no cid= attribute");
}

TEST(ProjectReader, FilesThatAreNoProjectSayWhatTheyAre) {
    const std::string magic(hdtrace::frames::kFileMagic, sizeof hdtrace::frames::kFileMagic);
    TemporaryFile compact(magic + std::string(64, '\0'), ".ctrc");
    EXPECT_EQ(problemOf(compact.path()),
              "a compact trace, not a project: give the run's project (.proj), which hdtrace merge "
              "or project-merger writes from the run's .info files");

    TemporaryFile info(
        "Mpi library='Open MPI v4.1.4' order_c=0\nComm map='0->0;' id=0 name='WORLD'\n", ".info");
    EXPECT_EQ(problemOf(info.path()),
              "not an HDTrace project: a project is XML, and this file begins with \"Mpi "
              "library='Open MPI v4\" (a rank's .info file: hdtrace merge or project-merger makes "
              "the project from the run's .info files)");

    // After a byte order mark and blank lines; bytes outside printable ASCII shown as '?'.
    TemporaryFile binary("\xEF\xBB\xBF\n  \x01\x02text\n", ".proj");
    EXPECT_EQ(problemOf(binary.path()),
              "not an HDTrace project: a project is XML, and this file begins with \"??text\"");

    TemporaryFile empty("", ".proj");
    EXPECT_EQ(problemOf(empty.path()), "an empty file, not a project");
}

TEST(ProjectReader, ATraceGivenAsProjectIsNamedATrace) {
    TemporaryFile trace("<?xml version=\"1.0\"?>\n<Program timeAdjustment='0'>\n</Program>\n",
                        ".trc");
    const std::optional<ReadError> error = errorReading(trace.path());
    ASSERT_TRUE(error);
    EXPECT_EQ(error->line(), 2);
    EXPECT_EQ(error->problem(),
              "the root element is <Program>, but a project's root is <Application> (a trace, "
              "not a project: give the run's project (.proj), which hdtrace merge or "
              "project-merger writes from the run's .info files)");
}
