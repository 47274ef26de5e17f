// TraceWriter, the typed C++ API: every produced file is parsed back with
// libxml2 and checked value by value.
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::Element;
using test::parseTime;
using test::parseXmlFile;
using test::readFile;
using test::ScratchDirectory;

TraceOptions optionsIn(const ScratchDirectory &directory) {
    return test::traceOptionsIn(directory, "unit");
}

std::unique_ptr<TraceWriter> createWriter(const TraceOptions &options) {
    std::string error;
    auto writer = TraceWriter::create(options, &error);
    EXPECT_TRUE(writer) << error;
    return writer;
}

void expectTimesWellFormed(const Element &element, long long *previousStart) {
    const long long start = parseTime(element.attribute("time"));
    const long long end = parseTime(element.attribute("end"));
    EXPECT_LE(start, end) << "<" << element.name << "> at line " << element.line;
    if (previousStart) {
        EXPECT_LE(*previousStart, start) << "<" << element.name << "> at line " << element.line;
        *previousStart = start;
    }
}

TEST(TraceWriter, NamesFilesFromProgramAndSanitisedLevels) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.program = "my_app";
    options.levels = {"node 1", "12", "3"};
    auto writer = createWriter(options);
    EXPECT_EQ(writer->tracePath(), directory.path() + "/my-app_node-1_12_3.trc");
    EXPECT_EQ(writer->infoPath(), directory.path() + "/my-app_node-1_12_3.info");
    struct stat info;
    EXPECT_EQ(stat(writer->tracePath().c_str(), &info), 0);
    EXPECT_EQ(stat(writer->infoPath().c_str(), &info), 0);
}

TEST(TraceWriter, WritesALayersTraceBesideTheMainOneWithoutAnInfo) {
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        ScratchDirectory directory;
        TraceOptions options = optionsIn(directory);
        options.format = format;
        options.layer = "hdf5";
        auto writer = createWriter(options);
        ASSERT_TRUE(writer);
        const std::string suffix = format == TraceOptions::Format::Xml ? ".trc" : ".ctrc";
        EXPECT_EQ(writer->tracePath(), directory.path() + "/unit_host_0_0.hdf5" + suffix);
        EXPECT_EQ(writer->infoPath(), "");
        EXPECT_EQ(writer->writeInfo("File name=\"a\" Size=0 id=0\n"), EINVAL);
        writer->beginState("H5Dwrite");
        writer->attribute("size", int64_t{4096});
        EXPECT_EQ(writer->endState(), 0);
        EXPECT_EQ(writer->flush(), 0);
        EXPECT_EQ(writer->close(), 0);
        struct stat info;
        EXPECT_EQ(stat(writer->tracePath().c_str(), &info), 0);
        EXPECT_GT(info.st_size, 0);
        EXPECT_NE(stat((directory.path() + "/unit_host_0_0.info").c_str(), &info), 0);
        EXPECT_NE(stat((directory.path() + "/unit_host_0_0.hdf5.info").c_str(), &info), 0);
        if (format == TraceOptions::Format::Xml) {
            EXPECT_NE(readFile(writer->tracePath()).find("<H5Dwrite size='4096'"),
                      std::string::npos)
                << readFile(writer->tracePath());
        }
    }
}

TEST(TraceWriter, ALayersTraceFromTheMainTracesOriginHasItsTimeAdjustment) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    // An earliest time a second before now: the origin is not the creation.
    options.earliestTime = Timestamp{Timestamp::now().nanoseconds - 1000000000};
    auto main = createWriter(options);
    ASSERT_TRUE(main);
    EXPECT_EQ(main->origin().nanoseconds, options.earliestTime.nanoseconds);
    TraceOptions layerOptions = optionsIn(directory);
    layerOptions.layer = "hdf5";
    layerOptions.earliestTime = main->origin();
    auto layer = createWriter(layerOptions);
    ASSERT_TRUE(layer);
    EXPECT_EQ(layer->timeAdjustment(), main->timeAdjustment());
    EXPECT_EQ(layer->timeAdjustment(), options.earliestTime.wholeSeconds());
}

TEST(TraceWriter, RefusesALayerNameThatIsNotLowerCaseLettersAndDigits) {
    for (const char *layer : {"HDF5", "hdf_5", "a.b", "x/y"}) {
        ScratchDirectory directory;
        TraceOptions options = optionsIn(directory);
        options.layer = layer;
        std::string error;
        EXPECT_FALSE(TraceWriter::create(options, &error)) << layer;
        EXPECT_NE(error.find(std::string("'") + layer + "'"), std::string::npos) << error;
    }
}

TEST(TraceWriter, CreatesMissingDirectories) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.directory = directory.path() + "/a/b/c";
    auto writer = createWriter(options);
    ASSERT_TRUE(writer);
    EXPECT_EQ(writer->tracePath(), options.directory + "/unit_host_0_0.trc");
}

TEST(TraceWriter, ReportsUncreatableFiles) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    const std::string blocker = directory.path() + "/file";
    ASSERT_TRUE(fopen(blocker.c_str(), "w"));
    options.directory = blocker + "/sub";  // a path through a regular file
    std::string error;
    EXPECT_FALSE(TraceWriter::create(options, &error));
    EXPECT_NE(error.find(blocker), std::string::npos) << error;
}

TEST(TraceWriter, WritesStatesWithAttributesThenTimes) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    const Timestamp before = Timestamp::now();
    writer->beginState("Send");
    writer->attribute("size", int64_t{4096});
    writer->attribute("count", int64_t{1024});
    writer->attribute("tid", int64_t{1275069445});
    writer->attribute("toRank", int64_t{-2});
    writer->attribute("toTag", int64_t{7});
    writer->attribute("cid", int64_t{0});
    EXPECT_EQ(writer->endState(), 0);
    writer->beginState("Barrier");
    writer->attribute("cid", int64_t{3});
    EXPECT_EQ(writer->endState(), 0);
    const Timestamp after = Timestamp::now();
    const std::string path = writer->tracePath();
    const int64_t adjustment = writer->timeAdjustment();
    EXPECT_EQ(writer->close(), 0);

    const std::string text = readFile(path);
    EXPECT_EQ(
        text.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='", 0), 0u);
    Element root = parseXmlFile(path);
    EXPECT_EQ(root.name, "Program");
    EXPECT_EQ(root.attribute("timeAdjustment"), std::to_string(adjustment));
    EXPECT_EQ(adjustment, before.wholeSeconds());
    ASSERT_EQ(root.children.size(), 2u);

    const Element &send = root.children[0];
    EXPECT_EQ(send.name, "Send");
    EXPECT_EQ(send.attributeNames(), (std::vector<std::string>{"size", "count", "tid", "toRank",
                                                               "toTag", "cid", "time", "end"}));
    EXPECT_EQ(send.attribute("size"), "4096");
    EXPECT_EQ(send.attribute("tid"), "1275069445");
    EXPECT_EQ(send.attribute("toRank"), "-2");
    EXPECT_TRUE(send.children.empty());

    long long previous = 0;
    for (const Element &state : root.children) {
        expectTimesWellFormed(state, &previous);
        const long long absolute = adjustment * 1000000000LL + parseTime(state.attribute("time"));
        EXPECT_GE(absolute, before.nanoseconds);
        EXPECT_LE(absolute, after.nanoseconds);
    }
    EXPECT_EQ(root.children[1].attribute("cid"), "3");
}

TEST(TraceWriter, UsesTheGivenTimestamps) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    const int64_t base = writer->timeAdjustment() * 1000000000LL;
    writer->beginState("Wait", Timestamp{base + 1500000001});
    writer->endState(Timestamp{base + 2000000000});
    writer->beginState("Early", Timestamp{base - 250000000});
    writer->endState(Timestamp{base - 1});
    const std::string path = writer->tracePath();
    writer->close();
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[0].attribute("time"), "1.500000001");
    EXPECT_EQ(root.children[0].attribute("end"), "2.000000000");
    EXPECT_EQ(root.children[1].attribute("time"), "-0.250000000");
    EXPECT_EQ(root.children[1].attribute("end"), "-0.000000001");
}

TEST(TraceWriter, WritesChildElementsInCallOrder) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    writer->beginState("Waitall");
    for (int rid = 4; rid >= 1; --rid) {
        writer->beginElement("For");
        writer->attribute("rid", int64_t{rid});
        writer->endElement();
    }
    writer->endState();
    writer->beginState("File_write_all_begin");
    writer->attribute("fid", int64_t{2});
    writer->beginElement("Data");
    writer->attribute("offset", int64_t{0});
    writer->attribute("size", int64_t{1});
    writer->endElement();
    writer->attribute("rid", int64_t{9});  // after the child: still the state's attribute
    writer->endState();
    const std::string path = writer->tracePath();
    writer->close();

    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 2u);
    const Element &waitall = root.children[0];
    ASSERT_EQ(waitall.children.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(waitall.children[i].name, "For");
        EXPECT_EQ(waitall.children[i].attribute("rid"), std::to_string(4 - i));
    }
    const Element &begin = root.children[1];
    EXPECT_EQ(begin.attributeNames(), (std::vector<std::string>{"fid", "rid", "time", "end"}));
    ASSERT_EQ(begin.children.size(), 1u);
    EXPECT_EQ(begin.children[0].name, "Data");
    EXPECT_EQ(begin.children[0].attribute("size"), "1");
}

TEST(TraceWriter, DropsNestedStatesByDefaultButCountsThem) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    writer->beginState("Bcast");
    writer->beginState("Send");
    EXPECT_FALSE(writer->isWriting());
    writer->attribute("size", int64_t{1});
    writer->endState();
    writer->endState();
    EXPECT_EQ(writer->droppedStates(), 1u);
    const std::string path = writer->tracePath();
    writer->close();
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 1u);
    EXPECT_EQ(root.children[0].name, "Bcast");
    EXPECT_TRUE(root.children[0].children.empty());
}

TEST(TraceWriter, WritesInnerStatesBelowTheInnermostWrittenStateWhateverTheDepth) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));  // nested depth 0
    const Timestamp start = writer->now();
    // At the top level: a state of its own.
    ASSERT_EQ(writer->beginInnerState("pwrite", start), 0);
    writer->attribute("size", int64_t{16});
    ASSERT_EQ(writer->endInnerState(writer->now()), 0);
    // Inside a top-level state: in its <Nested> block although depth is 0.
    writer->beginState("File_write_all");
    ASSERT_EQ(writer->beginInnerState("pwrite", writer->now()), 0);
    EXPECT_TRUE(writer->isWriting());
    writer->attribute("size", int64_t{32});
    ASSERT_EQ(writer->endInnerState(writer->now()), 0);
    // Inside a nested state that is not written: below the written one.
    writer->beginState("Allreduce");
    ASSERT_EQ(writer->beginInnerState("pread", writer->now()), 0);
    writer->attribute("size", int64_t{64});
    ASSERT_EQ(writer->endInnerState(writer->now()), 0);
    writer->endState();
    writer->endState();
    EXPECT_EQ(writer->droppedStates(), 1u);  // the Allreduce
    // Nothing written: states open but disabled.
    writer->setEnabled(false);
    writer->beginState("Barrier");
    writer->setEnabled(true);
    ASSERT_EQ(writer->beginInnerState("write", writer->now()), 0);
    EXPECT_FALSE(writer->isWriting());
    ASSERT_EQ(writer->endInnerState(writer->now()), 0);
    writer->endState();
    EXPECT_EQ(writer->droppedStates(), 3u);
    const std::string path = writer->tracePath();
    writer->close();

    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 3u);
    EXPECT_EQ(root.children[0].name, "pwrite");
    EXPECT_EQ(root.children[0].attributeNames(), (std::vector<std::string>{"size", "time", "end"}));
    const Element &block = root.children[1];
    EXPECT_EQ(block.name, "Nested");
    ASSERT_EQ(block.children.size(), 2u);
    EXPECT_EQ(block.children[0].name, "pwrite");
    EXPECT_EQ(block.children[0].attribute("size"), "32");
    EXPECT_EQ(block.children[1].name, "pread");
    EXPECT_EQ(block.children[1].attribute("size"), "64");
    const Element &parent = root.children[2];
    EXPECT_EQ(parent.name, "File_write_all");
    for (const Element &inner : block.children) {
        EXPECT_GE(parseTime(inner.attribute("time")), parseTime(parent.attribute("time")));
        EXPECT_LE(parseTime(inner.attribute("end")), parseTime(parent.attribute("end")));
    }
}

// Depth 0 is the top level; writes a chain of `levels` states, each holding
// one child state, and returns after closing them all.
void writeChain(TraceWriter &writer, int levels) {
    for (int level = 0; level < levels; ++level) {
        writer.beginState("Level");
        writer.attribute("depth", int64_t{level});
    }
    for (int level = 0; level < levels; ++level)
        writer.endState();
}

TEST(TraceWriter, WritesNestedBlocksBeforeTheirParentUpToTheSetDepth) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.nestedDepth = 2;
    auto writer = createWriter(options);
    writeChain(*writer, 5);  // levels 3 and 4 are too deep
    EXPECT_EQ(writer->droppedStates(), 2u);
    // A parent with a <Data> child and nested states: the block stays outside.
    writer->beginState("File_read_all");
    writer->beginElement("Data");
    writer->attribute("size", int64_t{8});
    writer->endElement();
    writer->beginState("Recv");
    writer->endState();
    writer->endState();
    const std::string path = writer->tracePath();
    writer->close();

    Element root = parseXmlFile(path);
    // <Nested>(level 1 block) <Level depth=0/>, <Nested>(Recv) <File_read_all>
    ASSERT_EQ(root.children.size(), 4u);
    const Element &outerBlock = root.children[0];
    EXPECT_EQ(outerBlock.name, "Nested");
    ASSERT_EQ(outerBlock.children.size(), 2u);
    EXPECT_EQ(outerBlock.children[0].name, "Nested");
    ASSERT_EQ(outerBlock.children[0].children.size(), 1u);
    EXPECT_EQ(outerBlock.children[0].children[0].attribute("depth"), "2");
    EXPECT_TRUE(outerBlock.children[0].children[0].children.empty());
    EXPECT_EQ(outerBlock.children[1].attribute("depth"), "1");
    EXPECT_EQ(root.children[1].name, "Level");
    EXPECT_EQ(root.children[1].attribute("depth"), "0");

    // Each nested state lies within the time of the state that contains it.
    const long long outerStart = parseTime(root.children[1].attribute("time"));
    const long long outerEnd = parseTime(root.children[1].attribute("end"));
    for (const Element *inner : {&outerBlock.children[1], &outerBlock.children[0].children[0]}) {
        EXPECT_GE(parseTime(inner->attribute("time")), outerStart);
        EXPECT_LE(parseTime(inner->attribute("end")), outerEnd);
    }

    EXPECT_EQ(root.children[2].name, "Nested");
    EXPECT_EQ(root.children[2].children[0].name, "Recv");
    const Element &readAll = root.children[3];
    EXPECT_EQ(readAll.name, "File_read_all");
    ASSERT_EQ(readAll.children.size(), 1u);
    EXPECT_EQ(readAll.children[0].name, "Data");
}

TEST(TraceWriter, RefusesNestingBeyondTheMaximum) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    for (int level = 0; level < HD_LOG_MAX_DEPTH; ++level) {
        ASSERT_EQ(writer->beginState("Level"), 0) << level;
    }
    EXPECT_EQ(writer->beginState("TooDeep"), EOVERFLOW);
    EXPECT_EQ(writer->depth(), HD_LOG_MAX_DEPTH);
    for (int level = 0; level < HD_LOG_MAX_DEPTH; ++level)
        EXPECT_EQ(writer->endState(), 0);
    EXPECT_EQ(writer->endState(), EPERM);
    EXPECT_EQ(writer->setNestedDepth(HD_LOG_MAX_DEPTH), EINVAL);
    EXPECT_EQ(writer->setNestedDepth(-1), EINVAL);
    EXPECT_EQ(writer->setNestedDepth(HD_LOG_MAX_DEPTH - 1), 0);
    const std::string path = writer->tracePath();
    writer->close();
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 1u);
    EXPECT_EQ(root.children[0].name, "Level");
}

TEST(TraceWriter, EscapesEveryValue) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"quotes 'single' \"double\"", "quotes 'single' \"double\""},
        {"a<b>&c", "a<b>&c"},
        {"line1\nline2\tend\r", "line1\nline2\tend\r"},
        {std::string("ctl\x01\x1f", 5), "ctl\xe2\x90\x81\xe2\x90\x9f"},
        {"latin1 caf\xe9", "latin1 caf\xc3\xa9"},
        {"utf8 caf\xc3\xa9 \xf0\x9f\x98\x80", "utf8 caf\xc3\xa9 \xf0\x9f\x98\x80"},
        {"", ""},
    };
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    for (const auto &[value, expected] : cases) {
        writer->beginState("File_open");
        writer->attribute("name", value);
        writer->beginElement("Info");
        writer->attribute("key", value);
        writer->endElement();
        writer->endState();
    }
    writer->event("odd'name<&>");
    const std::string path = writer->tracePath();
    writer->close();

    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), cases.size() + 1);
    for (size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(root.children[i].attribute("name"), cases[i].second) << i;
        ASSERT_EQ(root.children[i].children.size(), 1u);
        EXPECT_EQ(root.children[i].children[0].attribute("key"), cases[i].second) << i;
    }
    const Element &event = root.children.back();
    EXPECT_EQ(event.name, "Event");
    EXPECT_EQ(event.attribute("name"), "odd'name<&>");
    EXPECT_EQ(event.attributeNames(), (std::vector<std::string>{"name", "time"}));
}

TEST(TraceWriter, BuffersUntilFlushUnlessForced) {
    ScratchDirectory directory;
    auto buffered = createWriter(optionsIn(directory));
    const std::string prolog = readFile(buffered->tracePath());
    buffered->beginState("Barrier");
    buffered->endState();
    EXPECT_EQ(readFile(buffered->tracePath()), prolog);
    EXPECT_EQ(buffered->flush(), 0);
    EXPECT_NE(readFile(buffered->tracePath()).find("<Barrier "), std::string::npos);

    TraceOptions options = optionsIn(directory);
    options.levels = {"host", "1", "0"};
    options.forceFlush = true;
    auto forced = createWriter(options);
    forced->beginState("Outer");
    forced->beginState("Inner");
    forced->endState();
    // Nested states reach the file with the state that contains them.
    EXPECT_EQ(readFile(forced->tracePath()).find("<Inner"), std::string::npos);
    forced->endState();
    EXPECT_NE(readFile(forced->tracePath()).find("<Outer "), std::string::npos);
    forced->setForceFlush(false);
    forced->beginState("Later");
    forced->endState();
    EXPECT_EQ(readFile(forced->tracePath()).find("<Later"), std::string::npos);
}

TEST(TraceWriter, SurvivesStatesLargerThanTheBuffer) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.bufferBytes = 4096;
    auto writer = createWriter(options);
    const std::string big(100000, 'x');
    for (int i = 0; i < 2000; ++i) {
        writer->beginState("Send");
        writer->attribute("index", int64_t{i});
        if (i % 500 == 7) writer->attribute("payload", big);
        writer->endState();
    }
    const std::string path = writer->tracePath();
    EXPECT_EQ(writer->close(), 0);
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 2000u);
    long long previous = 0;
    for (int i = 0; i < 2000; ++i) {
        EXPECT_EQ(root.children[i].attribute("index"), std::to_string(i));
        expectTimesWellFormed(root.children[i], &previous);
    }
    EXPECT_EQ(root.children[507].attribute("payload"), big);
}

// The background writer changes who writes, not what: the same states give
// the same bytes with it and without it, across many full halves and states
// larger than a half (written through, in between queued halves).
TEST(TraceWriter, BackgroundWritesGiveTheSameFileAsWritingInPlace) {
    std::string files[2];
    for (bool background : {false, true}) {
        ScratchDirectory directory;
        TraceOptions options = optionsIn(directory);
        options.bufferBytes = 4096;
        options.backgroundWrites = background;
        auto writer = createWriter(options);
        const int64_t base = writer->timeAdjustment() * 1000000000;
        const std::string big(3000, 'y');
        for (int i = 0; i < 20000; ++i) {
            writer->beginState("Write", Timestamp{base + 1000 * i});
            writer->attribute("index", int64_t{i});
            if (i % 997 == 5) writer->attribute("payload", big);
            writer->endState(Timestamp{base + 1000 * i + 500});
        }
        const std::string path = writer->tracePath();
        EXPECT_EQ(writer->close(), 0);
        Element root = parseXmlFile(path);
        ASSERT_EQ(root.children.size(), 20000u);
        EXPECT_EQ(root.children[19999].attribute("index"), "19999");
        files[background] = readFile(path);
        // The prolog holds the creation second; compare what follows it.
        files[background].erase(0, files[background].find("'>\n"));
    }
    EXPECT_GT(files[0].size(), 20000u * 40);
    EXPECT_TRUE(files[0] == files[1]) << "sizes " << files[0].size() << " / " << files[1].size();
}

// The .info is written in blocks: a line waits in its buffer
// until the trace writes, flush(), close() or a crash, or goes at once with
// forceFlush.
TEST(TraceWriter, WritesInfoLinesInBlocks) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    EXPECT_EQ(writer->writeInfo("File name=\"a\" Size=0 id=0\n"), 0);
    EXPECT_EQ(writer->writeInfo("Comm map='0..3->0..3;' id=0 name='WORLD'\n"), 0);
    EXPECT_EQ(readFile(writer->infoPath()), "");
    EXPECT_EQ(writer->flush(), 0);
    EXPECT_EQ(readFile(writer->infoPath()),
              "File name=\"a\" Size=0 id=0\nComm map='0..3->0..3;' id=0 name='WORLD'\n");
    EXPECT_EQ(writer->writeInfo("File name=\"b\" Size=1 id=1\n"), 0);
    const std::string path = writer->infoPath();
    writer->close();
    EXPECT_EQ(readFile(path),
              "File name=\"a\" Size=0 id=0\nComm map='0..3->0..3;' id=0 "
              "name='WORLD'\nFile name=\"b\" Size=1 id=1\n");
}

TEST(TraceWriter, WritesInfoLinesImmediatelyWithForceFlush) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.forceFlush = true;
    auto writer = createWriter(options);
    EXPECT_EQ(writer->writeInfo("File name=\"a\" Size=0 id=0\n"), 0);
    EXPECT_EQ(readFile(writer->infoPath()), "File name=\"a\" Size=0 id=0\n");
}

// Every trace write is preceded by the .info's: a line reaches the file no
// later than the elements after it, also when the trace's buffer fills up.
TEST(TraceWriter, InfoReachesTheFileBeforeLaterTraceText) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.bufferBytes = 8192;
    options.backgroundWrites = false;
    auto writer = createWriter(options);
    EXPECT_EQ(writer->writeInfo("Type id='16777216' combiner='MPI_COMBINER_DUP' name='' "
                                "integers='' addresses='' types='1;'\n"),
              0);
    while (readFile(writer->tracePath()).find("<Call") == std::string::npos) {
        writer->beginState("Call");
        writer->attribute("tid", int64_t{16777216});
        writer->endState();
    }
    EXPECT_NE(readFile(writer->infoPath()).find("id='16777216'"), std::string::npos);
}

// A line longer than the buffer is written through, in its place.
TEST(TraceWriter, WritesInfoLinesLongerThanTheBuffer) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    const std::string first = "Comm map='0->0;' id=1 name='SELF'\n";
    const std::string longLine = "Comm map='" + std::string(100000, 'x') + "' id=2 name=''\n";
    EXPECT_EQ(writer->writeInfo(first), 0);
    EXPECT_EQ(writer->writeInfo(longLine), 0);
    EXPECT_EQ(writer->writeInfo(first), 0);
    const std::string path = writer->infoPath();
    writer->close();
    EXPECT_EQ(readFile(path), first + longLine + first);
}

// The crash path writes the buffered lines too.
TEST(TraceWriter, CrashCloseWritesBufferedInfoLines) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    EXPECT_EQ(writer->writeInfo("File name=\"a\" Size=0 id=0\n"), 0);
    writer->closeForCrash();
    EXPECT_EQ(readFile(writer->infoPath()), "File name=\"a\" Size=0 id=0\n");
}

TEST(TraceWriter, SkipsStatesWhileDisabled) {
    ScratchDirectory directory;
    auto writer = createWriter(optionsIn(directory));
    writer->setEnabled(false);
    writer->beginState("Hidden");
    writer->attribute("x", int64_t{1});
    writer->endState();
    writer->setEnabled(true);
    writer->beginState("Shown");
    writer->endState();
    EXPECT_EQ(writer->droppedStates(), 1u);
    const std::string path = writer->tracePath();
    writer->close();
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 1u);
    EXPECT_EQ(root.children[0].name, "Shown");
}

TEST(TraceWriter, CloseEndsOpenStatesAndRejectsLaterCalls) {
    ScratchDirectory directory;
    TraceOptions options = optionsIn(directory);
    options.nestedDepth = 1;
    auto writer = createWriter(options);
    writer->beginState("Abort");
    writer->attribute("errorcode", int64_t{3});
    writer->beginState("Inner");
    const std::string path = writer->tracePath();
    EXPECT_EQ(writer->close(), 0);
    EXPECT_EQ(writer->close(), 0);  // idempotent
    EXPECT_EQ(writer->beginState("Late"), EBADF);
    EXPECT_EQ(writer->endState(), EBADF);
    EXPECT_EQ(writer->writeInfo("x\n"), EBADF);
    Element root = parseXmlFile(path);
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[0].name, "Nested");
    EXPECT_EQ(root.children[1].name, "Abort");
    EXPECT_EQ(root.children[1].attribute("errorcode"), "3");
}

// A write error (here: the file size limit) stops the trace with one warning;
// the process goes on.
TEST(TraceWriter, StopsCleanlyWhenTheFileCannotBeWritten) {
    ScratchDirectory directory;
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    const std::string stderrPath = directory.path() + "/stderr.txt";
    if (child == 0) {
        const int stderrFile = open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (stderrFile < 0 || dup2(stderrFile, STDERR_FILENO) < 0) _exit(12);
        std::signal(SIGXFSZ, SIG_IGN);
        TraceOptions options = optionsIn(directory);
        options.bufferBytes = 4096;
        auto writer = TraceWriter::create(options);
        if (!writer) _exit(10);
        rlimit limit{20000, 20000};
        setrlimit(RLIMIT_FSIZE, &limit);
        int firstError = 0;
        for (int i = 0; i < 5000; ++i) {
            writer->beginState("Send");
            writer->attribute("index", int64_t{i});
            const int result = writer->endState();
            if (result != 0 && firstError == 0) firstError = result;
        }
        if (firstError != EIO || !writer->hasFailed()) _exit(11);
        writer->close();
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const std::string warnings = readFile(stderrPath);
    EXPECT_EQ(
        warnings.rfind("hdtrace: cannot write '" + directory.path() + "/unit_host_0_0.trc': ", 0),
        0u)
        << warnings;
    EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
}

}  // namespace
}  // namespace hdtrace
