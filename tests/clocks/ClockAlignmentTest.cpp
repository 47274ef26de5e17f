// The clock alignment library (clocks/) on hand-made input: offsets, clock
// lines, the rewriting of times, and the order repair. Whole runs are tested
// from Python (tests/python/test_clock_alignment.py, tests/mpiwrapper/test_clocks.py).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include <hdtrace/clocks/ClockLines.hpp>
#include <hdtrace/clocks/ClockOffsets.hpp>
#include <hdtrace/clocks/OrderRepair.hpp>
#include <hdtrace/clocks/TraceTimes.hpp>
#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::clocks {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kBase = 1'700'000'000 * kS;

ClockMeasurement measured(int64_t time, int64_t offset) {
    return {"init", time, offset, 10, 1, 20};
}

TEST(ClockOffsets, InterpolatesLinearlyAndExtrapolatesAlongTheNearestSegment) {
    const ClockOffsets offsets({measured(kBase, 1000), measured(kBase + 2 * kS, 3000)});
    EXPECT_EQ(offsets.at(kBase), 1000);
    EXPECT_EQ(offsets.at(kBase + kS), 2000);
    EXPECT_EQ(offsets.at(kBase + 2 * kS), 3000);
    EXPECT_EQ(offsets.at(kBase - kS), 0);
    EXPECT_EQ(offsets.at(kBase + 4 * kS), 5000);
    EXPECT_EQ(offsets.largest(), 3000);
    // Halves round to even, as numpy's rint.
    const ClockOffsets halves({measured(0, 0), measured(2, 1)});
    EXPECT_EQ(halves.at(1), 0);
    EXPECT_EQ(halves.at(3), 2);
    // One measurement: constant; several at one time keep the smallest offset.
    EXPECT_EQ(ClockOffsets({measured(kBase, -7)}).at(kBase + 5 * kS), -7);
    EXPECT_EQ(ClockOffsets({measured(kBase, 9), measured(kBase, 4)}).at(0), 4);
}

class InfoFile : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/clocks_test_XXXXXX";
        const int fd = mkstemp(name);
        ASSERT_GE(fd, 0);
        close(fd);
        path_ = name;
    }
    void TearDown() override { std::remove(path_.c_str()); }
    void write(const std::string &text) { std::ofstream(path_, std::ios::binary) << text; }
    std::string path_;
};

TEST_F(InfoFile, ReadsClockLinesAndSkipsOtherKinds) {
    write(
        "Mpi library='x'\nClockwork id=3\n"
        "Clock at='init' time=-5 offset=-200 rtt=900 leader=1 exchanges=20\n"
        "ClockAligned backup='a_h_1_0.trc.unaligned'\n");
    const InfoClock found = readInfoClock(path_);
    ASSERT_EQ(found.measurements.size(), 1u);
    EXPECT_EQ(found.measurements[0].occasion, "init");
    EXPECT_EQ(found.measurements[0].timeNs, -5);
    EXPECT_EQ(found.measurements[0].offsetNs, -200);
    EXPECT_EQ(found.measurements[0].rttNs, 900);
    EXPECT_EQ(found.measurements[0].leader, 1);
    EXPECT_EQ(found.measurements[0].exchanges, 20);
    EXPECT_EQ(found.alignedBackup.value_or(""), "a_h_1_0.trc.unaligned");
}

TEST_F(InfoFile, DamagedLinesNameFileAndLine) {
    for (const char *line :
         {"Clock at='init' time=12 offset=3",
          "Clock at='init' time=1 offset=1.5 rtt=0 leader=1 exchanges=2",
          "Clock at='init' time=1 offset=1 rtt=-1 leader=1 exchanges=2",
          "Clock at='init' time=99999999999999999999 offset=1 rtt=1 leader=1 exchanges=2",
          "ClockAligned backup=''", "ClockAligned backup='../x'"}) {
        write(std::string("Mpi library='x'\n") + line + "\n");
        try {
            readInfoClock(path_);
            ADD_FAILURE() << "accepted: " << line;
        } catch (const reader::ReadError &error) {
            EXPECT_EQ(error.file(), path_);
            EXPECT_EQ(error.line(), 2) << line;
            EXPECT_NE(error.problem().find("damaged Clock"), std::string::npos);
        }
    }
}

TEST(ClockLines, InfoPathOfATrace) {
    EXPECT_EQ(infoPathOf("d/app_h_0_0.trc"), "d/app_h_0_0.info");
    EXPECT_EQ(infoPathOf("d/.trc"), "d/.trc.info");
    EXPECT_EQ(infoPathOf("d/app"), "d/app.info");
}

TEST(TraceTimes, OnlyTimesChangeExactly) {
    const std::string text =
        "<?xml version=\"1.0\"?>\n<Program timeAdjustment='100'>\n"
        "<A x='time=1' time='0.000000001' end='1.5'/>\n<Nested>\n"
        "  <B time='-0.25' end='2'/>\n</Nested>\n<Event name='e' time='3.000000007'/>\n"
        "<C time='1.0000000001' end='x'/>\n</Program>\n";
    const std::string rewritten =
        rewriteTraceTimes(text, "t.trc", [](int64_t ns) { return ns - 2 * kS; });
    EXPECT_EQ(rewritten,
              "<?xml version=\"1.0\"?>\n<Program timeAdjustment='97'>\n"
              "<A x='time=1' time='1.000000001' end='2.500000000'/>\n<Nested>\n"
              "  <B time='0.750000000' end='3.000000000'/>\n</Nested>\n"
              "<Event name='e' time='4.000000007'/>\n"
              "<C time='1.0000000001' end='x'/>\n</Program>\n");
    // Later times keep timeAdjustment.
    EXPECT_EQ(rewriteTraceTimes(text, "t.trc", [](int64_t ns) { return ns + kS; })
                  .find("timeAdjustment='100'"),
              std::string("<?xml version=\"1.0\"?>\n<Program ").size());
    EXPECT_THROW(rewriteTraceTimes("<Program>", "t.trc", [](int64_t ns) { return ns; }),
                 reader::ReadError);
}

// A run of two ranks: rank 1 receives rank 0's message through a request that
// Startall started, and its Wait would end before the Send starts.
TEST(OrderRepair, MovesTheWaitOfAStartedReceiveAndEveryLaterTime) {
    RunTable table;
    table.names = {"Send", "Startall", "Wait", "Finalize"};
    auto add = [&](int32_t name, int32_t rank, int64_t start, int64_t end) {
        table.nameCode.push_back(name);
        table.rank.push_back(rank);
        table.thread.push_back(0);
        for (auto *column : {&table.peer, &table.tag, &table.cid, &table.recvPeer, &table.recvTag})
            column->push_back(0);
        table.startNs.push_back(start);
        table.endNs.push_back(end);
        table.rid.push_back(-1);
    };
    add(1, 1, 100, 101);  // row 0: Startall
    add(2, 1, 200, 300);  // row 1: Wait, ends 200 before the Send starts
    add(0, 0, 500, 501);  // row 2: Send
    add(3, 1, 800, 801);  // row 3: Finalize of rank 1
    OrderConstraints constraints;
    constraints.sendRows = {2};
    constraints.doneRows = {1};
    const RepairResult repair = repairOrder(table, constraints);
    ASSERT_EQ(repair.steps.size(), 1u);
    const RepairSteps &steps = repair.steps.at({1, 0});
    EXPECT_EQ(steps.breaks, std::vector<int64_t>({300}));
    EXPECT_EQ(steps.shifts, std::vector<int64_t>({200}));
    EXPECT_EQ(steps.at(299), 0);  // the Wait's start stays
    EXPECT_EQ(steps.at(300), 200);
    EXPECT_EQ(steps.at(800), 200);
}

TEST(OrderRepair, ChainsOfMessagesSettleAtTheLeastShifts) {
    // Rank 1's first receive ends 50 before its send starts; once moved, its
    // last receive ends 54 before its send starts, 4 more than it moved.
    RunTable table;
    table.names = {"X"};
    auto add = [&](int32_t rank, int64_t start, int64_t end) {
        table.nameCode.push_back(0);
        table.rank.push_back(rank);
        table.thread.push_back(0);
        for (auto *column : {&table.peer, &table.tag, &table.cid, &table.recvPeer, &table.recvTag})
            column->push_back(0);
        table.startNs.push_back(start);
        table.endNs.push_back(end);
        table.rid.push_back(-1);
    };
    add(0, 100, 110);  // 0: send to 1
    add(1, 20, 50);    // 1: receive, ends 50 before the send starts
    add(1, 60, 70);    // 2: send to 0
    add(0, 120, 125);  // 3: receive of row 2, which starts at 110 once moved: still fine
    add(0, 126, 127);  // 4: send to 1
    add(1, 71, 72);    // 5: receive of row 4: late by 54, after the first shift by 4
    OrderConstraints constraints;
    constraints.sendRows = {0, 2, 4};
    constraints.doneRows = {1, 3, 5};
    const RepairResult repair = repairOrder(table, constraints);
    const RepairSteps &rank1 = repair.steps.at({1, 0});
    EXPECT_EQ(rank1.breaks, std::vector<int64_t>({50, 72}));
    EXPECT_EQ(rank1.shifts, std::vector<int64_t>({50, 54}));
    EXPECT_EQ(repair.steps.count({0, 0}), 0u);
}

TEST(OrderRepair, AMemberOfABarrierWaitsForTheLastToStart) {
    // Rank 1's member, visited first, would end 100 before rank 0's starts.
    RunTable table;
    table.names = {"Barrier"};
    for (auto [rank, start, end] : {std::tuple<int32_t, int64_t, int64_t>{1, 50, 100},
                                    std::tuple<int32_t, int64_t, int64_t>{0, 200, 300}}) {
        table.nameCode.push_back(0);
        table.rank.push_back(rank);
        table.thread.push_back(0);
        for (auto *column : {&table.peer, &table.tag, &table.cid, &table.recvPeer, &table.recvTag})
            column->push_back(0);
        table.startNs.push_back(start);
        table.endNs.push_back(end);
        table.rid.push_back(-1);
    }
    OrderConstraints constraints;
    constraints.sources = constraints.sinks = {0, 1};
    constraints.sourceInstance = constraints.sinkInstance = {0, 0};
    constraints.instances = 1;
    const RepairResult repair = repairOrder(table, constraints);
    EXPECT_EQ(repair.steps.at({1, 0}).breaks, std::vector<int64_t>({100}));
    EXPECT_EQ(repair.steps.at({1, 0}).shifts, std::vector<int64_t>({100}));
    EXPECT_EQ(repair.steps.count({0, 0}), 0u);
}

}  // namespace
}  // namespace hdtrace::clocks
