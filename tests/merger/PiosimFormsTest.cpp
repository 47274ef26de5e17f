// Datatypes with MPI's figures: every combiner is written in the forms the
// PIOsim tools read in full, and the tools' own arithmetic on the written
// elements gives the size and extent MPI reported.
#include <cstdint>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/PiosimTypes.hpp>

#include "MergerTestSupport.hpp"

namespace hdtrace::merger::testing {
namespace {

// What the tools compute for a type. Their VECTOR extent has been written
// two ways (old extent x stride x count; old extent x stride x block
// length): both are followed, and a written type must be right under both.
struct ToolsType {
    int64_t size = 0;
    int64_t extent = 0;
    int64_t otherExtent = 0;
};

int64_t number(const Attributes &attributes, const std::string &name) {
    const auto found = attributes.find(name);
    if (found == attributes.end()) {
        ADD_FAILURE() << "no " << name << " attribute";
        return 0;
    }
    return std::stoll(found->second);
}

// The tools' reading of one rank's <Datatypes>, by id; fails the test on an
// element they do not read in full or a reference to an undefined id.
std::map<std::string, ToolsType> readAsTheTools(const std::string &projectPath, int rank) {
    ProjectXml project(projectPath);
    const std::string rankPath =
        "/Application/Datatypes/Rank[@name='" + std::to_string(rank) + "']";
    std::map<std::string, ToolsType> types;
    const auto typeOf = [&](const std::string &id) {
        const auto found = types.find(id);
        if (found == types.end()) ADD_FAILURE() << "type " << id << " is not defined before use";
        return found == types.end() ? ToolsType{} : found->second;
    };
    const std::vector<std::string> tags = project.childTags(rankPath);
    for (size_t i = 0; i < tags.size(); ++i) {
        const std::string path = rankPath + "/*[" + std::to_string(i + 1) + "]";
        const Attributes attributes = project.elements(path).at(0);
        const std::string &tag = tags[i];
        ToolsType type;
        if (tag == "NAMED") {
            bool known = false;
            for (const PiosimNamedType &named : kPiosimNamedTypes)
                if (named.name == attributes.at("name")) {
                    type = {named.size, named.size, named.size};
                    known = true;
                }
            EXPECT_TRUE(known) << "the tools know no NAMED " << attributes.at("name");
        } else if (tag == "CONTIGUOUS") {
            const ToolsType old = typeOf(attributes.at("oldType"));
            const int64_t count = number(attributes, "count");
            EXPECT_GE(count, 1);
            type = {old.size * count, old.extent * count, old.otherExtent * count};
        } else if (tag == "VECTOR") {
            const ToolsType old = typeOf(attributes.at("oldType"));
            const int64_t count = number(attributes, "count");
            const int64_t blocklength = number(attributes, "blocklength");
            const int64_t stride = number(attributes, "stride");
            EXPECT_TRUE(count >= 1 && blocklength >= 1 && stride >= 1);
            type = {old.size * count * blocklength, old.extent * stride * count,
                    old.otherExtent * stride * blocklength};
        } else if (tag == "STRUCT") {
            for (const Attributes &child : project.elements(path + "/Type")) {
                const ToolsType old = typeOf(child.at("id"));
                const int64_t displacement = number(child, "displacement");
                const int64_t blocklen = number(child, "blocklen");
                type.size += old.size * blocklen;
                // The last child's end, not the largest.
                type.extent = displacement + blocklen * old.extent;
                type.otherExtent = displacement + blocklen * old.otherExtent;
            }
            EXPECT_EQ(project.childTags(path).size(), project.elements(path + "/Type").size())
                << "a STRUCT holds only <Type> children";
        } else if (tag == "SUBARRAY") {
            const ToolsType old = typeOf(attributes.at("oldType"));
            int64_t elements = 1, selected = 1;
            for (const Attributes &dimension : project.elements(path + "/Dimension")) {
                elements *= number(dimension, "size");
                selected *= number(dimension, "subsize");
            }
            type = {old.size * selected, old.extent * elements, old.otherExtent * elements};
        } else {
            ADD_FAILURE() << "<" << tag << "> is not read in full by the tools";
        }
        types[attributes.at("id")] = type;
    }
    return types;
}

struct Expected {
    std::string id;
    int64_t size;
    int64_t lowerBound;
    int64_t extent;
};

// Named types with their sizes, then one derived type per case with the
// figures MPI gives for it (computed by the MPI standard's rules).
const char *const kNamed =
    "Type id='1' combiner='MPI_COMBINER_NAMED' name='MPI_BYTE' size='1' extent='1'\n"
    "Type id='2' combiner='MPI_COMBINER_NAMED' name='MPI_CHAR' size='1' extent='1'\n"
    "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n"
    "Type id='17' combiner='MPI_COMBINER_NAMED' name='MPI_DOUBLE' size='8' extent='8'\n";

const std::vector<std::pair<std::string, Expected>> kCases = {
    {"combiner='MPI_COMBINER_DUP' integers='' addresses='' types='6;'", {"", 4, 0, 4}},
    {"combiner='MPI_COMBINER_CONTIGUOUS' integers='4;' types='6;'", {"", 16, 0, 16}},
    {"combiner='MPI_COMBINER_CONTIGUOUS' integers='0;' types='6;'", {"", 0, 0, 0}},
    {"combiner='MPI_COMBINER_VECTOR' integers='3;2;5;' types='17;'", {"", 48, 0, 96}},
    {"combiner='MPI_COMBINER_VECTOR' integers='4;1;1;' types='6;'", {"", 16, 0, 16}},
    {"combiner='MPI_COMBINER_HVECTOR' integers='3;2;' addresses='80;' types='17;'",
     {"", 48, 0, 176}},
    {"combiner='MPI_COMBINER_HVECTOR' integers='2;1;' addresses='6;' types='6;'", {"", 8, 0, 10}},
    {"combiner='MPI_COMBINER_HVECTOR' integers='5;1;' addresses='6;' types='6;'", {"", 20, 0, 28}},
    {"combiner='MPI_COMBINER_HVECTOR' integers='3;1;' addresses='-8;' types='6;'",
     {"", 12, -16, 20}},
    {"combiner='MPI_COMBINER_INDEXED' integers='2;3;1;0;7;' types='6;'", {"", 16, 0, 32}},
    {"combiner='MPI_COMBINER_INDEXED' integers='3;2;2;2;0;5;10;' types='6;'", {"", 24, 0, 48}},
    {"combiner='MPI_COMBINER_INDEXED' integers='3;2;2;2;1;6;11;' types='6;'", {"", 24, 4, 48}},
    {"combiner='MPI_COMBINER_HINDEXED' integers='2;3;1;' addresses='0;56;' types='6;'",
     {"", 16, 0, 60}},
    {"combiner='MPI_COMBINER_INDEXED_BLOCK' integers='3;2;0;4;9;' types='17;'", {"", 48, 0, 88}},
    {"combiner='MPI_COMBINER_HINDEXED_BLOCK' integers='2;4;' addresses='0;100;' types='6;'",
     {"", 32, 0, 116}},
    {"combiner='MPI_COMBINER_HINDEXED_BLOCK' integers='2;4;' addresses='40;100;' types='6;'",
     {"", 32, 40, 76}},
    // {int at 0, 2 doubles at 8, char at 24}: the alignment padding gives 32.
    {"combiner='MPI_COMBINER_STRUCT' integers='3;1;2;1;' addresses='0;8;24;' types='6;17;2;'",
     {"", 21, 0, 32}},
    {"combiner='MPI_COMBINER_RESIZED' addresses='0;24;' types='6;'", {"", 4, 0, 24}},
    {"combiner='MPI_COMBINER_RESIZED' addresses='-4;32;' types='6;'", {"", 4, -4, 32}},
    {"combiner='MPI_COMBINER_RESIZED' addresses='8;2;' types='17;'", {"", 8, 8, 2}},
    {"combiner='MPI_COMBINER_SUBARRAY' integers='2;10;20;3;4;1;2;0;' types='17;'",
     {"", 96, 0, 1600}},
    {"combiner='MPI_COMBINER_SUBARRAY' integers='2;10;20;3;4;1;2;1;' types='17;'",
     {"", 96, 0, 1600}},
    // 4 processes, rank 3 (grid 2x2, coordinates 1,1): 16 rows BLOCK, 8
    // columns CYCLIC(2); Fortran order.
    {"combiner='MPI_COMBINER_DARRAY' integers='4;3;2;16;8;0;1;-1;2;2;2;1;' types='6;'",
     {"", 128, 0, 512}},
    {"combiner='MPI_COMBINER_DARRAY' integers='4;3;2;16;8;0;1;-1;2;2;2;0;' types='6;'",
     {"", 128, 0, 512}},
    // 10 elements BLOCK over 4 processes, rank 1: elements 3..5.
    {"combiner='MPI_COMBINER_DARRAY' integers='4;1;1;10;0;-1;4;0;' types='6;'", {"", 12, 0, 40}},
    // CYCLIC(3) over 2 processes of 10 elements, rank 1: 3..5 and 9.
    {"combiner='MPI_COMBINER_DARRAY' integers='2;1;1;10;1;3;2;0;' types='6;'", {"", 16, 0, 40}},
    {"combiner='MPI_COMBINER_F90_REAL' integers='6;30;'", {"", 4, 0, 4}},
};

std::string typeLine(int64_t id, const std::string &body, const Expected &figures) {
    return "Type id='" + std::to_string(id) + "' name='' " + body + " size='" +
           std::to_string(figures.size) + "' lb='" + std::to_string(figures.lowerBound) +
           "' extent='" + std::to_string(figures.extent) + "'\n";
}

TEST(PiosimForms, EveryCombinerLoadsWithMpisSizeAndExtent) {
    RunDirectory run;
    std::string lines = kNamed;
    std::vector<Expected> expected;
    int64_t id = 100;
    for (const auto &[body, figures] : kCases) {
        lines += typeLine(id, body, figures);
        expected.push_back({std::to_string(id), figures.size, figures.lowerBound, figures.extent});
        ++id;
    }
    // HDF5's kind: a resized vector of an indexed type.
    lines += typeLine(200, "combiner='MPI_COMBINER_INDEXED' integers='2;1;1;0;3;' types='6;'",
                      {"", 8, 0, 16});
    lines += typeLine(201, "combiner='MPI_COMBINER_VECTOR' integers='2;1;3;' types='200;'",
                      {"", 16, 0, 64});
    lines += typeLine(202, "combiner='MPI_COMBINER_RESIZED' addresses='0;200;' types='201;'",
                      {"", 16, 0, 200});
    expected.push_back({"200", 8, 0, 16});
    expected.push_back({"201", 16, 0, 64});
    expected.push_back({"202", 16, 0, 200});
    run.addTrace("app", "h", 0, 0,
                 std::string(kOpenMpiLine) + "Comm map='0->0;' id=0 name='WORLD'\n" + lines);
    const MergeResult result = mergeDirectory(run);
    EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();

    const std::map<std::string, ToolsType> tools = readAsTheTools(result.outputPath, 0);
    ProjectXml project(result.outputPath);
    for (const Expected &type : expected) {
        SCOPED_TRACE("type id=" + type.id);
        ASSERT_TRUE(tools.count(type.id));
        const ToolsType &read = tools.at(type.id);
        EXPECT_EQ(read.size, type.size);
        EXPECT_EQ(read.extent, type.extent);
        EXPECT_EQ(read.otherExtent, type.extent);
        // What our readers give back rides along.
        const auto element =
            project.elements("/Application/Datatypes/Rank[@name='0']/*[@id='" + type.id + "']");
        ASSERT_EQ(element.size(), 1u);
        EXPECT_EQ(element[0].at("mpiSize"), std::to_string(type.size));
        EXPECT_EQ(element[0].at("mpiLb"), std::to_string(type.lowerBound));
        EXPECT_EQ(element[0].at("mpiExtent"), std::to_string(type.extent));
        EXPECT_FALSE(element[0].at("combiner").empty());
        EXPECT_EQ(element[0].count("partOf"), 0u);
    }
}

TEST(PiosimForms, TheFormsOfTheCommonCombiners) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 std::string(kOpenMpiLine) + "Comm map='0->0;' id=0 name='WORLD'\n" + kNamed +
                     typeLine(100, "combiner='MPI_COMBINER_RESIZED' addresses='0;24;' types='6;'",
                              {"", 4, 0, 24}) +
                     typeLine(101,
                              "combiner='MPI_COMBINER_INDEXED' integers='3;2;2;2;0;5;10;' "
                              "types='6;'",
                              {"", 24, 0, 48}) +
                     typeLine(102, "combiner='MPI_COMBINER_DUP' types='6;'", {"", 4, 0, 4}));
    const MergeResult result = mergeDirectory(run);
    ProjectXml project(result.outputPath);
    const std::string rank = "/Application/Datatypes/Rank[@name='0']";
    // RESIZED: a STRUCT of the old type, closed by an UB marker at the extent.
    const auto ub = project.elements(rank + "/NAMED[@name='MPI_UB']");
    ASSERT_EQ(ub.size(), 1u);
    const auto resized = project.elements(rank + "/STRUCT[@id='100']/Type");
    ASSERT_EQ(resized.size(), 2u);
    EXPECT_EQ(resized[0].at("id"), "6");
    EXPECT_EQ(resized[1].at("id"), ub[0].at("id"));
    EXPECT_EQ(resized[1].at("displacement"), "24");
    EXPECT_EQ(project.elements(rank + "/STRUCT[@id='100']").at(0).at("combiner"), "RESIZED");
    // INDEXED with equal blocks at equal distances: a VECTOR, wrapped into a
    // STRUCT that ends at its extent (the tools' VECTOR extent is not MPI's).
    const auto vector = project.elements(rank + "/VECTOR[@partOf='101']");
    ASSERT_EQ(vector.size(), 1u);
    EXPECT_EQ(vector[0].at("count"), "3");
    EXPECT_EQ(vector[0].at("blocklength"), "2");
    EXPECT_EQ(vector[0].at("stride"), "5");
    const auto indexed = project.elements(rank + "/STRUCT[@id='101']/Type");
    ASSERT_EQ(indexed.size(), 2u);
    EXPECT_EQ(indexed[0].at("id"), vector[0].at("id"));
    EXPECT_EQ(indexed[1].at("displacement"), "48");
    // DUP: a CONTIGUOUS of one.
    const auto dup = project.elements(rank + "/CONTIGUOUS[@id='102']");
    ASSERT_EQ(dup.size(), 1u);
    EXPECT_EQ(dup[0].at("count"), "1");
    EXPECT_EQ(dup[0].at("oldType"), "6");
    EXPECT_EQ(dup[0].at("combiner"), "DUP");
}

TEST(PiosimForms, ManyIrregularBlocksAreOneChildEach) {
    // An HINDEXED of irregular blocks: one STRUCT child each, the order of
    // the Appendix B form's BLOCK children (bench/merger measures a million).
    constexpr int kBlocks = 100000;
    std::string integers = std::to_string(kBlocks) + ";", addresses;
    int64_t offset = 0, size = 0;
    for (int i = 0; i < kBlocks; ++i) {
        const int length = 1 + i % 3;
        integers += std::to_string(length) + ";";
        addresses += std::to_string(offset) + ";";
        offset += 4 * length + 4 * (i % 2);
        size += 4 * length;
    }
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 std::string(kOpenMpiLine) + "Comm map='0->0;' id=0 name='WORLD'\n" + kNamed +
                     "Type id='100' name='' combiner='MPI_COMBINER_HINDEXED' integers='" +
                     integers + "' addresses='" + addresses + "' types='6;' size='" +
                     std::to_string(size) + "' lb='0' extent='" + std::to_string(offset) + "'\n");
    const MergeResult result = mergeDirectory(run);
    const std::map<std::string, ToolsType> tools = readAsTheTools(result.outputPath, 0);
    EXPECT_EQ(tools.at("100").size, size);
    EXPECT_EQ(tools.at("100").extent, offset);
}

TEST(PiosimForms, ATypeBeyondTheToolsIntegersFailsTheCheck) {
    RunDirectory run;
    run.addTrace("app", "h", 0, 0,
                 std::string(kOpenMpiLine) + "Comm map='0->0;' id=0 name='WORLD'\n" + kNamed +
                     typeLine(100,
                              "combiner='MPI_COMBINER_HVECTOR' integers='2;1;' "
                              "addresses='4294967296;' types='1;'",
                              {"", 2, 0, 4294967297}));
    const MergeError error = mergeError(run);
    EXPECT_NE(std::string(error.what())
                  .find("does not fit the 32-bit integers the PIOsim tools "
                        "read"),
              std::string::npos)
        << error.what();
    EXPECT_FALSE(run.exists("app.proj"));
}

}  // namespace
}  // namespace hdtrace::merger::testing
