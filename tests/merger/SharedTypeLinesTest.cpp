// Type lines that several ranks write with the same text: the merger forms
// such a type once and reuses it, so these tests check that each rank still
// gets the elements of its own context (the figures of the types it builds
// on, the ids it has handed out) and its own messages, with its own file and
// line.
#include <algorithm>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

const std::string kPredefined =
    "Type id='1' combiner='MPI_COMBINER_NAMED' name='MPI_CHAR' size='1' extent='1'\n"
    "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n";
// Type 7 is 4 bytes of data on every rank, with an extent of 4 on some
// (an int) and of 10 on others (2 chars at 0 and 2 at 8), both forms the
// tools read with MPI's extent, without a marker.
const std::string kSevenOfExtentFour =
    "Type id='7' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='1;' addresses='' "
    "types='6;' size='4' lb='0' extent='4'\n";
const std::string kSevenOfExtentTen =
    "Type id='7' combiner='MPI_COMBINER_STRUCT' name='' integers='2;2;2;' addresses='0;8;' "
    "types='1;1;' size='4' lb='0' extent='10'\n";
// The line all ranks share: type 7 resized to an extent of 10, MPI's
// figures on every rank since a resize sets lb and extent.
const std::string kShared =
    "Type id='100' combiner='MPI_COMBINER_RESIZED' name='' integers='' addresses='0;10;' "
    "types='7;' size='4' lb='0' extent='10'\n";

std::vector<Attributes> typeOfRank(const ProjectXml &project, int rank, int id) {
    return project.elements("/Application/Datatypes/Rank[@name='" + std::to_string(rank) +
                            "']/*[@id='" + std::to_string(id) + "']");
}

std::vector<Attributes> childrenOf(const ProjectXml &project, int rank, int id) {
    return project.elements("/Application/Datatypes/Rank[@name='" + std::to_string(rank) +
                            "']/*[@id='" + std::to_string(id) + "']/Type");
}

TEST(SharedTypeLines, EachRankGetsTheFormOfItsOwnReferencedTypesAndIds) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 standardHeader(0, 4) + kPredefined + kSevenOfExtentFour + kShared);
    run.addTrace("app", "h", 1, 0,
                 standardHeader(1, 4) + kPredefined + kSevenOfExtentTen + kShared);
    // Rank 2 is rank 0 again; rank 3 also defines type 200, so the ids it
    // adds start above 200.
    run.addTrace("app", "h", 2, 0,
                 standardHeader(2, 4) + kPredefined + kSevenOfExtentFour + kShared);
    run.addTrace("app", "h", 3, 0,
                 standardHeader(3, 4) + kPredefined + kSevenOfExtentFour + kShared +
                     "Type id='200' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='2;' "
                     "addresses='' types='6;' size='8' lb='0' extent='8'\n");
    const MergeResult result = mergeDirectory(run);
    EXPECT_TRUE(result.warnings.empty());
    ProjectXml project(result.outputPath);

    // Where type 7 ends at 4, the tools need an MPI_UB marker at 10 to give
    // type 100 MPI's extent: a NAMED MPI_UB with the first id above the
    // rank's, and a last child of the STRUCT pointing at it.
    for (const int rank : {0, 2, 3}) {
        const int marker = rank == 3 ? 201 : 101;
        const auto named = typeOfRank(project, rank, marker);
        ASSERT_EQ(named.size(), 1u) << "rank " << rank;
        EXPECT_EQ(named[0].at("name"), "MPI_UB");
        EXPECT_EQ(named[0].at("partOf"), "*");
        const auto resized = typeOfRank(project, rank, 100);
        ASSERT_EQ(resized.size(), 1u) << "rank " << rank;
        EXPECT_EQ(resized[0].at("count"), "2") << "rank " << rank;
        const auto children = childrenOf(project, rank, 100);
        ASSERT_EQ(children.size(), 2u) << "rank " << rank;
        EXPECT_EQ(children[0].at("id"), "7");
        EXPECT_EQ(children[0].at("displacement"), "0");
        EXPECT_EQ(children[1].at("id"), std::to_string(marker));
        EXPECT_EQ(children[1].at("displacement"), "10");
    }
    // Where type 7 already ends at 10, type 100 is type 7 at 0, no marker.
    EXPECT_TRUE(typeOfRank(project, 1, 101).empty());
    const auto resized = typeOfRank(project, 1, 100);
    ASSERT_EQ(resized.size(), 1u);
    EXPECT_EQ(resized[0].at("count"), "1");
    const auto children = childrenOf(project, 1, 100);
    ASSERT_EQ(children.size(), 1u);
    EXPECT_EQ(children[0].at("id"), "7");
    EXPECT_EQ(children[0].at("displacement"), "0");
}

TEST(SharedTypeLines, ALineThatDoesNotDecodeIsReportedForEachRankAtItsLine) {
    const std::string bad =
        "Type id='400' combiner='MPI_COMBINER_SUBARRAY' name='' "
        "integers='1;4;2;1;7;' addresses='' types='6;' size='8' lb='0' "
        "extent='16'\n";
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + kPredefined + bad);
    // On rank 1 the line comes one later.
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + kPredefined + kSevenOfExtentFour + bad);
    const MergeResult result = mergeDirectory(run, true);
    const std::string message =
        ": Type line: type id=400: order 7 is neither MPI_ORDER_C (0) "
        "nor MPI_ORDER_FORTRAN (1) of Open MPI v4.1.4";
    ASSERT_EQ(result.warnings.size(), 2u);
    EXPECT_NE(result.warnings[0].find("app_h_0_0.info:6" + message), std::string::npos)
        << result.warnings[0];
    EXPECT_NE(result.warnings[1].find("app_h_1_0.info:7" + message), std::string::npos)
        << result.warnings[1];
    ProjectXml project(result.outputPath);
    EXPECT_TRUE(typeOfRank(project, 0, 400).empty());
    EXPECT_TRUE(typeOfRank(project, 1, 400).empty());
}

TEST(SharedTypeLines, AFailedCheckIsReportedForEachRankAtItsLine) {
    // A line of an older trace, without figures: its HVECTOR element is one
    // the tools read as a placeholder, which the check refuses on each rank.
    const std::string older =
        "Type id='401' combiner='MPI_COMBINER_HVECTOR' name='' "
        "integers='2;1;' addresses='16;' types='6;'\n";
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + kPredefined + older);
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + kPredefined + kSevenOfExtentFour + older);
    const MergeError refused = mergeError(run);
    const std::string what = refused.what();
    const std::string failure =
        "<HVECTOR id='401'>: the PIOsim tools read this element as a "
        "placeholder of size 0";
    EXPECT_NE(what.find("app_h_0_0.info:6: rank 0: " + failure), std::string::npos) << what;
    EXPECT_NE(what.find("app_h_1_0.info:7: rank 1: " + failure), std::string::npos) << what;
    EXPECT_FALSE(run.exists("app.proj"));

    const MergeResult forced = mergeDirectory(run, true);
    const auto count = std::count_if(
        forced.warnings.begin(), forced.warnings.end(),
        [&](const std::string &warning) { return warning.find(failure) != std::string::npos; });
    EXPECT_EQ(count, 2);
    ProjectXml project(forced.outputPath);
    for (const int rank : {0, 1}) {
        const auto hvector = typeOfRank(project, rank, 401);
        ASSERT_EQ(hvector.size(), 1u) << "rank " << rank;
        EXPECT_EQ(hvector[0].at("stride"), "16");
    }
}

TEST(SharedTypeLines, LinesOfOneRankEachKeepTheirOwnFormAndMessage) {
    // Lines no other rank has are formed in room reused from rank to rank:
    // ranks with fewer and more of them than the one before, and a line that
    // does not decode where the rank before had one that does, and back.
    const std::vector<int> typesOfRank = {3, 6, 2, 5};
    const auto contiguous = [](int rank, int i) {
        const int count = 100 * (rank + 1) + i;
        return "Type id='" + std::to_string(10 + i) +
               "' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='" + std::to_string(count) +
               ";' addresses='' types='6;' size='" + std::to_string(4 * count) +
               "' lb='0' extent='" + std::to_string(4 * count) + "'\n";
    };
    const auto undecodable = [](int i) {
        return "Type id='" + std::to_string(10 + i) +
               "' combiner='MPI_COMBINER_VECTOR' name='' integers='1;1;' addresses='' "
               "types='6;' size='4' lb='0' extent='4'\n";
    };
    const auto isBad = [](int rank, int i) { return (rank + i) % 3 == 1; };
    RunDirectory run;
    for (int rank = 0; rank < 4; ++rank) {
        std::string lines = standardHeader(rank, 4) + kPredefined;
        for (int i = 0; i < typesOfRank[size_t(rank)]; ++i)
            lines += isBad(rank, i) ? undecodable(i) : contiguous(rank, i);
        run.addTrace("app", "h", rank, 0, lines);
    }
    const MergeResult result = mergeDirectory(run, true);
    ProjectXml project(result.outputPath);
    size_t warning = 0;
    for (int rank = 0; rank < 4; ++rank) {
        for (int i = 0; i < typesOfRank[size_t(rank)]; ++i) {
            const auto type = typeOfRank(project, rank, 10 + i);
            if (isBad(rank, i)) {
                EXPECT_TRUE(type.empty()) << rank << " " << i;
                ASSERT_LT(warning, result.warnings.size());
                // The header and the two predefined types come first.
                const std::string place = "app_h_" + std::to_string(rank) +
                                          "_0.info:" + std::to_string(6 + i) +
                                          ": Type line: type id=" + std::to_string(10 + i) +
                                          ": MPI_COMBINER_VECTOR here needs 3 integers";
                EXPECT_NE(result.warnings[warning].find(place), std::string::npos)
                    << result.warnings[warning];
                ++warning;
                continue;
            }
            ASSERT_EQ(type.size(), 1u) << rank << " " << i;
            const int count = 100 * (rank + 1) + i;
            EXPECT_EQ(type[0].at("count"), std::to_string(count)) << rank << " " << i;
            EXPECT_EQ(type[0].at("mpiSize"), std::to_string(4 * count)) << rank << " " << i;
            EXPECT_EQ(type[0].at("integers"), std::to_string(count) + ";") << rank << " " << i;
        }
    }
    EXPECT_EQ(warning, result.warnings.size());
}

}  // namespace
}  // namespace hdtrace::merger::testing
