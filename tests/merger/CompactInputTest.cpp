// The merger over a run traced in compact form: it finds each rank's trace
// as .ctrc as well as .trc, by directory, program prefix or file name.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

// Rank rank's .info and, instead of the .trc, a .ctrc (the merger reads
// neither trace: it needs to know it is there).
void addCompactRank(const RunDirectory &run, int rank, int ranks) {
    run.addTrace("app", "h", rank, 0, standardHeader(rank, ranks), false);
    run.write("app_h_" + std::to_string(rank) + "_0.ctrc", "compact bytes");
}

std::vector<std::string> rankNodes(const std::string &projectPath) {
    ProjectXml project(projectPath);
    std::vector<std::string> names;
    for (const Attributes &rank : project.elements("/Application/Topology/Node/Node"))
        names.push_back(rank.at("name"));
    return names;
}

TEST(CompactInput, ADirectoryOfCompactTracesMerges) {
    RunDirectory run;
    addCompactRank(run, 0, 3);
    addCompactRank(run, 1, 3);
    // One rank in XML: a run may mix them (a trace converted by hand).
    run.addTrace("app", "h", 2, 0, standardHeader(2, 3));
    const MergeResult result = mergeDirectory(run);
    EXPECT_EQ(result.traceCount, 3u);
    EXPECT_EQ(result.rankCount, 3u);
    EXPECT_EQ(rankNodes(result.outputPath), (std::vector<std::string>{"0", "1", "2"}));
}

TEST(CompactInput, ACompactTraceAsInputNamesItsRank) {
    RunDirectory run;
    addCompactRank(run, 0, 2);
    addCompactRank(run, 1, 2);
    for (const std::vector<std::string> &inputs :
         {std::vector<std::string>{run.file("app_h_0_0.ctrc"), run.file("app_h_1_0.ctrc")},
          std::vector<std::string>{run.file("app_h_0_0"), run.file("app_h_1_0")},
          std::vector<std::string>{run.file("app")}}) {
        MergeOptions options;
        options.inputs = inputs;
        const MergeResult result = merge(options);
        EXPECT_EQ(result.traceCount, 2u) << inputs.front();
        EXPECT_EQ(rankNodes(result.outputPath), (std::vector<std::string>{"0", "1"}));
    }
}

TEST(CompactInput, ALayersTraceBesideARankIsNoTraceOfItsOwn) {
    RunDirectory run;
    for (int rank = 0; rank < 2; ++rank) {
        run.addTrace("app", "h", rank, 0, standardHeader(rank, 2));
        run.write("app_h_" + std::to_string(rank) + "_0.hdf5.trc", "<Program/>");
        run.write("app_h_" + std::to_string(rank) + "_0.hdf5.ctrc", "compact bytes");
    }
    for (const std::vector<std::string> &inputs :
         {std::vector<std::string>{run.path()}, std::vector<std::string>{run.file("app")}}) {
        MergeOptions options;
        options.inputs = inputs;
        const MergeResult result = merge(options);
        EXPECT_EQ(result.traceCount, 2u) << inputs.front();
        EXPECT_EQ(result.rankCount, 2u);
        EXPECT_EQ(rankNodes(result.outputPath), (std::vector<std::string>{"0", "1"}));
    }
}

TEST(CompactInput, BothFormsOfOneTraceAreOneTrace) {
    RunDirectory run;
    addCompactRank(run, 0, 1);
    run.write("app_h_0_0.trc",
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n"
              "</Program>\n");
    const MergeResult result = mergeDirectory(run);
    EXPECT_EQ(result.traceCount, 1u);
    EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
}

}  // namespace
}  // namespace hdtrace::merger::testing
