// Every .info line the wrapper formats is a line of the dialect's definition:
// its fields in the defined order, with the defined quotes, split exactly
// (one blank before each field) by the line codec the readers use.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/InfoLine.hpp>

#include "InfoLines.hpp"

namespace hdtracempi {
namespace {

void expectDefined(const std::string &line) {
    ASSERT_FALSE(line.empty());
    ASSERT_EQ(line.back(), '\n') << line;
    hdtrace::InfoLineFields fields;
    ASSERT_TRUE(fields.split(std::string_view(line).substr(0, line.size() - 1)))
        << fields.problem() << ": " << line;
    EXPECT_TRUE(fields.conforms()) << fields.problem() << ": " << line;
}

TEST(InfoLines, FileCommAndWinLinesAreTheDefinitions) {
    expectDefined(fileLine("out 'x' \"y\".dat", 4096, 2));
    const std::vector<int> local = {0, 1, 2, 5}, remote = {3, 4};
    expectDefined(commLine(3, "a name", local, nullptr));
    expectDefined(commLine(4, "", local, &remote));
    expectDefined(winLine(1, 0, 4096, 8, "allocate"));
    EXPECT_EQ(winLine(1, 0, 4096, 8, "allocate"),
              "Win id=1 cid=0 size=4096 dispUnit=8 kind='allocate'\n");
    EXPECT_EQ(commLine(4, "", local, &remote),
              "Comm map='0..2->0..2;5->3;' remote='3..4->0..1;' id=4 name=''\n");
}

TEST(InfoLines, RunsWithAnotherWorldStepAreStridedFromThreeMembersOn) {
    // A column of a 4-wide grid, then the same backwards.
    const std::vector<int> column = {1, 5, 9, 13}, backwards = {13, 9, 5, 1};
    EXPECT_EQ(commLine(5, "column", column, nullptr),
              "Comm map='1..13:4->0..3;' id=5 name='column'\n");
    EXPECT_EQ(commLine(5, "", backwards, nullptr), "Comm map='13..1:-4->0..3;' id=5 name=''\n");
    expectDefined(commLine(5, "column", column, nullptr));
    // Two members a step apart stay entries; stride-1 runs keep their form,
    // descending neighbours become a run of step -1.
    const std::vector<int> mixed = {0, 7, 8, 9, 20, 30, 40, 41, 3, 2, 1};
    EXPECT_EQ(commLine(6, "", mixed, nullptr),
              "Comm map='0->0;7..9->1..3;20..40:10->4..6;41->7;3..1:-1->8..10;' id=6 name=''\n");
    const std::vector<int> pair = {4, 8};
    EXPECT_EQ(commLine(7, "", pair, &column),
              "Comm map='4->0;8->1;' remote='1..13:4->0..3;' id=7 name=''\n");
}

// A derived type's line in the registry's two steps.
std::string derivedTypeLine(int64_t id, std::string_view combiner, std::string_view name,
                            const std::vector<int64_t> &integers,
                            const std::vector<MPI_Aint> &addresses,
                            const std::vector<int64_t> &typeIds, const TypeFigures &figures) {
    std::string arguments, line;
    formatTypeArguments(arguments, integers.data(), integers.size(), addresses.data(),
                        addresses.size());
    formatDerivedTypeLine(line, id, combiner, name, arguments, typeIds.data(), typeIds.size(),
                          figures);
    return line;
}

TEST(InfoLines, NamedAndDerivedTypeLinesAreTheDefinitions) {
    expectDefined(namedTypeLine(6, "MPI_INT", 4, 4, {}));
    expectDefined(namedTypeLine(8, "MPI_SHORT_INT", 6, 8, {{0, 2}, {4, 4}}));
    EXPECT_EQ(namedTypeLine(8, "MPI_SHORT_INT", 6, 8, {{0, 2}, {4, 4}}),
              "Type id='8' combiner='MPI_COMBINER_NAMED' name='MPI_SHORT_INT' size='6' "
              "extent='8' blocks='0:2;4:4;'\n");
    TypeFigures figures;
    expectDefined(
        derivedTypeLine(16777216, "MPI_COMBINER_VECTOR", "v", {2, 1, 3}, {}, {6}, figures));
    figures.known = true;
    figures.size = 8;
    figures.lowerBound = -4;
    figures.extent = 16;
    const std::string line =
        derivedTypeLine(16777217, "MPI_COMBINER_HVECTOR", "", {2, 1}, {8}, {6}, figures);
    expectDefined(line);
    EXPECT_EQ(line,
              "Type id='16777217' combiner='MPI_COMBINER_HVECTOR' name='' integers='2;1;' "
              "addresses='8;' types='6;' size='8' lb='-4' extent='16'\n");
}

}  // namespace
}  // namespace hdtracempi
