// The rules of filter files: each kind, the last match deciding, and the
// message of every way a filter can be wrong.
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/filter/TraceFilter.hpp>

using hdtrace::filter::callIndexOf;
using hdtrace::filter::dialectCalls;
using hdtrace::filter::dialectGroups;
using hdtrace::filter::FilterError;
using hdtrace::filter::TraceFilter;

namespace {

TraceFilter filterOf(const std::string &text) {
    TraceFilter filter;
    filter.addText(text, "test.filter");
    return filter;
}

bool traces(const TraceFilter &filter, const char *tag) {
    const int index = callIndexOf(tag);
    EXPECT_GE(index, 0) << tag;
    return filter.tracesCall(index);
}

std::string errorOf(const std::string &text) {
    try {
        filterOf(text);
    } catch (const FilterError &error) {
        return error.what();
    }
    return "no error";
}

}  // namespace

TEST(TraceFilter, WithoutRulesEverythingIsTraced) {
    const TraceFilter filter = filterOf("# nothing but a comment\n\n   \n");
    EXPECT_TRUE(filter.rules().empty());
    for (size_t index = 0; index < dialectCalls().size(); ++index)
        EXPECT_TRUE(filter.tracesCall(static_cast<int>(index)));
    EXPECT_TRUE(filter.tracesFile("/scratch/a"));
    EXPECT_TRUE(filter.tracesRank(12345));
    EXPECT_FALSE(filter.hasFileRules());
    EXPECT_FALSE(filter.hasRanksRule());
}

TEST(TraceFilter, CallRulesMatchShellPatternsOnTheFunctionName) {
    const TraceFilter filter = filterOf("exclude call MPI_Iprobe MPI_Test*  # probes and tests\n");
    EXPECT_FALSE(traces(filter, "Iprobe"));
    EXPECT_FALSE(traces(filter, "Test"));
    EXPECT_FALSE(traces(filter, "Testsome"));
    EXPECT_TRUE(traces(filter, "Probe"));
    EXPECT_TRUE(traces(filter, "Wait"));
    EXPECT_TRUE(traces(filter, "pwrite"));
    // C library calls are named without MPI_.
    const TraceFilter posix = filterOf("exclude call pwrite* lseek\n");
    EXPECT_FALSE(traces(posix, "pwrite"));
    EXPECT_FALSE(traces(posix, "pwritev"));
    EXPECT_FALSE(traces(posix, "lseek"));
    EXPECT_TRUE(traces(posix, "write"));
    EXPECT_TRUE(traces(posix, "File_write"));
}

TEST(TraceFilter, TheLastMatchingRuleDecides) {
    const TraceFilter filter = filterOf(
        "exclude call *\n"
        "include call MPI_File_*\n"
        "exclude call MPI_File_get_*\n");
    EXPECT_FALSE(traces(filter, "Send"));
    EXPECT_FALSE(traces(filter, "open"));
    EXPECT_TRUE(traces(filter, "File_write_at"));
    EXPECT_TRUE(traces(filter, "File_open"));
    EXPECT_FALSE(traces(filter, "File_get_size"));
    // The other order: the broad rule last wins over the narrow one.
    const TraceFilter reversed = filterOf("include call MPI_File_*\nexclude call *\n");
    EXPECT_FALSE(traces(reversed, "File_write_at"));
}

TEST(TraceFilter, GroupsAndLayersAreTheDialectsGroups) {
    const TraceFilter probes = filterOf("exclude group p2p-probe\n");
    EXPECT_FALSE(traces(probes, "Probe"));
    EXPECT_FALSE(traces(probes, "Iprobe"));
    EXPECT_FALSE(traces(probes, "Mprobe"));
    EXPECT_FALSE(traces(probes, "Improbe"));
    EXPECT_TRUE(traces(probes, "Mrecv"));
    EXPECT_TRUE(traces(probes, "Send"));

    const TraceFilter layers = filterOf("layer posix off\n");
    EXPECT_FALSE(traces(layers, "pwrite"));
    EXPECT_FALSE(traces(layers, "open"));
    EXPECT_TRUE(traces(layers, "fwrite"));  // stdio is a layer of its own
    EXPECT_TRUE(traces(layers, "File_write"));

    const TraceFilter onlyIo = filterOf("layer mpi off\nlayer mpiio on\n");
    EXPECT_FALSE(traces(onlyIo, "Send"));
    EXPECT_FALSE(traces(onlyIo, "Init"));
    EXPECT_TRUE(traces(onlyIo, "File_write_all"));
    EXPECT_TRUE(traces(onlyIo, "pwrite"));

    // Groups and call rules share one order.
    const TraceFilter mixed = filterOf("exclude group collective\ninclude call MPI_Allreduce\n");
    EXPECT_TRUE(traces(mixed, "Allreduce"));
    EXPECT_FALSE(traces(mixed, "Bcast"));
    EXPECT_FALSE(traces(mixed, "Iallreduce"));

    bool sawLayer = false;
    for (const auto &group : dialectGroups())
        sawLayer = sawLayer || group.layer;
    EXPECT_TRUE(sawLayer);
}

TEST(TraceFilter, FileRulesMatchWholePaths) {
    const TraceFilter filter = filterOf(
        "exclude file /proc/* *.so *.py[co]\n"
        "exclude file /scratch/*\n"
        "include file /scratch/keep/*\n");
    EXPECT_TRUE(filter.hasFileRules());
    EXPECT_FALSE(filter.tracesFile("/proc/self/maps"));
    EXPECT_FALSE(filter.tracesFile("/usr/lib/libm.so"));
    EXPECT_FALSE(filter.tracesFile("/home/u/x.pyc"));
    EXPECT_TRUE(filter.tracesFile("/home/u/x.py"));
    EXPECT_FALSE(filter.tracesFile("/scratch/run/out.dat"));  // '*' spans '/'
    EXPECT_TRUE(filter.tracesFile("/scratch/keep/out.dat"));
    EXPECT_TRUE(filter.tracesFile("/home/u/out.dat"));
    // File rules do not choose calls.
    EXPECT_TRUE(traces(filter, "pwrite"));
}

TEST(TraceFilter, TheLastRanksRuleChoosesTheTracedRanks) {
    const TraceFilter filter = filterOf("ranks 0-15,1024\n");
    EXPECT_TRUE(filter.hasRanksRule());
    EXPECT_TRUE(filter.tracesRank(0));
    EXPECT_TRUE(filter.tracesRank(15));
    EXPECT_FALSE(filter.tracesRank(16));
    EXPECT_TRUE(filter.tracesRank(1024));
    EXPECT_FALSE(filter.tracesRank(1023));
    const TraceFilter spaced = filterOf("ranks 3, 5-6 9\n");
    EXPECT_TRUE(spaced.tracesRank(3));
    EXPECT_FALSE(spaced.tracesRank(4));
    EXPECT_TRUE(spaced.tracesRank(6));
    EXPECT_TRUE(spaced.tracesRank(9));
    const TraceFilter last = filterOf("ranks 1\nranks all\n");
    EXPECT_TRUE(last.tracesRank(0));
    EXPECT_TRUE(last.tracesRank(99999));
}

TEST(TraceFilter, RulesAddUpAcrossSources) {
    TraceFilter filter;
    filter.addText("exclude group ordinary", "HDTRACE_ALL_FUNCTIONS=0");
    filter.addText("include call MPI_Init", "run.filter");
    EXPECT_TRUE(traces(filter, "Init"));
    EXPECT_FALSE(traces(filter, "Finalize"));
    EXPECT_EQ(filter.rules()[0].place.source, "HDTRACE_ALL_FUNCTIONS=0");
    EXPECT_EQ(filter.rules()[1].place.line, 1);
}

TEST(TraceFilter, PatternsThatMatchNoCallWarnWithTheirPlace) {
    const TraceFilter filter = filterOf("\nexclude call MPI_Send MPI_Sendd\n");
    ASSERT_EQ(filter.warnings().size(), 1u);
    EXPECT_EQ(filter.warnings()[0],
              "test.filter:2:23: call pattern 'MPI_Sendd' matches no call the wrapper writes");
    EXPECT_FALSE(traces(filter, "Send"));
}

TEST(TraceFilter, EveryMistakeIsNamedWithLineAndColumn) {
    EXPECT_EQ(errorOf("exclude call MPI_Send\n  exlude call MPI_Recv\n"),
              "test.filter:2:3: expected a rule: include, exclude, layer or ranks; found 'exlude'");
    EXPECT_EQ(errorOf("exclude\n"),
              "test.filter:1:8: expected call, group or file after 'exclude'");
    EXPECT_EQ(errorOf("include calls MPI_Send\n"),
              "test.filter:1:9: expected call, group or file after 'include'; found 'calls'");
    EXPECT_EQ(errorOf("exclude call\n"),
              "test.filter:1:13: expected at least one pattern after 'exclude call'");
    EXPECT_EQ(errorOf("exclude group\n"),
              "test.filter:1:14: expected at least one group name after 'exclude group'");
    const std::string unknownGroup = errorOf("exclude group p2p-probe probes\n");
    EXPECT_EQ(unknownGroup.rfind(
                  "test.filter:1:25: unknown group 'probes'; expected one of hdf5, mpi, ", 0),
              0u)
        << unknownGroup;
    EXPECT_EQ(
        errorOf("layer\n").rfind("test.filter:1:6: expected a layer after 'layer': hdf5, mpi, ", 0),
        0u);
    EXPECT_EQ(errorOf("layer p2p-probe off\n")
                  .rfind("test.filter:1:7: unknown layer 'p2p-probe'; expected hdf5, mpi, mpiio, "
                         "posix, stdio",
                         0),
              0u);
    EXPECT_EQ(errorOf("layer posix\n"), "test.filter:1:12: expected on or off after 'layer posix'");
    EXPECT_EQ(errorOf("layer posix no\n"),
              "test.filter:1:13: expected on or off after 'layer posix'; found 'no'");
    EXPECT_EQ(
        errorOf("layer posix off now\n"),
        "test.filter:1:17: expected the end of the line after 'layer posix off'; found 'now'");
    EXPECT_EQ(errorOf("ranks\n"),
              "test.filter:1:6: expected ranks after 'ranks' (such as 0-15,1024 or all)");
    EXPECT_EQ(errorOf("ranks 0-15,x7\n"),
              "test.filter:1:12: expected a rank (a whole number from 0) or a range FIRST-LAST; "
              "found 'x7'");
    EXPECT_EQ(errorOf("ranks 4,9-2\n"), "test.filter:1:9: the range '9-2' ends before it starts");
    EXPECT_EQ(errorOf("ranks -1\n"),
              "test.filter:1:7: expected a rank (a whole number from 0) or a range FIRST-LAST; "
              "found '-1'");
    EXPECT_EQ(errorOf("ranks 99999999999999999999\n"),
              "test.filter:1:7: expected a rank (a whole number from 0) or a range FIRST-LAST; "
              "found '99999999999999999999'");
    EXPECT_EQ(errorOf(std::string("exclude call MPI_Send\0x\n", 24)),
              "test.filter:1:22: expected text; found a NUL byte (is this a filter file?)");
}

TEST(TraceFilter, AFilterThatFailsAddsNothing) {
    TraceFilter filter;
    filter.addText("exclude call MPI_Send", "first");
    EXPECT_THROW(filter.addText("exclude call MPI_Recv\nbad line\n", "second"), FilterError);
    ASSERT_EQ(filter.rules().size(), 1u);
    EXPECT_TRUE(traces(filter, "Recv"));
}

TEST(TraceFilter, AnUnreadableFileIsAnError) {
    TraceFilter filter;
    try {
        filter.addFile("/nonexistent/run.filter");
        FAIL() << "no error";
    } catch (const FilterError &error) {
        EXPECT_EQ(std::string(error.what()),
                  "/nonexistent/run.filter: cannot be read: No such file or directory");
    }
    const std::string path = testing::TempDir() + "/ok.filter";
    std::ofstream(path) << "exclude call MPI_Send\n";
    filter.addFile(path);
    EXPECT_FALSE(traces(filter, "Send"));
    EXPECT_EQ(filter.rules()[0].place.source, path);
    std::remove(path.c_str());
}
