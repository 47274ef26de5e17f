#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::TemporaryFile;

namespace {

const char *kTrace =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<Program timeAdjustment='100'>\n"
    "<Init time='0.000000001' end='0.000000002'/>\n"
    "<Nested>\n"
    "  <Nested>\n"
    "    <Send toRank='1' time='0.000000011' end='0.000000012'/>\n"
    "  </Nested>\n"
    "  <Bcast rootRank='0' time='0.000000010' end='0.000000013'/>\n"
    "</Nested>\n"
    "<File_open name='a &amp; b&#38;c &lt;d&gt;' fid='0' time='0.000000009' end='0.000000020'>\n"
    "  <Info key='k' value='v'/>\n"
    "</File_open>\n"
    "<Wait time='1.5' end='2'><For rid='3'/><For rid='4'/></Wait>\n"
    "</Program>\n";

std::vector<Event> readAll(const std::string &path, TraceOptions options = {}) {
    TraceReader reader(path, std::move(options));
    std::vector<Event> events;
    Event event;
    while (reader.next(event))
        events.push_back(event);
    return events;
}

}  // namespace

TEST(TraceReader, CallsTimesAttributesAndChildren) {
    TemporaryFile file(kTrace);
    std::vector<Event> events = readAll(file.path());
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].name, "Init");
    EXPECT_EQ(events[0].startNs, 100000000001);
    EXPECT_EQ(events[0].endNs, 100000000002);
    EXPECT_TRUE(events[0].attributes.empty());

    const Event &open = events[1];
    EXPECT_EQ(open.name, "File_open");
    ASSERT_NE(open.attribute("name"), nullptr);
    EXPECT_EQ(*open.attribute("name"), "a & b&c <d>");
    // The nested Bcast (with its own nested Send) comes first, then <Info>.
    ASSERT_EQ(open.children.size(), 2u);
    EXPECT_EQ(open.children[0].name, "Bcast");
    EXPECT_EQ(open.children[0].startNs, 100000000010);
    ASSERT_EQ(open.children[0].children.size(), 1u);
    EXPECT_EQ(open.children[0].children[0].name, "Send");
    EXPECT_EQ(*open.children[0].children[0].attribute("toRank"), "1");
    EXPECT_EQ(open.children[1].name, "Info");
    EXPECT_FALSE(open.children[1].hasStart);

    const Event &wait = events[2];
    EXPECT_EQ(wait.startNs, 101500000000);
    EXPECT_EQ(wait.endNs, 102000000000);
    ASSERT_EQ(wait.children.size(), 2u);
    EXPECT_EQ(*wait.children[1].attribute("rid"), "4");
}

TEST(TraceReader, NameFilterSkipsOtherCalls) {
    TemporaryFile file(kTrace);
    TraceOptions options;
    options.filter.names = {"Wait", "Init"};
    std::vector<Event> events = readAll(file.path(), options);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].name, "Init");
    EXPECT_EQ(events[1].name, "Wait");
}

TEST(TraceReader, TimeWindowKeepsOverlappingCalls) {
    TemporaryFile file(kTrace);
    TraceOptions options;
    options.filter.fromNs = 100000000015;
    options.filter.toNs = 101000000000;
    std::vector<Event> events = readAll(file.path(), options);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].name, "File_open");
    EXPECT_EQ(events[0].children.size(), 2u);
}

TEST(TraceReader, TruncatedTraceThrowsWithLocation) {
    std::string text = kTrace;
    TemporaryFile file(text.substr(0, text.find("<Wait") + 10));
    try {
        readAll(file.path());
        FAIL() << "no error";
    } catch (const ReadError &error) {
        EXPECT_EQ(error.file(), file.path());
        EXPECT_EQ(error.line(), 13);
        EXPECT_GT(error.column(), 0);
    }
}

TEST(TraceReader, PartialKeepsCompleteCallsAndReportsDamage) {
    std::string text = kTrace;
    TemporaryFile file(text.substr(0, text.find("<Wait") + 10));
    TraceOptions options;
    options.partial = true;
    TraceReader reader(file.path(), options);
    std::vector<std::string> names;
    Event event;
    while (reader.next(event))
        names.push_back(event.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Init", "File_open"}));
    ASSERT_TRUE(reader.damage());
    EXPECT_NE(reader.damage()->find(file.path() + ":13:"), std::string::npos) << *reader.damage();
}

TEST(TraceReader, DocumentTypeDeclarationIsRefused) {
    TemporaryFile file(
        "<?xml version='1.0'?>\n<!DOCTYPE Program [<!ENTITY x 'boom'>]>\n"
        "<Program><Init a='&x;' time='1' end='2'/></Program>\n");
    try {
        readAll(file.path());
        FAIL() << "no error";
    } catch (const ReadError &error) {
        EXPECT_NE(error.problem().find("document type declaration"), std::string::npos);
        EXPECT_EQ(error.line(), 2);
    }
}

TEST(TraceReader, MissingFileIsNamed) {
    try {
        TraceReader reader("/nonexistent/trace.trc");
        FAIL() << "no error";
    } catch (const ReadError &error) {
        EXPECT_EQ(std::string(error.what()),
                  "/nonexistent/trace.trc: cannot open: No such file or directory");
    }
}

TEST(TraceReader, ManyChunksInConstantMemory) {
    // Over the 256 KiB chunk size: calls straddle chunk boundaries.
    std::string text = "<?xml version='1.0'?>\n<Program timeAdjustment='0'>\n";
    const int calls = 20000;
    for (int i = 0; i < calls; ++i)
        text += "<Send size='" + std::to_string(i) + "' toRank='1' time='" + std::to_string(i) +
                ".000000000' end='" + std::to_string(i) + ".500000000'/>\n";
    text += "</Program>\n";
    TemporaryFile file(text);
    TraceReader reader(file.path());
    Event event;
    int count = 0;
    while (reader.next(event)) {
        ASSERT_EQ(*event.attribute("size"), std::to_string(count));
        ASSERT_EQ(event.startNs, int64_t(count) * 1000000000);
        ++count;
    }
    EXPECT_EQ(count, calls);
}

TEST(TraceReader, EmptyFileIsNamedAsSuch) {
    TemporaryFile file("");
    try {
        readAll(file.path());
        FAIL() << "no error";
    } catch (const ReadError &error) {
        EXPECT_EQ(std::string(error.what()), file.path() + ": the file is empty");
    }
}

TEST(TraceReader, ContentAfterTheRootIsAnError) {
    TemporaryFile file("<Program><Init time='1' end='2'/></Program>\n<Extra/>\n");
    try {
        readAll(file.path());
        FAIL() << "no error";
    } catch (const ReadError &error) {
        EXPECT_EQ(error.line(), 2);
        EXPECT_NE(error.problem().find("Extra content"), std::string::npos) << error.problem();
    }
}
