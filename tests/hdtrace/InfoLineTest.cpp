#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/InfoLine.hpp>

namespace hdtrace {
namespace {

TEST(InfoLine, WritesEachKindWithItsQuotingInItsOrder) {
    std::string line;
    InfoLineWriter(line, "Win").integer(5).integer(0).integer(4096).integer(8).text("create").end();
    EXPECT_EQ(line, "Win id=5 cid=0 size=4096 dispUnit=8 kind='create'\n");
    line.clear();
    InfoLineWriter(line, "File").text("a&amp;b").integer(-1).integer(3).end();
    EXPECT_EQ(line, "File name=\"a&amp;b\" Size=-1 id=3\n");
    line.clear();
    InfoLineWriter(line, "Clock")
        .text("init")
        .integer(-12)
        .integer(7)
        .integer(0)
        .integer(2)
        .integer(20)
        .end();
    EXPECT_EQ(line, "Clock at='init' time=-12 offset=7 rtt=0 leader=2 exchanges=20\n");
    line.clear();
    InfoLineWriter(line, "ClockAligned").text("app.info.unaligned").end(false);
    EXPECT_EQ(line, "ClockAligned backup='app.info.unaligned'");
}

TEST(InfoLine, OptionalFieldsAreLeftOutAndTrailingOnesNeedNoOmit) {
    std::string line;
    InfoLineWriter(line, "Comm")
        .appended([](std::string &out) { out += "0..3->0..3;"; })
        .omit()
        .integer(0)
        .text("WORLD")
        .end();
    EXPECT_EQ(line, "Comm map='0..3->0..3;' id=0 name='WORLD'\n");
    line.clear();
    InfoLineWriter(line, "Type")
        .text("5")
        .text("MPI_COMBINER_NAMED")
        .text("MPI_INT")
        .omit()
        .omit()
        .omit()
        .text("4")
        .omit()
        .text("4")
        .end();
    EXPECT_EQ(line,
              "Type id='5' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n");
}

TEST(InfoLine, AWriterThatStraysFromTheDefinitionThrows) {
    std::string line;
    EXPECT_THROW(InfoLineWriter(line, "Window"), std::logic_error);
    EXPECT_THROW(InfoLineWriter(line, "File").omit(), std::logic_error);
    EXPECT_THROW(InfoLineWriter(line, "File").text("a").integer(1).end(), std::logic_error);
    EXPECT_THROW(InfoLineWriter(line, "ClockAligned").text("a").text("b"), std::logic_error);
}

TEST(InfoLine, SplitsWhatItWritesBack) {
    InfoLineFields fields;
    ASSERT_TRUE(fields.split("Win id=5 cid=0 size=4096 dispUnit=8 kind='create'"));
    EXPECT_TRUE(fields.conforms()) << fields.problem();
    EXPECT_EQ(fields.keyword(), "Win");
    ASSERT_EQ(fields.size(), 5u);
    EXPECT_EQ(fields[4].name, "kind");
    EXPECT_EQ(fields[4].value, "create");
    EXPECT_EQ(fields[4].quote, '\'');
    ASSERT_NE(fields.find("size"), nullptr);
    EXPECT_EQ(*fields.find("size"), "4096");
    EXPECT_EQ(fields.find("lb"), nullptr);
    ASSERT_TRUE(fields.split("File name=\"with 'quote' and blank\" Size=0 id=1"));
    EXPECT_TRUE(fields.conforms()) << fields.problem();
    EXPECT_EQ(*fields.find("name"), "with 'quote' and blank");
    ASSERT_TRUE(fields.split("Comm map='0->0;' remote='1->0;' id=2 name='x'"));
    EXPECT_TRUE(fields.conforms()) << fields.problem();
}

TEST(InfoLine, DamagedLinesAreRefusedWithTheReason) {
    InfoLineFields fields;
    EXPECT_FALSE(fields.split("Clock at='init"));
    EXPECT_EQ(fields.problem(), "the value of 'at' has no closing quote (truncated line?)");
    EXPECT_FALSE(fields.split("Clock at='init'time=1"));
    EXPECT_EQ(fields.problem(), "no blank after the value of 'at'");
    EXPECT_FALSE(fields.split("Clock  at='init'"));
    EXPECT_FALSE(fields.split("Clock at='init' "));
    EXPECT_EQ(fields.problem(), "a blank at the end of the line");
    EXPECT_FALSE(fields.split("Clock time"));
    EXPECT_FALSE(fields.split(""));
    EXPECT_EQ(fields.problem(), "no keyword");
    EXPECT_FALSE(fields.split("Win id=5 id=6"));
    EXPECT_EQ(fields.problem(), "'id' appears twice");

    ASSERT_TRUE(fields.split("Win id='5' cid=0 size=1 dispUnit=1 kind='create'"));
    EXPECT_FALSE(fields.conforms());
    EXPECT_EQ(fields.problem(), "id is not quoted as defined");
    ASSERT_TRUE(fields.split("Win cid=0 id=5 size=1 dispUnit=1 kind='create'"));
    EXPECT_FALSE(fields.conforms());
    EXPECT_EQ(fields.problem(), "cid is not the next field of a Win line");
    ASSERT_TRUE(fields.split("Win id=5 cid=0 size=1 dispUnit=1"));
    EXPECT_FALSE(fields.conforms());
    EXPECT_EQ(fields.problem(), "no kind field");
    ASSERT_TRUE(fields.split("Window id=5"));
    EXPECT_FALSE(fields.conforms());
    EXPECT_EQ(fields.problem(), "no line kind Window");
}

TEST(InfoLine, TolerantSpacingTakesBlanksAndTabsAsTheyCome) {
    InfoLineFields fields;
    const auto tolerant = InfoLineFields::Spacing::Tolerant;
    ASSERT_TRUE(fields.split("File\tname=\"a b\"  Size=0 \t id=1 ", tolerant)) << fields.problem();
    EXPECT_TRUE(fields.conforms()) << fields.problem();
    EXPECT_EQ(*fields.find("name"), "a b");
    EXPECT_EQ(*fields.find("id"), "1");
    EXPECT_FALSE(fields.split("File\tname=\"a b\"  Size=0 \t id=1 "));
    ASSERT_TRUE(fields.splitFields("Comm", " map='0->0;' id=1 name='x'", tolerant));
    EXPECT_EQ(fields.keyword(), "Comm");
    EXPECT_EQ(fields.size(), 3u);
    EXPECT_FALSE(fields.splitFields("Comm", " map", tolerant));
    EXPECT_EQ(fields.problem(), "'map' is not of the form key=value");
    std::string many = "Type";
    for (size_t i = 0; i <= InfoLineFields::kMaxFields; ++i)
        many += " f" + std::to_string(i) + "=1";
    EXPECT_FALSE(fields.split(many, tolerant));
    EXPECT_EQ(fields.problem(), "more than 24 fields");
}

}  // namespace
}  // namespace hdtrace
