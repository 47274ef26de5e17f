// A merge on several threads (MergeOptions::jobs) writes the project of a
// merge on one thread byte for byte, with the same warnings in the same
// order and the same error: on a run large enough for many batches of
// traces and ranks, with every communicator kind, shared and per-rank
// types, and bad lines on some ranks.
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

constexpr int kRanks = 640;  // 10 batches of traces, 3 of ranks
constexpr int kRow = 16;

std::string range(int first, int count) {
    return count == 1 ? std::to_string(first)
                      : std::to_string(first) + ".." + std::to_string(first + count - 1);
}

std::string mapRun(int world, int local, int count) {
    return range(world, count) + "->" + range(local, count) + ";";
}

// A rank's .info: WORLD and SELF, its row, its column (one entry per member),
// an intercommunicator with the neighbouring row, a duplicate of WORLD;
// predefined types (one as a byte layout), types the ranks share and one
// that differs per rank; a shared file and one of its own.
std::string infoOf(int rank) {
    const int row = rank / kRow * kRow;
    const int column = rank % kRow;
    const int neighbour = (rank / kRow ^ 1) * kRow;
    std::string info = standardHeader(rank, kRanks);
    info += "Comm map='" + mapRun(row, 0, kRow) + "' id=2 name='row'\n";
    std::string columnMap;
    for (int k = 0; k < kRanks / kRow; ++k)
        columnMap += mapRun(column + kRow * k, k, 1);
    info += "Comm map='" + columnMap + "' id=3 name='column'\n";
    info += "Comm map='" + mapRun(row, 0, kRow) + "' remote='" + mapRun(neighbour, 0, kRow) +
            "' id=4 name='rows'\n";
    info += "Comm map='" + mapRun(0, 0, kRanks) + "' id=5 name=''\n";
    // What MPI says of the derived types: MPI_SHORT_INT has size 6, extent 8.
    const int second = 1 + rank % 7;  // the second block's length
    const int hindexedExtent = std::max(8, 64 * rank + 8 * second);
    info += "File name=\"/shared &amp; output\" Size=0 id=0\n";
    info +=
        "File name=\"/rank-" + std::to_string(rank) + "\" Size=" + std::to_string(rank) + " id=1\n";
    info +=
        "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n"
        "Type id='3' combiner='MPI_COMBINER_NAMED' name='MPI_BYTE' size='1' extent='1'\n"
        "Type id='2' combiner='MPI_COMBINER_NAMED' name='MPI_SHORT_INT' size='6' extent='8' "
        "blocks='0:2;4:4;'\n"
        "Type id='100' combiner='MPI_COMBINER_VECTOR' name='' integers='4;1;8;' addresses='' "
        "types='6;' size='16' lb='0' extent='100'\n"
        "Type id='101' combiner='MPI_COMBINER_HINDEXED' name='mine' integers='2;1;" +
        std::to_string(second) + ";' addresses='0;" + std::to_string(64 * rank) +
        ";' types='2;' size='" + std::to_string(6 * (1 + second)) + "' lb='0' extent='" +
        std::to_string(hindexedExtent) +
        "'\n"
        "Type id='102' combiner='MPI_COMBINER_STRUCT' name='' integers='2;1;1;' "
        "addresses='0;16;' types='100;101;' size='" +
        std::to_string(16 + 6 * (1 + second)) + "' lb='0' extent='" +
        std::to_string(std::max(100, 16 + hindexedExtent)) + "'\n";
    return info;
}

struct Outcome {
    bool merged = false;
    std::string error;
    std::string project;
    std::vector<std::string> warnings;
    size_t ranks = 0, communicators = 0, datatypes = 0;
};

Outcome mergeWith(const RunDirectory &run, unsigned jobs, bool force) {
    Outcome outcome;
    MergeOptions options;
    options.inputs = {run.path()};
    options.force = force;
    options.jobs = jobs;
    try {
        const MergeResult result = merge(options);
        outcome.merged = true;
        outcome.warnings = result.warnings;
        outcome.ranks = result.rankCount;
        outcome.communicators = result.communicatorCount;
        outcome.datatypes = result.datatypeCount;
        std::ifstream file(result.outputPath, std::ios::binary);
        std::ostringstream bytes;
        bytes << file.rdbuf();
        outcome.project = bytes.str();
        std::remove(result.outputPath.c_str());
    } catch (const MergeError &error) {
        outcome.error = error.what();
    }
    return outcome;
}

void writeRun(const RunDirectory &run, bool withBadLines) {
    for (int rank = 0; rank < kRanks; ++rank) {
        std::string info = infoOf(rank);
        if (withBadLines && rank == 70) info += "Comm map='0->0;' id=9 name='x\n";  // unterminated
        if (withBadLines && rank == 300)
            info += "Type id='103' combiner='MPI_COMBINER_DUP' name='' types='999;'\n";
        if (withBadLines && rank == 520)
            info += "Type id='104' combiner='MPI_COMBINER_NAMED' name='MPI_REAL16'\n";
        run.addTrace("app", "node" + std::to_string(rank / 64), rank, 0, info);
        // Every 32nd rank has a second thread repeating part of its lines.
        if (rank % 32 == 0)
            run.addTrace("app", "node" + std::to_string(rank / 64), rank, 1,
                         standardHeader(rank, kRanks));
    }
}

TEST(ParallelMerge, ManyThreadsWriteTheProjectOfOne) {
    RunDirectory run;
    writeRun(run, false);
    const Outcome serial = mergeWith(run, 1, false);
    ASSERT_TRUE(serial.merged) << serial.error;
    // What the run holds: WORLD, 640 SELF, 40 rows, 16 columns, 20 pairs of
    // rows, the duplicate of WORLD.
    EXPECT_EQ(serial.ranks, size_t(kRanks));
    EXPECT_EQ(serial.communicators, size_t(1 + kRanks + 40 + 16 + 20 + 1));
    for (const unsigned jobs : {2u, 3u, 8u}) {
        const Outcome parallel = mergeWith(run, jobs, false);
        ASSERT_TRUE(parallel.merged) << parallel.error;
        EXPECT_TRUE(parallel.project == serial.project) << jobs << " jobs: the projects differ";
        EXPECT_EQ(parallel.warnings, serial.warnings) << jobs << " jobs";
    }
    // The project is what the lines say, e.g. rank 129's own HINDEXED (in
    // the tools' form: a STRUCT of its blocks).
    const std::string path = run.file("app.proj");
    std::ofstream(path, std::ios::binary) << serial.project;
    ProjectXml project(path);
    EXPECT_EQ(project.elements("/Application/Datatypes/Rank").size(), size_t(kRanks));
    const auto blocks =
        project.elements("/Application/Datatypes/Rank[@name='129']/STRUCT[@id='101']/Type");
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks[1].at("blocklen"), std::to_string(1 + 129 % 7));
    EXPECT_EQ(blocks[1].at("displacement"), std::to_string(64 * 129));
    const auto column =
        project.elements("/Application/CommunicatorList/Communicator[@name='column #2']/Rank");
    ASSERT_EQ(column.size(), size_t(kRanks / kRow));
    EXPECT_EQ(column[3].at("global"), std::to_string(1 + 3 * kRow));
    EXPECT_EQ(column[3].at("cid"), "3");
}

TEST(ParallelMerge, ManyThreadsGiveTheMessagesOfOne) {
    RunDirectory run;
    writeRun(run, true);
    const Outcome strictSerial = mergeWith(run, 1, false);
    ASSERT_FALSE(strictSerial.merged);
    EXPECT_EQ(strictSerial.error, run.file("app_node1_70_0.info") +
                                      ":16: Comm line: the value of 'name' has no closing "
                                      "quote (truncated line?)");
    const Outcome forcedSerial = mergeWith(run, 1, true);
    ASSERT_TRUE(forcedSerial.merged) << forcedSerial.error;
    ASSERT_EQ(forcedSerial.warnings.size(), 3u);
    EXPECT_EQ(forcedSerial.warnings[0].rfind(run.file("app_node1_70_0.info") + ":16: ", 0), 0u);
    EXPECT_EQ(forcedSerial.warnings[1].rfind(run.file("app_node4_300_0.info") + ":", 0), 0u);
    EXPECT_EQ(forcedSerial.warnings[2].rfind(run.file("app_node8_520_0.info") + ":", 0), 0u);
    for (const unsigned jobs : {2u, 5u}) {
        const Outcome strict = mergeWith(run, jobs, false);
        EXPECT_FALSE(strict.merged);
        EXPECT_EQ(strict.error, strictSerial.error) << jobs << " jobs";
        const Outcome forced = mergeWith(run, jobs, true);
        ASSERT_TRUE(forced.merged) << forced.error;
        EXPECT_TRUE(forced.project == forcedSerial.project) << jobs << " jobs: the projects differ";
        EXPECT_EQ(forced.warnings, forcedSerial.warnings) << jobs << " jobs";
    }
    EXPECT_EQ(run.names().size(), size_t(2 * (kRanks + kRanks / 32)));  // no project left
}

}  // namespace
}  // namespace hdtrace::merger::testing
