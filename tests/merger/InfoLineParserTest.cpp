// The .info line parser on every line kind, every map form, and bad lines.
#include <gtest/gtest.h>

#include "InfoLine.hpp"

namespace hdtrace::merger {
namespace {

InfoLine parse(const std::string &text) {
    InfoLine line;
    parseInfoLine(text, line);
    return line;
}

std::string errorOf(const std::string &text) {
    try {
        parse(text);
    } catch (const InfoSyntaxError &error) {
        return error.what();
    }
    return "(no error)";
}

TEST(InfoLineParser, ReadsTheMpiLine) {
    const InfoLine line = parse(
        "Mpi library='Open MPI v4.1.4 &amp; co' order_c=56 order_fortran=57 distribute_block=121 "
        "distribute_cyclic=122 distribute_none=123 distribute_dflt_darg=-49767");
    ASSERT_EQ(line.kind, InfoLine::Kind::Mpi);
    EXPECT_EQ(line.mpi.library, "Open MPI v4.1.4 & co");
    EXPECT_EQ(line.mpi.orderC, 56);
    EXPECT_EQ(line.mpi.orderFortran, 57);
    EXPECT_EQ(line.mpi.distributeBlock, 121);
    EXPECT_EQ(line.mpi.distributeCyclic, 122);
    EXPECT_EQ(line.mpi.distributeNone, 123);
    EXPECT_EQ(line.mpi.distributeDfltDarg, -49767);
}

TEST(InfoLineParser, ReadsFileLinesWithEscapedNames) {
    const InfoLine line = parse(
        "File name=\"a &quot;b&quot; &amp; c&apos;s &lt;x&gt; caf&#233;&#x20AC;\" "
        "Size=16777216 id=2");
    ASSERT_EQ(line.kind, InfoLine::Kind::File);
    EXPECT_EQ(line.file.name, "a \"b\" & c's <x> caf\xc3\xa9\xe2\x82\xac");
    EXPECT_EQ(line.file.size, 16777216);
    EXPECT_EQ(line.file.id, 2);
}

TEST(InfoLineParser, ReadsTheSeedsMapForm) {
    const InfoLine line = parse("Comm map='0->0;1->1;2->2;3->3;4->4;' id=0 name='WORLD'");
    ASSERT_EQ(line.kind, InfoLine::Kind::Comm);
    EXPECT_EQ(line.comm.id, 0);
    EXPECT_EQ(line.comm.name, "WORLD");
    EXPECT_FALSE(line.comm.intercommunicator);
    ASSERT_EQ(line.comm.map.size(), 5u);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(line.comm.map[i].world, i);
        EXPECT_EQ(line.comm.map[i].local, i);
        EXPECT_EQ(line.comm.map[i].length, 1);
    }
}

TEST(InfoLineParser, ReadsCompactRunsAndIntercommunicators) {
    InfoLine line = parse("Comm map='0..16383->0..16383;' id=0 name='WORLD'");
    ASSERT_EQ(line.comm.map.size(), 1u);
    EXPECT_EQ(line.comm.map[0].world, 0);
    EXPECT_EQ(line.comm.map[0].local, 0);
    EXPECT_EQ(line.comm.map[0].length, 16384);

    line = parse("Comm map='4..7->0..3;1->4;' remote='8..9->1..2;12->0;' id=5 name='x'");
    EXPECT_TRUE(line.comm.intercommunicator);
    ASSERT_EQ(line.comm.map.size(), 2u);
    EXPECT_EQ(line.comm.map[1].world, 1);
    EXPECT_EQ(line.comm.map[1].local, 4);
    ASSERT_EQ(line.comm.remote.size(), 2u);
    EXPECT_EQ(line.comm.remote[0].world, 8);
    EXPECT_EQ(line.comm.remote[0].local, 1);
    EXPECT_EQ(line.comm.remote[0].length, 2);
    EXPECT_EQ(line.comm.remote[1].world, 12);
}

TEST(InfoLineParser, ReadsStridedRunsInBothDirections) {
    const InfoLine line =
        parse("Comm map='3..15:4->0..3;1->4;40..20:-10->5..7;9..9:7->8;' id=3 name='column'");
    ASSERT_EQ(line.kind, InfoLine::Kind::Comm);
    ASSERT_EQ(line.comm.map.size(), 4u);
    const std::vector<std::vector<int64_t>> expected = {
        {3, 0, 4, 4}, {1, 4, 1, 1}, {40, 5, 3, -10}, {9, 8, 1, 7}};
    for (size_t i = 0; i < expected.size(); ++i) {
        const RankRun &run = line.comm.map[i];
        EXPECT_EQ((std::vector<int64_t>{run.world, run.local, run.length, run.stride}), expected[i])
            << "entry " << i;
    }
    EXPECT_EQ(line.comm.map[0].lastWorld(), 15);
    EXPECT_EQ(line.comm.map[2].lastWorld(), 20);
    EXPECT_EQ(line.comm.map[2].highestWorld(), 40);
    EXPECT_EQ(line.comm.map[2].lowestWorld(), 20);
}

TEST(InfoLineParser, NamesWhatIsWrongWithAStridedRun) {
    EXPECT_EQ(errorOf("Comm map='0..8:0->0..4;' id=1 name=''"),
              "Comm line: map entry '0..8:0->0..4': the world stride is 0");
    EXPECT_EQ(errorOf("Comm map='0..9:4->0..2;' id=1 name=''"),
              "Comm line: map entry '0..9:4->0..2': world rank 9 is not reached from 0 in steps "
              "of 4");
    EXPECT_EQ(errorOf("Comm map='9..1:4->0..2;' id=1 name=''"),
              "Comm line: map entry '9..1:4->0..2': world rank 1 is not reached from 9 in steps "
              "of 4");
    EXPECT_EQ(errorOf("Comm map='1..9:-4->0..2;' id=1 name=''"),
              "Comm line: map entry '1..9:-4->0..2': world rank 9 is not reached from 1 in steps "
              "of -4");
    EXPECT_EQ(errorOf("Comm map='0..8:4->0..3;' id=1 name=''"),
              "Comm line: map entry '0..8:4->0..3': the two ranges differ in length");
    EXPECT_EQ(errorOf("Comm map='0..8:2147483648->0;' id=1 name=''"),
              "Comm line: map entry '0..8:2147483648->0': '2147483648' is not a world stride");
    EXPECT_EQ(errorOf("Comm map='0..8:99999999999999999999->0;' id=1 name=''"),
              "Comm line: map entry '0..8:99999999999999999999->0': '99999999999999999999' is "
              "not a world stride");
    EXPECT_EQ(errorOf("Comm map='0..2147483648:2->0..1073741824;' id=1 name=''"),
              "Comm line: map entry '0..2147483648:2->0..1073741824': '2147483648' is not a "
              "world rank");
    EXPECT_EQ(errorOf("Comm map='0..8:->0..4;' id=1 name=''"),
              "Comm line: map entry '0..8:->0..4': '' is not a world stride");
    EXPECT_EQ(errorOf("Comm map='0..8:2x->0..4;' id=1 name=''"),
              "Comm line: map entry '0..8:2x->0..4': '2x' is not a world stride");
    EXPECT_EQ(errorOf("Comm map='4:2->0;' id=1 name=''"),
              "Comm line: map entry '4:2->0': a stride needs a world range "
              "'first..last:stride'");
    EXPECT_EQ(errorOf("Comm map='0..4->0..4:2;' id=1 name=''"),
              "Comm line: map entry '0..4->0..4:2': '4:2' is not a local rank");
}

TEST(InfoLineParser, ReadsTypeLines) {
    InfoLine line = parse(
        "Type id='-1946157050' combiner='MPI_COMBINER_STRUCT' name='' integers='2;4;5;' "
        "addresses='6;7;' types='1275069445;1275070475;'");
    ASSERT_EQ(line.kind, InfoLine::Kind::Type);
    EXPECT_EQ(line.type.id, -1946157050);
    EXPECT_EQ(line.type.combiner, "STRUCT");
    EXPECT_EQ(line.type.integers, (std::vector<int64_t>{2, 4, 5}));
    EXPECT_EQ(line.type.addresses, (std::vector<int64_t>{6, 7}));
    EXPECT_EQ(line.type.types, (std::vector<int64_t>{1275069445, 1275070475}));

    line = parse("Type id='1275069445' combiner='MPI_COMBINER_NAMED' name='MPI_INT'");
    EXPECT_EQ(line.type.combiner, "NAMED");
    EXPECT_EQ(line.type.name, "MPI_INT");
    EXPECT_TRUE(line.type.integers.empty());
    EXPECT_TRUE(line.type.types.empty());
}

// Predefined types carry size, extent and, with holes, blocks;
// older lines have none of them.
TEST(InfoLineParser, ReadsSizesAndBlocksOfPredefinedTypes) {
    InfoLine line = parse(
        "Type id='53' combiner='MPI_COMBINER_NAMED' name='MPI_SHORT_INT' "
        "size='6' extent='8' blocks='0:2;4:4;'");
    ASSERT_EQ(line.kind, InfoLine::Kind::Type);
    EXPECT_EQ(line.type.size, 6);
    EXPECT_EQ(line.type.extent, 8);
    EXPECT_EQ(line.type.blocks, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {4, 4}}));
    line = parse("Type id='39' combiner='MPI_COMBINER_NAMED' name='MPI_INT'");
    EXPECT_EQ(line.type.size, -1);
    EXPECT_EQ(line.type.extent, -1);
    EXPECT_TRUE(line.type.blocks.empty());
    EXPECT_EQ(errorOf("Type id='1' combiner='MPI_COMBINER_NAMED' name='X' size='6' extent='8' "
                      "blocks='0-2;'"),
              "Type line: blocks: '0-2' is not offset:length");
    EXPECT_EQ(errorOf("Type id='1' combiner='MPI_COMBINER_NAMED' name='X' size='6' extent='8' "
                      "blocks='0:0;'"),
              "Type line: blocks: '0:0' is not a block of data");
    EXPECT_EQ(errorOf("Type id='1' combiner='MPI_COMBINER_NAMED' name='X' size='-6' extent='8'"),
              "Type line: negative size or extent");
}

TEST(InfoLineParser, IgnoresEmptyAndUnknownLines) {
    EXPECT_EQ(parse("").kind, InfoLine::Kind::Ignored);
    EXPECT_EQ(parse("Request id=3 kind='x'").kind, InfoLine::Kind::Ignored);
    EXPECT_EQ(parse("Comm map='0->0;' id=0 name='WORLD'\r").kind, InfoLine::Kind::Comm);
}

// docs/format/info.md, "Window lines": the wrapper's window lines.
TEST(InfoLineParser, IgnoresWinLines) {
    EXPECT_EQ(parse("Win id=0 cid=2 size=64 dispUnit=4 kind='create'").kind,
              InfoLine::Kind::Ignored);
    EXPECT_EQ(parse("Win id=3 cid=0 size=0 dispUnit=1 kind='dynamic'").kind,
              InfoLine::Kind::Ignored);
}

TEST(InfoLineParser, NamesWhatIsWrong) {
    EXPECT_EQ(errorOf("Comm map='0->0;3->;' id=1 name=''"),
              "Comm line: map entry '3->' has no local rank");
    EXPECT_EQ(errorOf("Comm map='->0;' id=1 name=''"),
              "Comm line: map entry '->0' has no world rank");
    EXPECT_EQ(errorOf("Comm map='0;' id=1 name=''"), "Comm line: map entry '0' has no '->'");
    EXPECT_EQ(errorOf("Comm map='0..9223372036854775807->0..9223372036854775807;' id=1 name=''"),
              "Comm line: map entry '0..9223372036854775807->0..9223372036854775807': "
              "'9223372036854775807' is not a world rank");
    EXPECT_EQ(errorOf("Comm map='0..3->0..2;' id=1 name=''"),
              "Comm line: map entry '0..3->0..2': the two ranges differ in length");
    EXPECT_EQ(errorOf("Comm map='3..0->0..3;' id=1 name=''"),
              "Comm line: map entry '3..0->0..3': the world range runs backwards");
    EXPECT_EQ(errorOf("Comm map='0->x;' id=1 name=''"),
              "Comm line: map entry '0->x': 'x' is not a local rank");
    EXPECT_EQ(errorOf("Comm map='0->0;1->1;2-"),
              "Comm line: the value of 'map' has no closing quote (truncated line?)");
    EXPECT_EQ(errorOf("Comm map='0->0;' id=1"), "Comm line: no 'name' attribute");
    EXPECT_EQ(errorOf("File name=\"x\" Size=12x id=0"), "File line: Size: '12x' is not an integer");
    EXPECT_EQ(errorOf("File name=\"x\" Size=1 id=0 id=1"), "File line: 'id' appears twice");
    EXPECT_EQ(errorOf("File name=\"a &bogus; b\" Size=1 id=0"),
              "File line: name: unknown escape '&bogus;' in 'a &bogus; b'");
    EXPECT_EQ(errorOf("Type id='5' combiner='VECTOR' name=''"),
              "Type line: combiner 'VECTOR' is not MPI_COMBINER_<X>");
    EXPECT_EQ(errorOf("Type id='5' combiner='MPI_COMBINER_VECTOR' name='' integers='1;;2;'"),
              "Type line: integers: '' is not an integer");
    EXPECT_EQ(errorOf("Mpi library='x' order_c=0"), "Mpi line: no 'order_fortran' attribute");
    EXPECT_EQ(errorOf("\x01\x02garbage here"),
              "garbled line: '\x01\x02garbage' is not a line kind");
    EXPECT_EQ(errorOf("File name"), "File line: 'name' is not of the form key=value");
}

}  // namespace
}  // namespace hdtrace::merger
