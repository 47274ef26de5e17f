// Which form a trace file is in, told by its first bytes, and which file a
// project's rank and thread read when the XML, the compact file or both
// are there.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

using testing::TemporaryFile;

// A closed compact container without records: its file header and footer.
void writeEmptyCompactFile(const std::string &path) {
    std::string error;
    auto writer = FrameWriter::create(path, FrameWriterOptions(), &error);
    ASSERT_TRUE(writer) << error;
    ASSERT_EQ(writer->close(), 0);
}

// A fresh directory, removed with what the test put in it.
class TemporaryDirectory {
  public:
    TemporaryDirectory() {
        char pattern[] = "/tmp/hdtrace-form-test-XXXXXX";
        path_ = mkdtemp(pattern);
    }
    ~TemporaryDirectory() {
        for (const std::string &file : files_)
            std::remove(file.c_str());
        ::rmdir(path_.c_str());
    }
    std::string file(const std::string &name, const std::string &text) {
        const std::string path = path_ + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        files_.push_back(path);
        return path;
    }
    std::string compactFile(const std::string &name) {
        const std::string path = path_ + "/" + name;
        writeEmptyCompactFile(path);
        files_.push_back(path);
        return path;
    }
    const std::string &path() const { return path_; }

  private:
    std::string path_;
    std::vector<std::string> files_;
};

TEST(TraceForm, TheCompactMagicMakesACompactTrace) {
    TemporaryFile compact("", ".ctrc");
    writeEmptyCompactFile(compact.path());
    EXPECT_EQ(traceFormOf(compact.path()), TraceForm::Compact);
    // Named .trc, it is still compact: the name does not decide.
    TemporaryFile misnamed("", ".trc");
    writeEmptyCompactFile(misnamed.path());
    EXPECT_EQ(traceFormOf(misnamed.path()), TraceForm::Compact);
}

TEST(TraceForm, EverythingElseIsLeftToTheXmlReader) {
    TemporaryFile xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program>\n</Program>\n");
    EXPECT_EQ(traceFormOf(xml.path()), TraceForm::Xml);
    TemporaryFile empty("");
    EXPECT_EQ(traceFormOf(empty.path()), TraceForm::Xml);
    // The magic but one byte short, and the magic with its last byte wrong.
    const std::string magic(frames::kFileMagic, sizeof frames::kFileMagic);
    TemporaryFile shortMagic(magic.substr(0, magic.size() - 1), ".ctrc");
    EXPECT_EQ(traceFormOf(shortMagic.path()), TraceForm::Xml);
    TemporaryFile wrongMagic(magic.substr(0, magic.size() - 1) + "x and more bytes", ".ctrc");
    EXPECT_EQ(traceFormOf(wrongMagic.path()), TraceForm::Xml);
    EXPECT_EQ(traceFormOf("/nonexistent-dir/app_h_0_0.ctrc"), TraceForm::Xml);
    EXPECT_EQ(traceFormOf("/tmp"), TraceForm::Xml);  // a directory
}

TEST(TraceForm, AFifoIsNotWaitedFor) {
    TemporaryDirectory directory;
    const std::string fifo = directory.path() + "/app_h_0_0.ctrc";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // No writer ever opens it: reading it would block for ever.
    EXPECT_EQ(traceFormOf(fifo), TraceForm::Xml);
    ::unlink(fifo.c_str());
}

TEST(TraceForm, FormNames) {
    EXPECT_STREQ(traceFormName(TraceForm::Xml), "XML");
    EXPECT_STREQ(traceFormName(TraceForm::Compact), "compact");
}

TEST(TraceForm, BasePathDropsEitherSuffix) {
    EXPECT_EQ(traceBasePath("dir/app_h_0_0.trc"), "dir/app_h_0_0");
    EXPECT_EQ(traceBasePath("dir/app_h_0_0.ctrc"), "dir/app_h_0_0");
    EXPECT_EQ(traceBasePath("dir/app_h_0_0.info"), "dir/app_h_0_0.info");
    EXPECT_EQ(traceBasePath(".trc"), ".trc");  // a name that is only the suffix
}

TEST(TraceForm, XmlWinsWhereBothFormsAreThere) {
    TemporaryDirectory directory;
    const std::string xml = directory.path() + "/app_h_0_0.trc";
    // Neither: the XML name, whose absence the caller reports.
    EXPECT_EQ(existingTracePath(xml), xml);
    const std::string compact = directory.compactFile("app_h_0_0.ctrc");
    EXPECT_EQ(existingTracePath(xml), compact);
    directory.file("app_h_0_0.trc", "<Program/>\n");
    EXPECT_EQ(existingTracePath(xml), xml);
}

// The project names the file there is: .trc, else .ctrc.
TEST(TraceForm, AProjectNamesTheCompactTraceWhereNoXmlIsThere) {
    TemporaryDirectory directory;
    const std::string project = directory.file(
        "app.proj",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Application name=\"app\">\n"
        "<Topology><Level name=\"Hostname\"><Level name=\"Rank\"><Level name=\"Thread\">"
        "</Level></Level></Level>\n"
        "<Label value=\"h\"><Label value=\"0\"><Label value=\"0\"/></Label>"
        "<Label value=\"1\"><Label value=\"0\"/></Label>"
        "<Label value=\"2\"><Label value=\"0\"/></Label></Label>\n"
        "</Topology>\n</Application>\n");
    directory.compactFile("app_h_0_0.ctrc");
    directory.file("app_h_1_0.trc", "<Program/>\n");
    directory.compactFile("app_h_1_0.ctrc");
    const Project read = readProject(project);
    ASSERT_EQ(read.leaves.size(), 3u);
    EXPECT_EQ(read.leaves[0].tracePath, directory.path() + "/app_h_0_0.ctrc");
    EXPECT_EQ(read.leaves[1].tracePath, directory.path() + "/app_h_1_0.trc");
    // Rank 2 has no trace at all: the XML name, for the missing trace's message.
    EXPECT_EQ(read.leaves[2].tracePath, directory.path() + "/app_h_2_0.trc");
}

}  // namespace
}  // namespace hdtrace::reader
