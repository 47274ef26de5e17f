// Bad input: every case stops the merge with file, line and what is wrong,
// and leaves no .proj (nor a temporary file) behind; --force merges what it
// can and lists what it dropped.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

struct Failure {
    std::string file;
    size_t line = 0;
    std::string detail;
};

Failure failureOf(const std::vector<std::string> &inputs) {
    MergeOptions options;
    options.inputs = inputs;
    try {
        merge(options);
    } catch (const MergeError &error) {
        return {error.file(), error.line(), error.detail()};
    }
    ADD_FAILURE() << "the merge succeeded";
    return {};
}

void addGoodRank(const RunDirectory &run, int rank, int ranks, const std::string &program = "app") {
    run.addTrace(program, "h", rank, 0, standardHeader(rank, ranks));
}

// Nothing but the run's own files: no .proj, no temporary file.
void expectNoOutput(const RunDirectory &run) {
    for (const std::string &name : run.names()) {
        EXPECT_EQ(name.find(".proj"), std::string::npos) << name << " was left behind";
    }
}

TEST(InputErrors, AMissingFile) {
    RunDirectory run;
    addGoodRank(run, 0, 1);
    const Failure failure = failureOf({run.file("app_h_0_0.info"), run.file("app_h_1_0.info")});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.info"));
    EXPECT_EQ(failure.detail, "no such file");
    expectNoOutput(run);
}

TEST(InputErrors, AMissingProgramPrefix) {
    RunDirectory run;
    addGoodRank(run, 0, 1);
    const Failure failure = failureOf({run.file("other")});
    EXPECT_EQ(failure.file, run.file("other"));
    EXPECT_EQ(failure.detail,
              "no such file, and no traces other_<host>_<rank>_<thread>.info/.trc/.ctrc beside it");
}

TEST(InputErrors, AnUnreadableInfo) {
    RunDirectory run;
    addGoodRank(run, 0, 2);
    // A directory in place of the .info: opening works, reading does not
    // (file modes do not stop root, who runs these tests in containers).
    ASSERT_EQ(mkdir(run.file("app_h_1_0.info").c_str(), 0755), 0);
    run.write("app_h_1_0.trc", "");
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.info"));
    EXPECT_EQ(failure.detail, "cannot read: not a regular file");
    expectNoOutput(run);
}

TEST(InputErrors, AFifoInPlaceOfAnInfoDoesNotHang) {
    RunDirectory run;
    addGoodRank(run, 0, 2);
    ASSERT_EQ(mkfifo(run.file("app_h_1_0.info").c_str(), 0644), 0);
    run.write("app_h_1_0.trc", "");
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.info"));
    EXPECT_EQ(failure.detail, "cannot read: not a regular file");
}

TEST(InputErrors, ATraceThatIsNotARegularFile) {
    for (const std::string kind : {"directory", "fifo"}) {
        RunDirectory run;
        addGoodRank(run, 0, 2);
        run.addTrace("app", "h", 1, 0, standardHeader(1, 2), false);
        const std::string trace = run.file("app_h_1_0.trc");
        if (kind == "directory")
            ASSERT_EQ(mkdir(trace.c_str(), 0755), 0);
        else
            ASSERT_EQ(mkfifo(trace.c_str(), 0644), 0);
        const Failure failure = failureOf({run.path()});
        EXPECT_EQ(failure.file, trace) << kind;
        EXPECT_EQ(failure.detail, "not a regular file") << kind;
        expectNoOutput(run);
    }
}

// The directory's listing says a symbolic link is a link, not what it leads
// to: the merger then asks the file, and a link is as good as its target.
TEST(InputErrors, LinksAreJudgedByWhatTheyLeadTo) {
    RunDirectory run;
    RunDirectory elsewhere;
    addGoodRank(run, 0, 3);
    addGoodRank(elsewhere, 1, 3);
    for (const char *name : {"app_h_1_0.info", "app_h_1_0.trc"})
        ASSERT_EQ(symlink(elsewhere.file(name).c_str(), run.file(name).c_str()), 0);
    // Rank 2's trace leads to a FIFO, its .info to a directory.
    run.addTrace("app", "h", 2, 0, standardHeader(2, 3), false);
    ASSERT_EQ(mkfifo(elsewhere.file("fifo").c_str(), 0644), 0);
    ASSERT_EQ(symlink(elsewhere.file("fifo").c_str(), run.file("app_h_2_0.trc").c_str()), 0);
    Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_2_0.trc"));
    EXPECT_EQ(failure.detail, "not a regular file");

    ASSERT_EQ(unlink(run.file("app_h_2_0.trc").c_str()), 0);
    run.write("app_h_2_0.trc", "");
    ASSERT_EQ(unlink(run.file("app_h_2_0.info").c_str()), 0);
    ASSERT_EQ(mkdir(elsewhere.file("directory").c_str(), 0755), 0);
    ASSERT_EQ(symlink(elsewhere.file("directory").c_str(), run.file("app_h_2_0.info").c_str()), 0);
    failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_2_0.info"));
    EXPECT_EQ(failure.detail, "cannot read: not a regular file");
    expectNoOutput(run);

    // With rank 2 as it should be, rank 1 through its links is merged.
    ASSERT_EQ(unlink(run.file("app_h_2_0.info").c_str()), 0);
    run.addTrace("app", "h", 2, 0, standardHeader(2, 3));
    MergeOptions options;
    options.inputs = {run.path()};
    const MergeResult result = merge(options);
    EXPECT_EQ(result.rankCount, 3u);
    ProjectXml project(result.outputPath);
    const auto selves = project.elements("//Communicator[@name='SELF 1']/Rank");
    ASSERT_EQ(selves.size(), 1u);
    EXPECT_EQ(selves[0].at("global"), "1");
}

TEST(InputErrors, AnInfoWithoutItsTrace) {
    RunDirectory run;
    addGoodRank(run, 0, 2);
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2), false);
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.info"));
    EXPECT_EQ(failure.detail, ".info with no .trc or .ctrc beside it");
    expectNoOutput(run);
}

TEST(InputErrors, ATraceWithoutItsInfo) {
    RunDirectory run;
    addGoodRank(run, 0, 2);
    run.write("app_h_1_0.trc", "");
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.trc"));
    EXPECT_EQ(failure.detail, "no .info beside this trace");
}

TEST(InputErrors, ATruncatedLastLine) {
    RunDirectory run;
    addGoodRank(run, 0, 2);
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2) + "Comm map='0..1->0..1;' id=2 na");
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.info"));
    EXPECT_EQ(failure.line, 4u);
    EXPECT_EQ(failure.detail, "truncated line: the file ends without a newline");
    expectNoOutput(run);
}

TEST(InputErrors, AGarbledLine) {
    RunDirectory run;
    addGoodRank(run, 0, 2);
    run.addTrace("app", "h", 1, 0,
                 standardHeader(1, 2) +
                     "Comm map='0..1->0..1;' id=2 name='x'\n"
                     "Comm map='0->0;3->;' id=3 name=''\n");
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_1_0.info"));
    EXPECT_EQ(failure.line, 5u);
    EXPECT_EQ(failure.detail, "Comm line: map entry '3->' has no local rank");
    expectNoOutput(run);
}

TEST(InputErrors, BinaryGarbage) {
    RunDirectory run;
    addGoodRank(run, 0, 1);
    run.write("app_h_0_0.info", standardHeader(0, 1) + std::string("\x7f\x00\xff\x01 x\n", 7));
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.line, 4u);
    EXPECT_EQ(failure.detail.substr(0, 13), "garbled line:");
}

TEST(InputErrors, GapsInTheRankNumbers) {
    RunDirectory run;
    addGoodRank(run, 0, 4);
    addGoodRank(run, 1, 4);
    addGoodRank(run, 3, 4);
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.detail, "gaps in the rank numbers: no trace of rank 2 (1 of 0..3)");
    expectNoOutput(run);
}

TEST(InputErrors, AMissingLastRankIsNamedByTheWorldMap) {
    RunDirectory run;
    addGoodRank(run, 0, 3);
    addGoodRank(run, 1, 3);
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_h_0_0.info"));
    EXPECT_EQ(failure.line, 2u);
    EXPECT_EQ(failure.detail,
              "gaps in the rank numbers: no trace of rank 2 (1 of 0..2); this map names world "
              "rank 2");
}

TEST(InputErrors, FilesOfTwoPrograms) {
    RunDirectory run;
    addGoodRank(run, 0, 2, "app");
    addGoodRank(run, 1, 2, "other");
    const Failure failure = failureOf({run.file("app_h_0_0.info"), run.file("other_h_1_0.info")});
    EXPECT_EQ(failure.file, run.file("other_h_1_0.info"));
    EXPECT_EQ(failure.detail, "files from two different programs: 'other' here, 'app' in " +
                                  run.file("app_h_0_0.info"));
    expectNoOutput(run);
}

TEST(InputErrors, OneRankOnTwoHosts) {
    RunDirectory run;
    addGoodRank(run, 0, 1);
    run.addTrace("app", "g", 0, 1, "");
    const Failure failure = failureOf({run.path()});
    EXPECT_EQ(failure.file, run.file("app_g_0_1"));
    EXPECT_EQ(failure.detail, "rank 0 is on host 'g' here but on 'h' in " + run.file("app_h_0_0"));
}

TEST(InputErrors, EmptyInputs) {
    EXPECT_EQ(failureOf({}).detail, "empty input: no .info, .trc or .ctrc files given");
    RunDirectory empty;
    const Failure failure = failureOf({empty.path()});
    EXPECT_EQ(failure.file, empty.path());
    EXPECT_EQ(failure.detail, "empty input: no .info, .trc or .ctrc files in it");

    RunDirectory run;
    run.addTrace("app", "h", 0, 0, "");
    const Failure emptyInfo = failureOf({run.path()});
    EXPECT_EQ(emptyInfo.file, run.file("app_h_0_0.info"));
    EXPECT_EQ(emptyInfo.detail, "empty input: the .info holds no records");
    expectNoOutput(run);
}

TEST(InputErrors, AFailedMergeLeavesAnEarlierProjectAlone) {
    RunDirectory run;
    addGoodRank(run, 0, 1);
    run.write("app.proj", "earlier");
    run.write("app_h_0_0.info", standardHeader(0, 1) + "File name=\"x\" Size=? id=0\n");
    EXPECT_EQ(failureOf({run.path()}).detail, "File line: Size: '?' is not an integer");
    EXPECT_EQ(run.names(),
              (std::vector<std::string>{"app.proj", "app_h_0_0.info", "app_h_0_0.trc"}));
}

TEST(InputErrors, ForceMergesWhatItCanAndSaysWhatWasDropped) {
    RunDirectory run;
    addGoodRank(run, 0, 3);
    run.addTrace("app", "h", 1, 0,
                 standardHeader(1, 3) +
                     "Comm map='0->0;1->;' id=2 name=''\n"
                     "File name=\"kept\" Size=5 id=0\n");
    run.addTrace("app", "h", 2, 0, standardHeader(2, 3), false);
    MergeOptions options;
    options.inputs = {run.path()};
    options.force = true;
    const MergeResult result = merge(options);
    ASSERT_EQ(result.warnings.size(), 3u);
    EXPECT_EQ(
        result.warnings[0],
        run.file("app_h_2_0.info") + ": .info with no .trc or .ctrc beside it; dropped this trace");
    EXPECT_EQ(result.warnings[1],
              run.file("app_h_1_0.info") +
                  ":4: Comm line: map entry '1->' has no local rank; dropped the line");
    EXPECT_EQ(result.warnings[2],
              run.file("app_h_0_0.info") +
                  ":2: gaps in the rank numbers: no trace of rank 2 (1 of 0..2); this map names "
                  "world rank 2; dropped nothing; those ranks have no trace in the .proj");
    ProjectXml project(result.outputPath);
    // Rank 2 stays a member of WORLD, with cid -1: it has no .info.
    const auto world = project.elements("/Application/CommunicatorList/Communicator[1]/Rank");
    ASSERT_EQ(world.size(), 3u);
    EXPECT_EQ(world[2].at("global"), "2");
    EXPECT_EQ(world[2].at("cid"), "-1");
    EXPECT_EQ(project.elements("/Application/FileList/File").at(0).at("name"), "kept");
    EXPECT_EQ(project.elements("/Application/Topology/Node/Node").size(), 2u);
}

}  // namespace
}  // namespace hdtrace::merger::testing

namespace hdtrace::merger::testing {
namespace {

TEST(InputErrors, ForceKeepsTheFirstProgramAndTracesWithoutInfo) {
    RunDirectory run;
    addGoodRank(run, 0, 2, "app");
    run.write("app_h_1_0.trc", "");  // no .info: in the Topology, nothing else
    addGoodRank(run, 1, 2, "other");
    MergeOptions options;
    options.inputs = {run.file("app"), run.file("other")};
    options.force = true;
    const MergeResult result = merge(options);
    EXPECT_EQ(result.program, "app");
    EXPECT_EQ(result.traceCount, 2u);
    ASSERT_EQ(result.warnings.size(), 2u);
    EXPECT_EQ(result.warnings[0], run.file("other_h_1_0.info") +
                                      ": files from two different programs: 'other' here, "
                                      "'app' in " +
                                      run.file("app_h_0_0.info") +
                                      "; dropped the traces of 'other'");
    EXPECT_EQ(result.warnings[1], run.file("app_h_1_0.trc") +
                                      ": no .info beside this trace; dropped its files, "
                                      "communicators and datatypes");
    ProjectXml project(result.outputPath);
    EXPECT_EQ(project.elements("/Application/Topology/Node/Node").size(), 2u);
    // Rank 1 is in WORLD (from rank 0's map) with cid -1.
    const auto world = project.elements("/Application/CommunicatorList/Communicator[1]/Rank");
    ASSERT_EQ(world.size(), 2u);
    EXPECT_EQ(world[1].at("cid"), "-1");
}

}  // namespace
}  // namespace hdtrace::merger::testing
