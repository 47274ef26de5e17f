#include <gtest/gtest.h>

#include <hdtrace/TraceNames.hpp>

namespace hdtrace {
namespace {

TEST(TraceNames, SanitizesEveryPart) {
    EXPECT_EQ(sanitizeNamePart("my_app"), "my-app");
    EXPECT_EQ(sanitizeNamePart("node01.cluster-a"), "node01.cluster-a");
    EXPECT_EQ(sanitizeNamePart("a b/c\xc3\xa9"), "a-b-c--");
    EXPECT_EQ(sanitizeNamePart(""), "-");
    EXPECT_EQ(traceBaseName("my_app", {"host_1", "3", "0"}), "my-app_host-1_3_0");
}

TEST(TraceNames, ParsesFromTheRight) {
    auto parsed = parseTraceFileName("runs/x/partdiff_par_node05_12_0.trc");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->directory, "runs/x");
    EXPECT_EQ(parsed->program, "partdiff_par");
    EXPECT_EQ(parsed->levels, (std::vector<std::string>{"node05", "12", "0"}));
    EXPECT_EQ(parsed->extension, "trc");

    parsed = parseTraceFileName("app_h_0_1.info");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->directory, "");
    EXPECT_EQ(parsed->program, "app");
    EXPECT_EQ(parsed->extension, "info");

    parsed = parseTraceFileName("app_h_0_1");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->extension, "");
    EXPECT_EQ(parsed->levels[2], "1");
}

TEST(TraceNames, RejectsTooFewOrEmptyParts) {
    EXPECT_FALSE(parseTraceFileName("app_0_1.trc"));
    EXPECT_FALSE(parseTraceFileName("_h_0_1.trc"));
    EXPECT_FALSE(parseTraceFileName("app_h__1.trc"));
    EXPECT_FALSE(parseTraceFileName("app.trc"));
}

TEST(TraceNames, RoundTrips) {
    const std::vector<std::string> levels = {"node 7", "15", "2"};
    auto parsed = parseTraceFileName("d/" + traceBaseName("my app", levels) + ".trc");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->program, "my-app");
    EXPECT_EQ(parsed->levels, (std::vector<std::string>{"node-7", "15", "2"}));
}

}  // namespace
}  // namespace hdtrace

TEST(TraceNames, TellsALayersTraceFromAMainTrace) {
    EXPECT_TRUE(hdtrace::isLayerTraceFileName("app_vm_0_0.hdf5.trc"));
    EXPECT_TRUE(hdtrace::isLayerTraceFileName("dir.d/app_vm_0_0.hdf5.ctrc"));
    EXPECT_TRUE(hdtrace::isLayerTraceFileName("a.out_node.x_3_1.netcdf4.trc"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("app_vm_0_0.trc"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("app_vm_0_0.info"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("app_vm_0_0.hdf5.info"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("a.out_vm_0_0.trc"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("app_node1.cluster_0_0.ctrc"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("dir.hdf5/app_vm_0_0.trc"));
    EXPECT_FALSE(hdtrace::isLayerTraceFileName("app_vm_0_0.5.trc"));
    EXPECT_TRUE(hdtrace::isLayerName(""));
    EXPECT_FALSE(hdtrace::isLayerName("5a"));
}
