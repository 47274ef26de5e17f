// Failures the fuzz targets of tests/fuzz found in the reader, one test
// each; the inputs themselves are replayed from tests/fuzz/corpus.
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "SaxFileParser.hpp"
#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::TemporaryFile;

namespace {

// Takes the view of every value of a start tag before it uses any of them.
class ViewKeepingHandler : public SaxHandler {
  public:
    std::vector<std::string> values;
    void startElement(std::string_view, const AttributeList &attributes) override {
        std::vector<std::string_view> views;
        for (int i = 0; i < attributes.size(); ++i)
            views.push_back(attributes.value(i));
        for (std::string_view view : views)
            values.emplace_back(view);
    }
    void endElement(std::string_view) override {}
};

}  // namespace

// fuzz_trace, corpus/trace/regression-views-of-decoded-values.trc: the
// decoded values (those with '&amp;') lived in a vector whose growth freed
// the values decoded before (heap-use-after-free under AddressSanitizer).
TEST(FuzzRegressions, DecodedValuesOfOneTagStayValidTogether) {
    std::string tag = "<Call";
    std::vector<std::string> expected;
    for (int i = 0; i < 40; ++i) {
        tag += " a" + std::to_string(i) + "='" + std::to_string(i) + "&amp;x'";
        expected.push_back(std::to_string(i) + "&x");
    }
    TemporaryFile file("<?xml version='1.0'?>\n<Program>\n" + tag + "/>\n</Program>\n");
    ViewKeepingHandler handler;
    SaxFileParser parser(file.path(), handler);
    parser.parseAll();
    EXPECT_EQ(handler.values, expected);
}

// fuzz_trace: bytes an encoding declared in the prolog cannot convert made
// libxml2 print "encoding error : input conversion failed ..." and "I/O
// error : encoder error" to stderr, besides the reader's own error.
TEST(FuzzRegressions, AnUnconvertibleEncodingIsAReadErrorAndNothingOnStderr) {
    TemporaryFile file(
        "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?>\n<Program>\x1b\xff\xff\xff</Program>\n");
    ::testing::internal::CaptureStderr();
    bool refused = false;
    try {
        TraceReader reader(file.path());
        Event event;
        while (reader.next(event)) {
        }
    } catch (const ReadError &error) {
        refused = true;
        EXPECT_EQ(error.file(), file.path());
    }
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_TRUE(refused);
    EXPECT_EQ(printed, "");
}
