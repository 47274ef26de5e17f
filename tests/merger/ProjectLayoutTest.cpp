// The .proj as docs/format/project.md describes it: sections and their order, files,
// topology, escaping, options, the inputs that find a run, the output path.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

std::string contentOf(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

MergeResult mergeInputs(const std::vector<std::string> &inputs, const std::string &output = "") {
    MergeOptions options;
    options.inputs = inputs;
    options.outputPath = output;
    return merge(options);
}

TEST(ProjectLayout, SectionsInOrderWithOptions) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 1));
    MergeOptions options;
    options.inputs = {run.path()};
    options.description = "weak scaling <run> & co";
    options.distributionClass = "de.hd.pvs.piosim.model.inputOutput.distribution.RoundRobin";
    options.chunkSize = "1M";
    run.addTrace("app", "h", 0, 0, standardHeader(0, 1) + "File name=\"f\" Size=3 id=0\n");
    const MergeResult result = merge(options);
    EXPECT_EQ(result.outputPath, run.file("app.proj"));
    ProjectXml project(result.outputPath);
    EXPECT_EQ(project.childTags("/Application"),
              (std::vector<std::string>{"Description", "FileList", "Topology", "CommunicatorList",
                                        "Datatypes"}));
    EXPECT_EQ(project.elements("/Application").at(0).at("name"), "app");
    EXPECT_EQ(project.texts("/Application/Description"),
              (std::vector<std::string>{"weak scaling <run> & co"}));
    EXPECT_EQ(
        project.elements("/Application/FileList/File/Distribution").at(0).at("implementation"),
        "de.hd.pvs.piosim.model.inputOutput.distribution.RoundRobin");
    EXPECT_EQ(project.texts("/Application/FileList/File/Distribution/ChunkSize"),
              (std::vector<std::string>{"1M"}));
}

TEST(ProjectLayout, FilesAreUniqueWithTheSizeOfTheFirstInfo) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 2) + "File name=\"/data/a\" Size=50 id=0\n");
    run.addTrace("app", "h", 0, 1, "File name=\"/data/b\" Size=7 id=1\n");
    run.addTrace("app", "h", 1, 0,
                 standardHeader(1, 2) +
                     "File name=\"/data/b\" Size=9 id=0\nFile name=\"/data/a\" Size=100 id=1\n"
                     "File name=\"/data/c\" Size=0 id=2\n");
    const MergeResult result = mergeDirectory(run);
    EXPECT_EQ(result.fileCount, 3u);
    ProjectXml project(result.outputPath);
    std::vector<std::string> names;
    for (const Attributes &file : project.elements("/Application/FileList/File"))
        names.push_back(file.at("name"));
    EXPECT_EQ(names, (std::vector<std::string>{"/data/a", "/data/b", "/data/c"}));
    EXPECT_EQ(project.texts("/Application/FileList/File/InitialSize"),
              (std::vector<std::string>{"50", "7", "0"}));
    EXPECT_EQ(
        project.elements("/Application/FileList/File/Distribution").at(2).at("implementation"),
        kDefaultDistributionClass);
    EXPECT_EQ(project.texts("/Application/FileList/File/Distribution/ChunkSize").at(0), "64K");
}

TEST(ProjectLayout, TopologyHasEveryTraceThreadsIncluded) {
    RunDirectory run;
    // The original implementation's program name (partdiff-par); hosts in rank order.
    for (int rank = 0; rank < 4; ++rank)
        run.addTrace("partdiff-par", rank < 2 ? "node05" : "node04", rank, 0,
                     standardHeader(rank, 4));
    run.addTrace("partdiff-par", "node05", 1, 1, "");
    run.addTrace("partdiff-par", "node04", 3, 2, "");
    const MergeResult result = mergeDirectory(run);
    EXPECT_EQ(result.program, "partdiff-par");
    EXPECT_EQ(result.traceCount, 6u);
    EXPECT_EQ(result.outputPath, run.file("partdiff-par.proj"));
    ProjectXml project(result.outputPath);
    EXPECT_EQ(project.elements("/Application/Topology/Level/Level/Level").at(0).at("type"),
              "Thread");
    EXPECT_EQ(project.elements("/Application/Topology/Level/Level").at(0).at("type"), "Rank");
    EXPECT_EQ(project.elements("/Application/Topology/Level").at(0).at("type"), "Hostname");
    std::vector<std::string> paths;
    for (const Attributes &host : project.elements("/Application/Topology/Node")) {
        const std::string hostPath = "/Application/Topology/Node[@name='" + host.at("name") + "']";
        for (const Attributes &rank : project.elements(hostPath + "/Node")) {
            for (const Attributes &thread :
                 project.elements(hostPath + "/Node[@name='" + rank.at("name") + "']/Node"))
                paths.push_back(host.at("name") + "/" + rank.at("name") + "/" + thread.at("name"));
        }
    }
    EXPECT_EQ(paths, (std::vector<std::string>{"node05/0/0", "node05/1/0", "node05/1/1",
                                               "node04/2/0", "node04/3/0", "node04/3/2"}));
}

TEST(ProjectLayout, NamesWithQuotesAmpersandsAndOtherCharactersStayWellFormed) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 standardHeader(0, 1) +
                     "File name=\"it&apos;s &quot;a&quot; &amp; &lt;b&gt; caf&#233; \xc3\xa9\" "
                     "Size=1 id=0\n"
                     "File name=\"raw latin-1 \xe9 and control &#1;\" Size=2 id=1\n"
                     "File name=\"tab&#9;newline&#10;return&#13;\" Size=3 id=2\n"
                     "Comm map='0->0;' id=2 name='&apos;q&apos; &amp; \"dq\"'\n");
    const MergeResult result = mergeDirectory(run);
    ProjectXml project(result.outputPath);
    ASSERT_TRUE(project.valid());
    const auto files = project.elements("/Application/FileList/File");
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[2].at("name"), "tab\tnewline\nreturn\r");
    EXPECT_EQ(files[0].at("name"), "it's \"a\" & <b> caf\xc3\xa9 \xc3\xa9");
    // Not UTF-8: read as Latin-1; a control character becomes its symbol.
    EXPECT_EQ(files[1].at("name"), "raw latin-1 \xc3\xa9 and control \xe2\x90\x81");
    EXPECT_EQ(project.elements("/Application/CommunicatorList/Communicator").at(2).at("name"),
              "'q' & \"dq\"");
}

TEST(ProjectLayout, AttributesInTheOrderOfAppendixB) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 standardHeader(0, 1) +
                     "Type id='17' combiner='MPI_COMBINER_NAMED' name='MPI_DOUBLE'\n"
                     "Type id='102' combiner='MPI_COMBINER_VECTOR' name='' integers='3;2;5;' "
                     "types='17;'\n");
    const std::string text = contentOf(mergeDirectory(run).outputPath);
    EXPECT_NE(text.find("<NAMED id=\"17\" name=\"MPI_DOUBLE\"/>"), std::string::npos) << text;
    EXPECT_NE(text.find("<VECTOR id=\"102\" name=\"\" count=\"3\" blocklength=\"2\" stride=\"5\" "
                        "oldType=\"17\"/>"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("<Rank global=\"0\" local=\"0\" cid=\"0\"/>"), std::string::npos);
    EXPECT_EQ(
        text.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Application name=\"app\">", 0), 0u)
        << text.substr(0, 100);
}

TEST(ProjectLayout, EveryFormOfInputFindsTheSameRun) {
    RunDirectory run;
    for (int rank = 0; rank < 3; ++rank)
        run.addTrace(
            "app", "h", rank, 0,
            standardHeader(rank, 3) + "File name=\"f" + std::to_string(rank) + "\" Size=1 id=0\n");
    const std::string expected = contentOf(mergeInputs({run.path()}).outputPath);
    const std::vector<std::vector<std::string>> forms = {
        {run.file("app")},
        {run.file("app_h_0_0.info"), run.file("app_h_1_0.info"), run.file("app_h_2_0.info")},
        {run.file("app_h_0_0.trc"), run.file("app_h_1_0.trc"), run.file("app_h_2_0.trc")},
        {run.file("app_h_2_0"), run.file("app_h_0_0.info"), run.file("app_h_1_0.trc")},
        {run.file("app_h_1_0.info"), run.path(), run.file("app")},
        // The same traces under two spellings of their directory.
        {run.path() + "/", run.path() + "/./app_h_1_0.info", run.file("app")},
    };
    for (const auto &inputs : forms) {
        const MergeResult result = mergeInputs(inputs);
        EXPECT_EQ(result.outputPath, run.file("app.proj"));
        EXPECT_EQ(result.traceCount, 3u);
        EXPECT_EQ(contentOf(result.outputPath), expected) << inputs.at(0);
    }
    EXPECT_EQ(run.names(), (std::vector<std::string>{"app.proj", "app_h_0_0.info", "app_h_0_0.trc",
                                                     "app_h_1_0.info", "app_h_1_0.trc",
                                                     "app_h_2_0.info", "app_h_2_0.trc"}));
}

TEST(ProjectLayout, AnOutputNameTheToolsCannotUseIsWarnedAbout) {
    RunDirectory run;
    RunDirectory elsewhere;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 1));
    MergeResult result = mergeInputs({run.path()}, run.file("other.proj"));
    EXPECT_EQ(result.outputPath, run.file("other.proj"));
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("the tools expect the project file to be named app.proj"),
              std::string::npos);
    result = mergeInputs({run.path()}, elsewhere.file("app.proj"));
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("the tools expect the project file beside the traces"),
              std::string::npos);
    EXPECT_TRUE(elsewhere.exists("app.proj"));
    result = mergeInputs({run.path()}, run.file("app.proj"));
    EXPECT_TRUE(result.warnings.empty());
    // A directory as -o means <program>.proj in it.
    result = mergeInputs({run.path()}, run.path());
    EXPECT_EQ(result.outputPath, run.file("app.proj"));
    EXPECT_TRUE(result.warnings.empty());
}

TEST(ProjectLayout, AnUnwritableOutputIsAnError) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0, standardHeader(0, 1));
    try {
        mergeInputs({run.path()}, run.file("no-such-dir/app.proj"));
        ADD_FAILURE() << "the merge succeeded";
    } catch (const MergeError &error) {
        EXPECT_EQ(error.file(), run.file("no-such-dir/app.proj"));
        EXPECT_NE(error.detail().find("cannot create a temporary file in"), std::string::npos);
    }
}

}  // namespace
}  // namespace hdtrace::merger::testing
