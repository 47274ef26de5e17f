// Hostile input: every reader answers with a clear error naming
// file and line, never a crash, a hang or a silently wrong value.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "SaxFileParser.hpp"
#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::TemporaryFile;

namespace {

// The ReadError that reading the whole trace at path throws through the
// Event reader (TraceReader) and through the column reader.
ReadError traceError(const std::string &path) {
    try {
        TraceReader reader(path);
        Event event;
        while (reader.next(event)) {
        }
    } catch (const ReadError &error) {
        return error;
    }
    ADD_FAILURE() << path << ": TraceReader did not fail";
    return ReadError(path, 0, 0, "no error");
}

ReadError columnsError(const std::string &path) {
    try {
        readEventColumns(path, TraceOptions{}, nullptr);
    } catch (const ReadError &error) {
        return error;
    }
    ADD_FAILURE() << path << ": readEventColumns did not fail";
    return ReadError(path, 0, 0, "no error");
}

ReadError projectError(const std::string &path) {
    try {
        readProject(path);
    } catch (const ReadError &error) {
        return error;
    }
    ADD_FAILURE() << path << ": readProject did not fail";
    return ReadError(path, 0, 0, "no error");
}

// A directory of its own, removed with what is in it.
class TemporaryDirectory {
  public:
    TemporaryDirectory() {
        char pattern[] = "/tmp/hdtrace-hostile-XXXXXX";
        path_ = mkdtemp(pattern);
    }
    ~TemporaryDirectory() {
        for (const std::string &entry : entries_)
            if (std::remove(entry.c_str()) != 0) rmdir(entry.c_str());
        rmdir(path_.c_str());
    }
    std::string add(const std::string &name) {
        entries_.push_back(path_ + "/" + name);
        return entries_.back();
    }

  private:
    std::string path_;
    std::vector<std::string> entries_;
};

const std::string kProjectHead = "<?xml version='1.0'?>\n<Application name='x'>\n";

}  // namespace

// --- structure: values outside the element they belong to (were SIGSEGV)

TEST(HostileProject, RankOutsideACommunicatorIsAnError) {
    TemporaryFile file(kProjectHead +
                           "<CommunicatorList>\n<Group>\n<Rank global='0' local='0' cid='0'/>\n"
                           "</Group>\n</CommunicatorList>\n</Application>\n",
                       ".proj");
    ReadError error = projectError(file.path());
    EXPECT_EQ(error.file(), file.path());
    EXPECT_EQ(error.line(), 5);
    EXPECT_EQ(error.problem(), "<Rank> inside <Group>, but ranks belong in a <Communicator>");
}

TEST(HostileProject, RankAfterAnotherElementIsNotGivenToTheCommunicatorBefore) {
    TemporaryFile file(kProjectHead +
                           "<CommunicatorList>\n<Communicator name='WORLD'/>\n<Group>"
                           "<Rank global='0' local='0' cid='0'/></Group>\n"
                           "</CommunicatorList>\n</Application>\n",
                       ".proj");
    EXPECT_EQ(projectError(file.path()).line(), 5);
}

TEST(HostileProject, ChunkSizeInTheDescriptionIsAnError) {
    TemporaryFile file(
        kProjectHead + "<Description><ChunkSize></ChunkSize></Description>\n" + "</Application>\n",
        ".proj");
    ReadError error = projectError(file.path());
    EXPECT_EQ(error.line(), 3);
    EXPECT_EQ(error.problem(), "<ChunkSize> inside <Description>, which holds text only");
}

TEST(HostileProject, FileValuesOutsideAFileAreErrors) {
    for (std::string element : {"ChunkSize", "InitialSize", "Distribution"}) {
        TemporaryFile file(kProjectHead + "<FileList>\n<" + element + ">1</" + element +
                               ">\n</FileList>\n</Application>\n",
                           ".proj");
        ReadError error = projectError(file.path());
        EXPECT_EQ(error.line(), 4) << element;
        EXPECT_EQ(error.problem(), "<" + element + "> outside a <File>");
    }
}

TEST(HostileProject, DatatypesOutsideARankAreErrors) {
    TemporaryFile file(kProjectHead +
                           "<Datatypes>\n<Other>\n<NAMED id='1' name='MPI_INT'/>\n</Other>\n"
                           "</Datatypes>\n</Application>\n",
                       ".proj");
    ReadError error = projectError(file.path());
    EXPECT_EQ(error.line(), 5);
    EXPECT_EQ(error.problem(), "<NAMED> inside <Other>, but datatypes belong in a <Rank>");
}

// --- only regular files are opened

TEST(HostileFiles, AFifoIsRefusedWithoutBlocking) {
    TemporaryDirectory directory;
    for (std::string name : {"app.proj", "app_h_0_0.trc"}) {
        std::string path = directory.add(name);
        ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
        std::string expected = path + ": not a regular file";
        if (name == "app.proj") {
            EXPECT_EQ(std::string(projectError(path).what()), expected);
        } else {
            EXPECT_EQ(std::string(traceError(path).what()), expected);
            EXPECT_EQ(std::string(columnsError(path).what()), expected);
        }
    }
}

TEST(HostileFiles, ADirectoryIsNotARegularFile) {
    TemporaryDirectory directory;
    std::string path = directory.add("app_h_0_0.trc");
    ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
    std::string expected = path + ": not a regular file (a directory)";
    EXPECT_EQ(std::string(traceError(path).what()), expected);
    EXPECT_EQ(std::string(columnsError(path).what()), expected);
    EXPECT_EQ(std::string(projectError(path).what()), expected);
}

TEST(HostileFiles, ADeviceIsNotARegularFile) {
    EXPECT_EQ(std::string(traceError("/dev/zero").what()), "/dev/zero: not a regular file");
    EXPECT_EQ(std::string(projectError("/dev/null").what()), "/dev/null: not a regular file");
}

// --- numbers that do not fit

TEST(HostileNumbers, TimeAdjustmentPlusTimeOverflowIsAnError) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Program timeAdjustment='1795333123'>\n"
        "<Init time='8281797364' end='8281797365'/>\n</Program>\n");
    for (const ReadError &error : {traceError(file.path()), columnsError(file.path())}) {
        EXPECT_EQ(error.file(), file.path());
        EXPECT_EQ(error.line(), 3);
        EXPECT_EQ(error.problem(),
                  "attribute time='8281797364' plus timeAdjustment overflows 64-bit nanoseconds");
    }
}

TEST(HostileNumbers, ATooLargeSizeIsAnErrorNotZero) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Program>\n<Init time='1' end='2'/>\n"
        "<File_write fid='0' size='99999999999999999999999' time='3' end='4'/>\n</Program>\n");
    for (const ReadError &error : {traceError(file.path()), columnsError(file.path())}) {
        EXPECT_EQ(error.line(), 4);
        EXPECT_EQ(error.problem(),
                  "attribute size='99999999999999999999999' does not fit in 64 bits");
    }
}

TEST(HostileNumbers, ATooLargeSizeInAChildIsAnError) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Program>\n<File_write_all_end fid='0' time='3' end='4'>\n"
        "<Data offset='0' size='-99999999999999999999999'/>\n</File_write_all_end>\n"
        "</Program>\n");
    EXPECT_EQ(traceError(file.path()).line(), 4);
    EXPECT_EQ(columnsError(file.path()).line(), 4);
}

TEST(HostileNumbers, RanksAndTagsBeyond32BitsAreErrorsInTheTable) {
    for (std::string attribute :
         {"toRank='4294967297'", "toTag='-2147483648'", "cid='2147483648'"}) {
        TemporaryFile file("<?xml version='1.0'?>\n<Program>\n<Send " + attribute +
                           " time='1' end='2'/>\n</Program>\n");
        ReadError error = columnsError(file.path());
        EXPECT_EQ(error.line(), 3) << attribute;
        EXPECT_NE(error.problem().find("does not fit in 32 bits"), std::string::npos)
            << error.problem();
        EXPECT_EQ(error.problem().rfind("attribute " + attribute.substr(0, attribute.find('=')), 0),
                  0u)
            << error.problem();
    }
}

// One grammar for both readers: in a tag with several faults, the first in
// the tag's order is the error, whichever reader is asked (the columns'
// own 32-bit limits come after the grammar's checks), in a call and below one.
TEST(HostileNumbers, BothReadersNameTheFirstFaultOfATag) {
    const std::string faults = "toTag='4294967297' size='99999999999999999999' time='x' end='2'";
    const std::string callFirst = "<Send " + faults + "/>\n";
    const std::string childFirst = "<Wait time='1' end='2'>\n  <For " + faults + "/>\n</Wait>\n";
    for (const std::string &body : {callFirst, childFirst}) {
        TemporaryFile file("<?xml version='1.0'?>\n<Program>\n<Init time='0' end='1'/>\n" + body +
                           "</Program>\n");
        const int line = body == callFirst ? 4 : 5;
        for (const ReadError &error : {traceError(file.path()), columnsError(file.path())}) {
            EXPECT_EQ(error.line(), line) << body;
            EXPECT_EQ(error.problem(),
                      "attribute size='99999999999999999999' does not fit in 64 bits")
                << body;
        }
    }
    // The time before the number: the time is the error.
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Program>\n<Send toTag='4294967297' time='x' size='1'/>\n"
        "</Program>\n");
    for (const ReadError &error : {traceError(file.path()), columnsError(file.path())})
        EXPECT_EQ(error.problem(), "attribute time='x' is not a time in seconds");
}

TEST(HostileNumbers, LargeDigitsInTextAttributesStayText) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Program>\n<Info key='k' value='99999999999999999999999'/>\n"
        "</Program>\n");
    TraceReader reader(file.path());
    Event event;
    ASSERT_TRUE(reader.next(event));
    EXPECT_EQ(*event.attribute("value"), "99999999999999999999999");
}

TEST(HostileNumbers, ProjectIntegersThatDoNotFitAreNamed) {
    TemporaryFile file(kProjectHead +
                           "<CommunicatorList>\n<Communicator name='WORLD'>\n"
                           "<Rank global='0' local='99999999999999999999' cid='0'/>\n"
                           "</Communicator>\n</CommunicatorList>\n</Application>\n",
                       ".proj");
    ReadError error = projectError(file.path());
    EXPECT_EQ(error.line(), 5);
    EXPECT_EQ(error.problem(), "<Rank> local='99999999999999999999' does not fit in 64 bits");
}

// --- work linear in the input: 100,000 distinct call names

TEST(HostileScale, HundredThousandDistinctNamesGetTheirOwnCodes) {
    const int names = 100000;
    std::string text = "<?xml version='1.0'?>\n<Program>\n";
    for (int index = 0; index < names; ++index)
        text += "<C" + std::to_string(index) + " time='1' end='2'/>\n";
    // Each name again, in the same order: the second sight reuses the code.
    for (int index = 0; index < names; ++index)
        text += "<C" + std::to_string(index) + " time='3' end='4'/>\n";
    text += "</Program>\n";
    TemporaryFile file(text);
    ColumnsResult result = readEventColumns(file.path(), TraceOptions{}, nullptr);
    const EventColumns &columns = result.columns;
    ASSERT_EQ(columns.names.size(), size_t(names));
    ASSERT_EQ(columns.rows(), size_t(2 * names));
    for (int index = 0; index < names; ++index) {
        ASSERT_EQ(columns.names[size_t(index)], "C" + std::to_string(index));
        ASSERT_EQ(columns.nameCode[size_t(index)], index);
        ASSERT_EQ(columns.nameCode[size_t(names + index)], index);
    }
}

// --- no recursion over input depth: nesting beyond the limit is refused

namespace {

std::string nested(const std::string &head, const std::string &open, const std::string &close,
                   int depth, const std::string &tail) {
    std::string text = head;
    text.reserve(head.size() + size_t(depth) * (open.size() + close.size()) + tail.size());
    for (int level = 0; level < depth; ++level)
        text += open;
    for (int level = 0; level < depth; ++level)
        text += close;
    return text + tail;
}

}  // namespace

TEST(HostileDepth, AMillionNestedCallsAreRefused) {
    TemporaryFile file(nested("<?xml version='1.0'?>\n<Program>\n<Send time='1' end='2'>\n",
                              "<Data>", "</Data>", 1000000, "</Send>\n</Program>\n"));
    const std::string problem = "elements nested more than " +
                                std::to_string(SaxFileParser::kMaxElementDepth) +
                                " deep (the readers' limit)";
    for (const ReadError &error : {traceError(file.path()), columnsError(file.path())}) {
        EXPECT_EQ(error.line(), 4);
        EXPECT_EQ(error.problem(), problem);
    }
}

TEST(HostileDepth, AMillionDeepDatatypeIsRefused) {
    TemporaryFile file(nested(kProjectHead + "<Datatypes>\n<Rank name='0'>\n", "<STRUCT id='1'>",
                              "</STRUCT>", 1000000, "</Rank>\n</Datatypes>\n</Application>\n"),
                       ".proj");
    ReadError error = projectError(file.path());
    EXPECT_EQ(error.line(), 5);
    EXPECT_NE(error.problem().find("nested more than"), std::string::npos) << error.problem();
}

TEST(HostileDepth, NestingUpToTheLimitIsRead) {
    // Program, Send, then Data elements up to the limit.
    const int dataLevels = SaxFileParser::kMaxElementDepth - 2;
    TemporaryFile file(nested("<?xml version='1.0'?>\n<Program>\n<Send time='1' end='2'>\n",
                              "<Data>", "</Data>", dataLevels, "</Send>\n</Program>\n"));
    TraceReader reader(file.path());
    Event event;
    ASSERT_TRUE(reader.next(event));
    int depth = 0;
    for (const Event *level = &event; !level->children.empty(); level = &level->children[0])
        ++depth;
    EXPECT_EQ(depth, dataLevels);
}

// --- messages say what happened

TEST(HostileMessages, ATraceCutBetweenElementsIsTruncated) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<Program>\n<Init time='1' end='2'/>\n<Finalize time='3' "
        "end='4'/>\n");
    for (const ReadError &error : {traceError(file.path()), columnsError(file.path())}) {
        EXPECT_EQ(error.file(), file.path());
        EXPECT_EQ(error.problem().rfind("truncated after line ", 0), 0u) << error.problem();
        EXPECT_EQ(error.problem().find("Extra content"), std::string::npos) << error.problem();
    }
}
