// Datatypes: the Appendix B element of every combiner of an older trace, the
// order of the elements, the MPI constants, and bad Type lines. The forms the
// PIOsim tools read are tested in PiosimFormsTest.cpp.
#include <gtest/gtest.h>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

// "TAG a=v b=v ..." per element, children indented by "  ", in document order.
void describe(const ProjectXml &project, const std::string &xpath, const std::string &indent,
              std::vector<std::string> &out);

std::vector<std::string> typesOfRank(const std::string &projectPath, int rank) {
    ProjectXml project(projectPath);
    std::vector<std::string> out;
    describe(project, "/Application/Datatypes/Rank[@name='" + std::to_string(rank) + "']", "", out);
    return out;
}

void describe(const ProjectXml &project, const std::string &xpath, const std::string &indent,
              std::vector<std::string> &out) {
    const std::vector<std::string> tags = project.childTags(xpath);
    for (size_t i = 0; i < tags.size(); ++i) {
        const std::string childPath = xpath + "/*[" + std::to_string(i + 1) + "]";
        const auto elements = project.elements(childPath);
        std::string text = indent + tags[i];
        // Attributes in document order are not kept by Attributes (a map);
        // compare sorted by name, which is what a reader sees anyway.
        for (const auto &[name, value] : elements.at(0))
            text += " " + name + "=" + value;
        out.push_back(text);
        describe(project, childPath, indent + "  ", out);
    }
}

std::string runWith(const RunDirectory &run, const std::string &types,
                    const std::string &mpiLine = kOpenMpiLine) {
    run.addTrace("app", "h", 0, 0, mpiLine + "Comm map='0->0;' id=0 name='WORLD'\n" + types);
    return run.file("app.proj");
}

// Lines without size, lb and extent (an older HDTrace) keep their Appendix B
// element, which the tools refuse: the merge stops, and --force writes it.
TEST(Datatypes, EveryCombinerOfAnOlderTraceDecodesToItsAppendixBElementWithForce) {
    RunDirectory run;
    runWith(
        run,
        "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
        "Type id='17' combiner='MPI_COMBINER_NAMED' name='MPI_DOUBLE'\n"
        "Type id='100' combiner='MPI_COMBINER_DUP' name='' integers='' addresses='' types='6;'\n"
        "Type id='101' combiner='MPI_COMBINER_CONTIGUOUS' name='c' integers='4;' types='6;'\n"
        "Type id='102' combiner='MPI_COMBINER_VECTOR' name='' integers='3;2;5;' types='17;'\n"
        "Type id='103' combiner='MPI_COMBINER_HVECTOR' name='' integers='3;2;' "
        "addresses='80;' types='17;'\n"
        "Type id='104' combiner='MPI_COMBINER_HVECTOR_INTEGER' name='' integers='2;1;' "
        "addresses='24;' types='6;'\n"
        "Type id='105' combiner='MPI_COMBINER_RESIZED' name='' addresses='-4;32;' "
        "types='101;'\n"
        "Type id='106' combiner='MPI_COMBINER_INDEXED' name='' integers='2;3;1;0;7;' "
        "types='6;'\n"
        "Type id='107' combiner='MPI_COMBINER_HINDEXED' name='' integers='2;3;1;' "
        "addresses='0;56;' types='6;'\n"
        "Type id='108' combiner='MPI_COMBINER_INDEXED_BLOCK' name='' integers='3;2;0;4;9;' "
        "types='17;'\n"
        "Type id='109' combiner='MPI_COMBINER_HINDEXED_BLOCK' name='' integers='2;4;' "
        "addresses='0;100;' types='6;'\n"
        "Type id='110' combiner='MPI_COMBINER_STRUCT' name='s &amp; t' integers='2;4;5;' "
        "addresses='6;7;' types='6;17;'\n"
        "Type id='111' combiner='MPI_COMBINER_STRUCT_INTEGER' name='' integers='1;2;' "
        "addresses='8;' types='110;'\n"
        "Type id='112' combiner='MPI_COMBINER_SUBARRAY' name='' "
        "integers='2;10;20;3;4;1;2;0;' types='17;'\n"
        "Type id='113' combiner='MPI_COMBINER_DARRAY' name='' "
        "integers='4;3;2;16;8;0;1;-1;2;2;2;1;' types='6;'\n"
        "Type id='114' combiner='MPI_COMBINER_HINDEXED_INTEGER' name='' integers='1;2;' "
        "addresses='16;' types='6;'\n");
    const MergeError refused = mergeError(run);
    EXPECT_NE(std::string(refused.what())
                  .find("app_h_0_0.info:5: rank 0: <DUP id='100'>: the "
                        "PIOsim tools know no datatype element of this "
                        "name (they refuse the whole project)"),
              std::string::npos)
        << refused.what();
    EXPECT_NE(std::string(refused.what())
                  .find("<HVECTOR id='103'>: the PIOsim tools read this "
                        "element as a placeholder of size 0"),
              std::string::npos)
        << refused.what();
    EXPECT_FALSE(run.exists("app.proj"));
    const MergeResult result = mergeDirectory(run, true);
    // One warning per type the tools cannot read: all but the NAMED,
    // CONTIGUOUS, VECTOR, STRUCT and SUBARRAY elements.
    EXPECT_EQ(result.warnings.size(), 11u);
    EXPECT_EQ(typesOfRank(run.file("app.proj"), 0),
              (std::vector<std::string>{
                  "NAMED id=6 name=MPI_INT",
                  "NAMED id=17 name=MPI_DOUBLE",
                  "DUP id=100 name= oldType=6",
                  "CONTIGUOUS count=4 id=101 name=c oldType=6",
                  "VECTOR blocklength=2 count=3 id=102 name= oldType=17 stride=5",
                  "HVECTOR blocklength=2 count=3 id=103 name= oldType=17 stride=80",
                  "HVECTOR_INTEGER blocklength=1 count=2 id=104 name= oldType=6 stride=24",
                  "RESIZED extend=32 id=105 lowerBound=-4 name= oldType=101",
                  "INDEXED count=2 id=106 name= oldType=6",
                  "  BLOCK index=0 len=3",
                  "  BLOCK index=7 len=1",
                  "HINDEXED count=2 id=107 name= oldType=6",
                  "  BLOCK index=0 len=3",
                  "  BLOCK index=56 len=1",
                  "INDEXED_BLOCK blockLength=2 count=3 id=108 name= oldType=17",
                  "  Block displacement=0",
                  "  Block displacement=4",
                  "  Block displacement=9",
                  "HINDEXED_BLOCK blockLength=4 count=2 id=109 name= oldType=6",
                  "  Block displacement=0",
                  "  Block displacement=100",
                  "STRUCT count=2 id=110 name=s & t",
                  "  Type blocklen=4 displacement=6 id=6",
                  "  Type blocklen=5 displacement=7 id=17",
                  "STRUCT_INTEGER count=1 id=111 name=",
                  "  Type blocklen=2 displacement=8 id=110",
                  "SUBARRAY count=2 id=112 name= ndims=2 oldType=17 order=MPI_ORDER_C",
                  "  Dimension size=10 start=1 subsize=3",
                  "  Dimension size=20 start=2 subsize=4",
                  "DARRAY dims=2 id=113 name= oldType=6 order=MPI_ORDER_FORTRAN rank=3 size=4",
                  "  Dimension darg=MPI_DISTRIBUTE_DFLT_DARG distrib=MPI_DISTRIBUTE_BLOCK "
                  "gsize=16 psize=2",
                  "  Dimension darg=2 distrib=MPI_DISTRIBUTE_CYCLIC gsize=8 psize=2",
                  "HINDEXED_INTEGER count=1 id=114 name= oldType=6",
                  "  BLOCK index=16 len=2",
              }));
}

TEST(Datatypes, ConstantsComeFromTheMpiLine) {
    // MPICH's values, which differ from Open MPI's.
    RunDirectory run;
    runWith(run,
            "Type id='1275069445' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
            "Type id='-1946157050' combiner='MPI_COMBINER_SUBARRAY' name='' "
            "integers='1;10;5;0;57;' types='1275069445;'\n"
            "Type id='-1946157049' combiner='MPI_COMBINER_DARRAY' name='' "
            "integers='2;0;1;10;123;-49767;2;56;' types='1275069445;'\n",
            "Mpi library='MPICH 4.0' order_c=56 order_fortran=57 distribute_block=121 "
            "distribute_cyclic=122 distribute_none=123 distribute_dflt_darg=-49767\n");
    const MergeResult result = mergeDirectory(run, true);
    ASSERT_EQ(result.warnings.size(), 1u);  // the DARRAY element, which the tools refuse
    EXPECT_NE(result.warnings[0].find("<DARRAY id='-1946157049'>"), std::string::npos);
    const auto types = typesOfRank(result.outputPath, 0);
    ASSERT_EQ(types.size(), 5u);
    EXPECT_EQ(types[1],
              "SUBARRAY count=1 id=-1946157050 name= ndims=1 oldType=1275069445 "
              "order=MPI_ORDER_FORTRAN");
    EXPECT_EQ(types[3],
              "DARRAY dims=1 id=-1946157049 name= oldType=1275069445 order=MPI_ORDER_C rank=0 "
              "size=2");
    EXPECT_EQ(types[4],
              "  Dimension darg=MPI_DISTRIBUTE_DFLT_DARG distrib=MPI_DISTRIBUTE_NONE gsize=10 "
              "psize=2");
}

TEST(Datatypes, WithoutAnMpiLineOpenMpisValuesAreUsedWithOneWarning) {
    RunDirectory run;
    for (int rank = 0; rank < 2; ++rank)
        run.addTrace("app", "h", rank, 0,
                     "Comm map='0..1->0..1;' id=0 name='WORLD'\n"
                     "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
                     "Type id='200' combiner='MPI_COMBINER_SUBARRAY' name='' "
                     "integers='1;4;2;1;1;' types='6;'\n");
    const MergeResult result = mergeDirectory(run);
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("app_h_0_0.info: no 'Mpi library=' line"), std::string::npos)
        << result.warnings[0];
    for (int rank = 0; rank < 2; ++rank)
        EXPECT_EQ(typesOfRank(result.outputPath, rank)[1],
                  "SUBARRAY count=1 id=200 name= ndims=1 oldType=6 order=MPI_ORDER_FORTRAN");
}

TEST(Datatypes, OneRankElementPerRankWithTheThreadsTypesOnce) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 standardHeader(0, 2) +
                     "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
                     "Type id='300' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='2;' "
                     "types='6;'\n");
    // Thread 1 repeats MPI_INT and builds on type 301, which thread 2 wrote.
    run.addTrace("app", "h", 0, 1,
                 "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
                 "Type id='302' combiner='MPI_COMBINER_VECTOR' name='' integers='2;1;2;' "
                 "types='301;'\n");
    run.addTrace("app", "h", 0, 2,
                 "Type id='301' combiner='MPI_COMBINER_DUP' name='' types='300;'\n");
    run.addTrace("app", "h", 1, 0, standardHeader(1, 2));
    const MergeResult result = mergeDirectory(run, true);  // the older trace's DUP element
    ProjectXml project(result.outputPath);
    const auto ranks = project.elements("/Application/Datatypes/Rank");
    ASSERT_EQ(ranks.size(), 2u);
    EXPECT_EQ(ranks[0].at("name"), "0");
    EXPECT_EQ(ranks[1].at("name"), "1");
    EXPECT_EQ(ranks[0].size(), 1u) << "only the name attribute";
    EXPECT_EQ(typesOfRank(result.outputPath, 0),
              (std::vector<std::string>{
                  "NAMED id=6 name=MPI_INT",
                  "CONTIGUOUS count=2 id=300 name= oldType=6",
                  "DUP id=301 name= oldType=300",
                  "VECTOR blocklength=1 count=2 id=302 name= oldType=301 stride=2",
              }));
    EXPECT_TRUE(typesOfRank(result.outputPath, 1).empty());
}

TEST(Datatypes, BadTypeLinesAreErrorsWithFileAndLine) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"Type id='400' combiner='MPI_COMBINER_VECTOR' name='' integers='1;1;1;' types='99;'",
         "Type line: type id=400 references undefined type id 99"},
        {"Type id='400' combiner='MPI_COMBINER_VECTOR' name='' integers='1;1;' types='6;'",
         "Type line: type id=400: MPI_COMBINER_VECTOR here needs 3 integers, 0 addresses, "
         "1 type; the line has 2 integers, 0 addresses, 1 type"},
        {"Type id='400' combiner='MPI_COMBINER_STRUCT' name='' integers='2;1;1;' addresses='0;' "
         "types='6;6;'",
         "Type line: type id=400: MPI_COMBINER_STRUCT here needs 3 integers, 2 addresses, "
         "2 types; the line has 3 integers, 1 address, 2 types"},
        {"Type id='400' combiner='MPI_COMBINER_SUBARRAY' name='' integers='1;4;2;1;7;' "
         "types='6;'",
         "Type line: type id=400: order 7 is neither MPI_ORDER_C (0) nor MPI_ORDER_FORTRAN (1) "
         "of Open MPI v4.1.4, package: Debian OpenMPI"},
        // A DARRAY of one dimension with distribution 9: without MPI's
        // figures (the Appendix B element), and with them and a measured old
        // type (the tools' form).
        {"Type id='400' combiner='MPI_COMBINER_DARRAY' name='' integers='1;0;1;8;9;-1;1;0;' "
         "types='6;'",
         "Type line: type id=400: distrib 9 is none of MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE of "
         "Open MPI v4.1.4"},
        {"Type id='400' combiner='MPI_COMBINER_DARRAY' name='' integers='1;0;1;8;9;-1;1;0;' "
         "types='7;' size='8' lb='0' extent='8'\n"
         "Type id='7' combiner='MPI_COMBINER_NAMED' name='MPI_CHAR' size='1' extent='1'",
         "Type line: type id=400: distrib 9 is none of MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE of "
         "Open MPI v4.1.4"},
        {"Type id='400' combiner='MPI_COMBINER_WHATEVER' name=''",
         "Type line: type id=400: unknown combiner MPI_COMBINER_WHATEVER"},
        {"Type id='400' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='1;' types='400;'",
         "Type line: type id=400 references itself through type id 400"},
        {"Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_FLOAT'",
         "Type line: type id=6 is defined differently at "},
    };
    for (const auto &[line, message] : cases) {
        RunDirectory run;
        runWith(run, "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n" + line + "\n");
        const MergeError error = mergeError(run);
        EXPECT_EQ(error.file(), run.file("app_h_0_0.info")) << line;
        EXPECT_EQ(error.line(), 4u) << line;
        EXPECT_EQ(error.detail().substr(0, message.size()), message) << line;
        EXPECT_FALSE(run.exists("app.proj"));
    }
}

TEST(Datatypes, ForceDropsABadTypeAndTheTypesBuiltOnIt) {
    RunDirectory run;
    runWith(run,
            "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n"
            "Type id='500' combiner='MPI_COMBINER_VECTOR' name='' integers='1;1;1;' types='99;'\n"
            "Type id='501' combiner='MPI_COMBINER_DUP' name='' types='500;'\n"
            "Type id='502' combiner='MPI_COMBINER_DUP' name='' types='6;' size='4' lb='0' "
            "extent='4'\n");
    const MergeResult result = mergeDirectory(run, true);
    ASSERT_EQ(result.warnings.size(), 2u);
    EXPECT_NE(result.warnings[0].find("app_h_0_0.info:4: Type line: type id=500 references "
                                      "undefined type id 99; dropped type id=500"),
              std::string::npos)
        << result.warnings[0];
    EXPECT_NE(result.warnings[1].find("app_h_0_0.info:5: Type line: type id=501 references the "
                                      "dropped type id 500; dropped type id=501"),
              std::string::npos)
        << result.warnings[1];
    EXPECT_EQ(typesOfRank(result.outputPath, 0),
              (std::vector<std::string>{
                  "NAMED id=6 name=MPI_INT",
                  "CONTIGUOUS addresses= combiner=DUP count=1 id=502 integers= mpiExtent=4 "
                  "mpiLb=0 mpiSize=4 name= oldType=6 types=6;"}));
}

TEST(Datatypes, TheArgumentArraysAreWrittenAsTheLineHasThem) {
    RunDirectory run;
    runWith(run,
            "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n"
            "Type id='510' combiner='MPI_COMBINER_STRUCT' name='' integers='2;1;1000000;' "
            "addresses='-1000;0;' types='6;6;' size='4000004' lb='-1000' extent='4001000'\n");
    const MergeResult result = mergeDirectory(run);
    std::string own;  // the type's own element
    for (const std::string &type : typesOfRank(result.outputPath, 0))
        if (type.find(" id=510 ") != std::string::npos) own = type;
    EXPECT_NE(own.find(" integers=2;1;1000000; "), std::string::npos) << own;
    EXPECT_NE(own.find(" addresses=-1000;0; "), std::string::npos) << own;
    EXPECT_NE(own.find(" types=6;6;"), std::string::npos) << own;
    EXPECT_NE(own.find(" mpiLb=-1000 "), std::string::npos) << own;
}

}  // namespace
}  // namespace hdtrace::merger::testing
