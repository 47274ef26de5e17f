// Conversions into a scratch file (ConversionTarget::Scratch): written in
// place, they give what a conversion under a temporary name and a rename
// gives, leave no other file, and leave nothing where they fail.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>

#include "TestFiles.hpp"
#include "WriterLayout.hpp"

namespace hdtrace::reader {
namespace {

const std::string kTrace =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='1700000000'>\n"
    "<Nested>\n"
    "  <pwrite fid='2' offset='0' asked='8' size='8' time='0.000005100' end='0.000005300'/>\n"
    "</Nested>\n"
    "<File_write_at fid='2' offset='0' size='8' count='8' tid='1' time='0.000005000' "
    "end='0.000006000'/>\n"
    "<Finalize time='0.000007000' end='0.000007250'/>\n"
    "</Program>\n";

// The names in path's directory.
std::vector<std::string> namesBeside(const std::string &path) {
    std::vector<std::string> names;
    for (const auto &entry :
         std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
        names.push_back(entry.path().filename().string());
    return names;
}

TEST(ScratchConversion, GivesWhatAReplacedTargetGetsAndNoOtherFile) {
    const testing::TemporaryFile xml(kTrace);
    const layout::ScratchFile compact(".ctrc"), backToXml(".trc");
    std::vector<uint32_t> scratchRecords, replacedRecords;
    convertTrace(xml.path(), compact.path(), TraceForm::Compact, 0, &scratchRecords,
                 ConversionTarget::Scratch);
    convertTrace(compact.path(), backToXml.path(), TraceForm::Xml, 0, nullptr,
                 ConversionTarget::Scratch);
    EXPECT_EQ(testing::fileText(backToXml.path()), kTrace);
    const std::vector<std::string> names = namesBeside(compact.path());
    EXPECT_EQ(names.size(), 2u) << "a temporary file was left beside the scratch files";

    const testing::TemporaryFile replaced("", ".ctrc");
    convertTrace(xml.path(), replaced.path(), TraceForm::Compact, 0, &replacedRecords);
    EXPECT_EQ(scratchRecords, replacedRecords);
    EXPECT_EQ(testing::fileText(compact.path()).size(), testing::fileText(replaced.path()).size());
}

TEST(ScratchConversion, LeavesNothingWhereItFails) {
    // Two calls on one line: not the writer's layout, so no compact form.
    std::string text = kTrace;
    text.replace(text.find("\n<Finalize"), 1, "");
    const testing::TemporaryFile xml(text);
    const layout::ScratchFile compact(".ctrc");
    EXPECT_THROW(convertTrace(xml.path(), compact.path(), TraceForm::Compact, 0, nullptr,
                              ConversionTarget::Scratch),
                 ReadError);
    EXPECT_FALSE(testing::pathExists(compact.path()));
    EXPECT_TRUE(namesBeside(compact.path()).empty());
}

}  // namespace
}  // namespace hdtrace::reader
