// Communicator unification across ranks: the CommunicatorList of merged
// hand-written runs, member by member.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

struct Communicator {
    std::string name;
    std::vector<std::string> members;  // "global:local:cid" ("-" for a missing cid)
};

std::vector<Communicator> communicatorsOf(const std::string &projectPath) {
    ProjectXml project(projectPath);
    std::vector<Communicator> result;
    const auto communicators = project.elements("/Application/CommunicatorList/Communicator");
    for (size_t i = 0; i < communicators.size(); ++i) {
        Communicator communicator;
        communicator.name = communicators[i].at("name");
        for (const Attributes &rank :
             project.elements("/Application/CommunicatorList/Communicator[" +
                              std::to_string(i + 1) + "]/Rank")) {
            const auto cid = rank.find("cid");
            communicator.members.push_back(rank.at("global") + ":" + rank.at("local") + ":" +
                                           (cid == rank.end() ? "-" : cid->second));
        }
        result.push_back(std::move(communicator));
    }
    return result;
}

std::vector<std::string> membersOf(const std::vector<Communicator> &communicators,
                                   const std::string &name) {
    std::vector<std::string> found;
    for (const Communicator &communicator : communicators)
        if (communicator.name == name)
            found.insert(found.end(), communicator.members.begin(), communicator.members.end());
    return found;
}

using Members = std::vector<std::string>;

TEST(Communicators, WorldDupAndSelfAreDistinct) {
    RunDirectory run;
    for (int rank = 0; rank < 3; ++rank)
        run.addTrace("app", "h", rank, 0,
                     standardHeader(rank, 3) + "Comm map='0..2->0..2;' id=2 name='dup'\n");
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    ASSERT_EQ(communicators.size(), 5u);  // WORLD, 3 x SELF, the dup
    EXPECT_EQ(communicators[0].name, "WORLD");
    EXPECT_EQ(communicators[0].members, (Members{"0:0:0", "1:1:0", "2:2:0"}));
    // Each rank's MPI_COMM_SELF is "SELF <rank>" (docs/format/project.md).
    EXPECT_EQ(communicators[1].name, "SELF 0");
    EXPECT_EQ(communicators[1].members, (Members{"0:0:1"}));
    EXPECT_EQ(communicators[2].name, "dup");
    EXPECT_EQ(communicators[2].members, (Members{"0:0:2", "1:1:2", "2:2:2"}));
    EXPECT_EQ(membersOf(communicators, "SELF 1"), (Members{"1:0:1"}));
    EXPECT_EQ(membersOf(communicators, "SELF 2"), (Members{"2:0:1"}));
}

TEST(Communicators, WorldIsNamedWorldWhateverTheLineSays) {
    RunDirectory run;
    for (int rank = 0; rank < 2; ++rank)
        run.addTrace("app", "h", rank, 0, "Comm map='0->0;1->1;' id=0 name='MPI_COMM_WORLD'\n");
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    ASSERT_EQ(communicators.size(), 1u);
    EXPECT_EQ(communicators[0].name, "WORLD");
    EXPECT_EQ(communicators[0].members, (Members{"0:0:0", "1:1:0"}));
}

TEST(Communicators, TwoSplitsWithEqualMemberSetsStayApart) {
    // Two splits by rank / 2: the first keeps the order, the second reverses
    // it (key = -rank). Same member sets; told apart by creation position.
    RunDirectory run;
    for (int rank = 0; rank < 4; ++rank) {
        const int base = rank / 2 * 2;
        const std::string b0 = std::to_string(base), b1 = std::to_string(base + 1);
        run.addTrace("app", "h", rank, 0,
                     standardHeader(rank, 4) + "Comm map='" + b0 + "->0;" + b1 +
                         "->1;' id=2 name=''\nComm map='" + b0 + "->1;" + b1 +
                         "->0;' id=3 name=''\n");
    }
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    ASSERT_EQ(communicators.size(), 9u);  // WORLD, 4 x SELF, 2 x 2 splits
    std::vector<Members> splits;
    for (const Communicator &communicator : communicators)
        if (communicator.name.empty()) splits.push_back(communicator.members);
    EXPECT_EQ(splits,
              (std::vector<Members>{
                  {"0:0:2", "1:1:2"}, {"0:1:3", "1:0:3"}, {"2:0:2", "3:1:2"}, {"2:1:3", "3:0:3"}}));
}

TEST(Communicators, RanksThatNumberTheirCommunicatorsDifferently) {
    // Rank 0 dups SELF first, so the common split is its id 3, rank 1's id 2.
    RunDirectory run;
    run.addTrace(
        "app", "h", 0, 0,
        standardHeader(0, 2) +
            "Comm map='0->0;' id=2 name='selfdup'\nComm map='0..1->0..1;' id=3 name='s'\n");
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + "Comm map='0..1->0..1;' id=2 name='s'\n");
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    EXPECT_EQ(membersOf(communicators, "s"), (Members{"0:0:3", "1:1:2"}));
    EXPECT_EQ(membersOf(communicators, "selfdup"), (Members{"0:0:2"}));
    EXPECT_EQ(membersOf(communicators, "WORLD"), (Members{"0:0:0", "1:1:0"}));
}

TEST(Communicators, AMemberThatNeverNamesItIsListedWithCidMinusOne) {
    RunDirectory run;
    for (int rank = 0; rank < 3; ++rank) {
        std::string info = standardHeader(rank, 3);
        if (rank != 2) info += "Comm map='2->0;0->1;1->2;' id=2 name='partly'\n";
        run.addTrace("app", "h", rank, 0, info);
    }
    const MergeResult result = mergeDirectory(run);
    EXPECT_TRUE(result.warnings.empty());
    EXPECT_EQ(membersOf(communicatorsOf(result.outputPath), "partly"),
              (Members{"0:1:2", "1:2:2", "2:0:-1"}));
}

TEST(Communicators, TheSeedsMapFormAndCompactRunsAgree) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 "Comm map='0->0;1->1;2->2;3->3;' id=0 name='WORLD'\n"
                 "Comm map='3->0;2->1;1->2;0->3;' id=1 name='reversed'\n");
    for (int rank = 1; rank < 4; ++rank)
        run.addTrace("app", "h", rank, 0,
                     "Comm map='0..3->0..3;' id=0 name='WORLD'\n"
                     "Comm map='0->3;1->2;2->1;3->0;' id=1 name='reversed'\n");
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    ASSERT_EQ(communicators.size(), 2u);
    EXPECT_EQ(communicators[0].members, (Members{"0:0:0", "1:1:0", "2:2:0", "3:3:0"}));
    EXPECT_EQ(communicators[1].members, (Members{"0:3:1", "1:2:1", "2:1:1", "3:0:1"}));
}

std::string contentsOf(const std::string &path) {
    std::ifstream file(path, std::ios::binary);
    EXPECT_TRUE(file) << path;
    std::ostringstream contents;
    contents << file.rdbuf();
    return contents.str();
}

// World ranks first, first+step, ... -> local 0, 1, ...: strided or one
// entry per member.
std::string stepMap(int first, int step, int count, bool strided) {
    if (strided)
        return std::to_string(first) + ".." + std::to_string(first + (count - 1) * step) + ":" +
               std::to_string(step) + "->0.." + std::to_string(count - 1) + ";";
    std::string map;
    for (int k = 0; k < count; ++k)
        map += std::to_string(first + k * step) + "->" + std::to_string(k) + ";";
    return map;
}

// A 4 x 3 grid: each rank's column, the column in reverse order, and an
// intercommunicator between its column and the next one.
std::string gridInfo(int rank, bool strided) {
    constexpr int kWidth = 4, kHeight = 3;
    const int column = rank % kWidth;
    const int next = (column + 1) % kWidth;
    const int last = column + kWidth * (kHeight - 1);
    return standardHeader(rank, kWidth * kHeight) + "Comm map='" +
           stepMap(column, kWidth, kHeight, strided) + "' id=2 name='column'\n" + "Comm map='" +
           stepMap(last, -kWidth, kHeight, strided) + "' id=3 name='upwards'\n" + "Comm map='" +
           stepMap(column, kWidth, kHeight, strided) + "' remote='" +
           stepMap(next, kWidth, kHeight, strided) + "' id=4 name='columns'\n";
}

TEST(Communicators, StridedRunsGiveTheProjectOfOneEntryPerMember) {
    RunDirectory strided, entries;
    for (int rank = 0; rank < 12; ++rank) {
        strided.addTrace("app", "h", rank, 0, gridInfo(rank, true));
        entries.addTrace("app", "h", rank, 0, gridInfo(rank, false));
    }
    ASSERT_NE(gridInfo(5, true), gridInfo(5, false));
    const std::string project = contentsOf(mergeDirectory(strided).outputPath);
    EXPECT_EQ(project, contentsOf(mergeDirectory(entries).outputPath));
    const auto communicators = communicatorsOf(strided.file("app.proj"));
    EXPECT_EQ(membersOf(communicators, "column #2"), (Members{"1:0:2", "5:1:2", "9:2:2"}));
    EXPECT_EQ(membersOf(communicators, "upwards #2"), (Members{"1:2:3", "5:1:3", "9:0:3"}));
}

TEST(Communicators, AnIntercommunicatorHasBothGroups) {
    // Groups {0,1} and {2,3}; rank 3 numbers it 3 (it made another one first).
    RunDirectory run;
    for (int rank = 0; rank < 4; ++rank) {
        std::string info = standardHeader(rank, 4);
        const bool low = rank < 2;
        if (rank == 3) info += "Comm map='3->0;' id=2 name='extra'\n";
        info += std::string("Comm map='") + (low ? "0..1->0..1;" : "2..3->0..1;") + "' remote='" +
                (low ? "2..3->0..1;" : "0..1->0..1;") + "' id=" + (rank == 3 ? "3" : "2") +
                " name='inter'\n";
        run.addTrace("app", "h", rank, 0, info);
    }
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    EXPECT_EQ(membersOf(communicators, "inter"), (Members{"0:0:2", "1:1:2", "2:0:2", "3:1:3"}));
}

TEST(Communicators, AnIntercommunicatorIsNotTheIntracommunicatorOfItsMembers) {
    RunDirectory run;
    for (int rank = 0; rank < 2; ++rank)
        run.addTrace("app", "h", rank, 0,
                     standardHeader(rank, 2) + "Comm map='" + std::to_string(rank) +
                         "->0;' remote='" + std::to_string(1 - rank) + "->0;' id=2 name='inter'\n");
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    EXPECT_EQ(membersOf(communicators, "WORLD"), (Members{"0:0:0", "1:1:0"}));
    EXPECT_EQ(membersOf(communicators, "inter"), (Members{"0:0:2", "1:0:2"}));
}

TEST(Communicators, ThreadsOfOneRankShareItsCommunicators) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2));
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + "Comm map='0->1;1->0;' id=2 name='t'\n");
    // Thread 1 of rank 0 repeats WORLD and is the one that created 't'.
    run.addTrace("app", "h", 0, 1,
                 "Comm map='0..1->0..1;' id=0 name='WORLD'\nComm map='0->1;1->0;' id=2 name='t'\n");
    const auto communicators = communicatorsOf(mergeDirectory(run).outputPath);
    ASSERT_EQ(communicators.size(), 4u);
    EXPECT_EQ(membersOf(communicators, "WORLD"), (Members{"0:0:0", "1:1:0"}));
    EXPECT_EQ(membersOf(communicators, "t"), (Members{"0:1:2", "1:0:2"}));
}

TEST(Communicators, AThreadsOtherDefinitionIsReportedAgainstTheFirstLine) {
    // More communicators than a sort keeps in order by chance, each defined
    // by both threads of rank 0, differently: every one is reported at
    // thread 1's line, against thread 0's.
    constexpr int kComms = 40;
    std::string first, second;
    for (int i = 0; i < kComms; ++i) {
        const std::string id = std::to_string(100 - i);  // descending: the sort moves them
        first += "Comm map='0->0;' id=" + id + " name='one'\n";
        second += "Comm map='0->0;1->1;' id=" + id + " name='two'\n";
    }
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + first);
    run.addTrace("app", "h", 0, 1, second);
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2));
    const MergeResult result = mergeDirectory(run, true);
    ASSERT_EQ(result.warnings.size(), size_t(kComms));
    for (int i = 0; i < kComms; ++i) {
        // In id order, ascending.
        const int line = kComms - i;  // of the id in thread 1's file
        const std::string id = std::to_string(100 - kComms + 1 + i);
        EXPECT_EQ(result.warnings[size_t(i)],
                  run.file("app_h_0_1.info") + ":" + std::to_string(line) +
                      ": Comm line: communicator id=" + id + " is defined differently at " +
                      run.file("app_h_0_0.info") + ":" + std::to_string(line + 3) +
                      "; dropped this rank's entry of the communicator")
            << i;
    }
}

TEST(Communicators, AMapThatContradictsAnotherRanksIsAnError) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + "Comm map='0->0;1->1;' id=2 name=''\n");
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + "Comm map='0->1;1->0;' id=2 name=''\n");
    const MergeError error = mergeError(run);
    EXPECT_EQ(error.file(), run.file("app_h_1_0.info"));
    EXPECT_EQ(error.line(), 4u);
    EXPECT_EQ(error.detail(), "Comm line: communicator id=2 contradicts rank 0's map at " +
                                  run.file("app_h_0_0.info") +
                                  ":4: same members and position, different local ranks");
    EXPECT_FALSE(run.exists("app.proj"));
}

TEST(Communicators, ForceDropsTheContradictingEntry) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + "Comm map='0->0;1->1;' id=2 name='c'\n");
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + "Comm map='0->1;1->0;' id=2 name='c'\n");
    const MergeResult result = mergeDirectory(run, true);
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("app_h_1_0.info:4: Comm line: communicator id=2 "
                                      "contradicts"),
              std::string::npos)
        << result.warnings[0];
    EXPECT_NE(result.warnings[0].find("dropped this rank's entry"), std::string::npos);
    EXPECT_EQ(membersOf(communicatorsOf(result.outputPath), "c"), (Members{"0:0:2", "1:1:-1"}));
}

TEST(Communicators, MapsThatCannotBeRightAreErrors) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"Comm map='1->0;' id=2 name=''",
         "Comm line: communicator id=2: the map does not contain this rank (0)"},
        {"Comm map='0->0;5000->1;' id=2 name=''",
         "Comm line: communicator id=2 names world rank 5000, far beyond the highest traced "
         "rank 1"},
        {"Comm map='0->0;1->0;' id=2 name=''",
         "Comm line: communicator id=2: the map gives local rank 0 twice"},
        {"Comm map='0->0;1->2;' id=2 name=''",
         "Comm line: communicator id=2: the map has no member with local rank 1"},
        {"Comm map='0->0;0->1;' id=2 name=''",
         "Comm line: communicator id=2: the map names world rank 0 twice"},
        {"Comm map='0->0;' remote='0..1->0..1;' id=2 name=''",
         "Comm line: communicator id=2: world rank 0 is in both groups"},
        {"Comm map='1..0:-1->0..1;0->2;' id=2 name=''",
         "Comm line: communicator id=2: the map names 3 members, but the run has ranks 0..1"},
        {"Comm map='0..5000:5000->0..1;' id=2 name=''",
         "Comm line: communicator id=2 names world rank 5000, far beyond the highest traced "
         "rank 1"},
        {"Comm map='5000..0:-5000->0..1;' id=2 name=''",
         "Comm line: communicator id=2 names world rank 5000, far beyond the highest traced "
         "rank 1"},
        {"Comm map='0..0:5->0;0->1;' id=2 name=''",
         "Comm line: communicator id=2: the map names world rank 0 twice"},
    };
    for (const auto &[line, message] : cases) {
        RunDirectory run;
        run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + line + "\n");
        run.addTrace("app", "h", 1, 0, standardHeader(1, 2));
        const MergeError error = mergeError(run);
        EXPECT_EQ(error.file(), run.file("app_h_0_0.info")) << line;
        EXPECT_EQ(error.line(), 4u) << line;
        EXPECT_EQ(error.detail(), message) << line;
    }
}

}  // namespace
}  // namespace hdtrace::merger::testing
