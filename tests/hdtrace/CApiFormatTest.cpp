// The C API's choice of form: hdT_createTraceInFormat writes XML or compact
// traces, hdT_createTrace follows HDTRACE_FORMAT as the wrapper does, and an
// unknown form is refused (an argument) or warned about (the environment).
// A compact trace written through the C API is read back through the
// reader's conversion to XML, and every value is compared with what the
// program gave.
#include <errno.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/hdTrace.h>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::Element;
using test::parseTime;
using test::parseXmlFile;
using test::readFile;
using test::ScratchDirectory;

const char *const kLevels[] = {"host", "0", "0"};

std::string basePathIn(const ScratchDirectory &directory) {
    return directory.path() + "/capi_host_0_0";
}

std::vector<std::string> filesIn(const ScratchDirectory &directory) {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(directory.path()))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Sets HDTRACE_FORMAT for the scope of a test (unset: nullptr).
class FormatVariable {
  public:
    explicit FormatVariable(const char *value) {
        if (value)
            setenv("HDTRACE_FORMAT", value, 1);
        else
            unsetenv("HDTRACE_FORMAT");
    }
    ~FormatVariable() { unsetenv("HDTRACE_FORMAT"); }
};

// The calls of one program, the same in both forms: typed attributes,
// text the typed coding cannot hold (double quotes, a leading zero, a
// number past 64 bits), child elements, a nested state, a disabled one.
void writeStates(hdTrace trace) {
    ASSERT_EQ(hdT_writeInfo(trace, "File name=\"%s\" Size=%d id=%d\n", "data.bin", 16, 3), 0);
    ASSERT_EQ(hdT_setNestedDepth(trace, 1), 0);
    for (int step = 0; step < 3; ++step) {
        ASSERT_EQ(hdT_logStateStart(trace, "Compute"), 0);
        ASSERT_EQ(hdT_logAttributes(trace, "step='%d' size='%lld'", step, (1LL << 40) + step), 0);
        ASSERT_EQ(hdT_logStateStart(trace, "Inner"), 0);
        ASSERT_EQ(hdT_logAttributes(trace, "depth='1' label='a &amp; b'"), 0);
        ASSERT_EQ(hdT_logStateEnd(trace), 0);
        ASSERT_EQ(hdT_logElement(trace, "Data", "offset='%d' count='-%d'", 64 * step, step), 0);
        ASSERT_EQ(hdT_logElement(trace, "Marker", nullptr), 0);
        ASSERT_EQ(hdT_logStateEnd(trace), 0);
    }
    ASSERT_EQ(hdT_logStateStart(trace, "Raw"), 0);
    ASSERT_EQ(hdT_logAttributes(trace, "quoted=\"q\" padded='007' huge='99999999999999999999'"), 0);
    ASSERT_EQ(hdT_logStateEnd(trace), 0);
    ASSERT_EQ(hdT_disableTrace(trace), 0);
    ASSERT_EQ(hdT_logStateStart(trace, "Hidden"), 0);
    ASSERT_EQ(hdT_logStateEnd(trace), 0);
    ASSERT_EQ(hdT_enableTrace(trace), 0);
    ASSERT_EQ(hdT_finalize(trace), 0);
}

using Attributes = std::vector<std::pair<std::string, std::string>>;

// The attributes but time and end, which are checked on their own.
Attributes givenAttributes(const Element &element) {
    Attributes given;
    for (const auto &attribute : element.attributes)
        if (attribute.first != "time" && attribute.first != "end") given.push_back(attribute);
    return given;
}

// Every value of the XML form of writeStates' trace.
void expectEveryValue(const Element &root) {
    ASSERT_EQ(root.name, "Program");
    ASSERT_EQ(root.children.size(), 7u);  // 3 x (<Nested>, Compute), Raw
    long long previousEnd = 0;
    for (int step = 0; step < 3; ++step) {
        const Element &nested = root.children[2 * step];
        const Element &compute = root.children[2 * step + 1];
        ASSERT_EQ(nested.name, "Nested");
        ASSERT_EQ(nested.children.size(), 1u);
        const Element &inner = nested.children[0];
        EXPECT_EQ(inner.name, "Inner");
        EXPECT_EQ(givenAttributes(inner), (Attributes{{"depth", "1"}, {"label", "a & b"}}));
        EXPECT_EQ(compute.name, "Compute");
        EXPECT_EQ(givenAttributes(compute),
                  (Attributes{{"step", std::to_string(step)},
                              {"size", std::to_string((1LL << 40) + step)}}));
        ASSERT_EQ(compute.children.size(), 2u);
        EXPECT_EQ(compute.children[0].name, "Data");
        EXPECT_EQ(compute.children[0].attributes,
                  (Attributes{{"offset", std::to_string(64 * step)},
                              {"count", "-" + std::to_string(step)}}));
        EXPECT_EQ(compute.children[1].name, "Marker");
        EXPECT_TRUE(compute.children[1].attributes.empty());
        // The times as taken: the nested state inside its caller, calls in order.
        const long long start = parseTime(compute.attribute("time"));
        const long long end = parseTime(compute.attribute("end"));
        EXPECT_LE(previousEnd, start);
        EXPECT_LE(start, parseTime(inner.attribute("time")));
        EXPECT_LE(parseTime(inner.attribute("time")), parseTime(inner.attribute("end")));
        EXPECT_LE(parseTime(inner.attribute("end")), end);
        previousEnd = end;
    }
    const Element &raw = root.children[6];
    EXPECT_EQ(raw.name, "Raw");
    EXPECT_EQ(givenAttributes(raw),
              (Attributes{{"quoted", "q"}, {"padded", "007"}, {"huge", "99999999999999999999"}}));
    EXPECT_LE(previousEnd, parseTime(raw.attribute("time")));
}

// The text with every time value and the timeAdjustment made the same, so
// that two traces of the same calls taken at other times compare equal.
std::string withoutTimes(const std::string &text) {
    static const std::regex times("(time|end|timeAdjustment)='[-0-9.]*'");
    return std::regex_replace(text, times, "$1='T'");
}

TEST(CApiFormat, WritesEitherFormWithEveryValue) {
    ScratchDirectory xmlDirectory, compactDirectory;
    const FormatVariable other("xml");  // the argument wins over the environment
    hdTrace xml =
        hdT_createTraceInFormat(xmlDirectory.path().c_str(), "capi", 3, kLevels, HDT_FORMAT_XML);
    ASSERT_TRUE(xml);
    writeStates(xml);
    hdTrace compact = hdT_createTraceInFormat(compactDirectory.path().c_str(), "capi", 3, kLevels,
                                              HDT_FORMAT_COMPACT);
    ASSERT_TRUE(compact);
    writeStates(compact);

    EXPECT_EQ(filesIn(xmlDirectory),
              (std::vector<std::string>{"capi_host_0_0.info", "capi_host_0_0.trc"}));
    EXPECT_EQ(filesIn(compactDirectory),
              (std::vector<std::string>{"capi_host_0_0.ctrc", "capi_host_0_0.info"}));
    const std::string base = basePathIn(compactDirectory);
    EXPECT_EQ(reader::traceFormOf(base + ".ctrc"), reader::TraceForm::Compact);
    EXPECT_EQ(readFile(base + ".info"), "File name=\"data.bin\" Size=16 id=3\n");
    EXPECT_EQ(readFile(base + ".info"), readFile(basePathIn(xmlDirectory) + ".info"));

    reader::convertTrace(base + ".ctrc", base + ".trc", reader::TraceForm::Xml);
    const std::string fromCompact = readFile(base + ".trc");
    const std::string written = readFile(basePathIn(xmlDirectory) + ".trc");
    {
        SCOPED_TRACE("XML form");
        expectEveryValue(parseXmlFile(basePathIn(xmlDirectory) + ".trc"));
    }
    {
        SCOPED_TRACE("compact form, read back as XML");
        expectEveryValue(parseXmlFile(base + ".trc"));
    }
    // Byte for byte the XML trace but for the times, which were taken apart.
    EXPECT_EQ(withoutTimes(fromCompact), withoutTimes(written));
    EXPECT_EQ(fromCompact.find("Hidden"), std::string::npos);
}

TEST(CApiFormat, CreateTraceFollowsTheEnvironment) {
    struct Case {
        const char *variable;
        hdT_Format format;
        const char *suffix;
    };
    const Case cases[] = {
        {nullptr, HDT_FORMAT_DEFAULT, ".trc"},    {"xml", HDT_FORMAT_DEFAULT, ".trc"},
        {"compact", HDT_FORMAT_DEFAULT, ".ctrc"}, {"COMPACT", HDT_FORMAT_DEFAULT, ".ctrc"},
        {"Xml", HDT_FORMAT_DEFAULT, ".trc"},      {"compact", HDT_FORMAT_XML, ".trc"},
        {nullptr, HDT_FORMAT_COMPACT, ".ctrc"},
    };
    for (const Case &test : cases) {
        SCOPED_TRACE(std::string("HDTRACE_FORMAT=") + (test.variable ? test.variable : "(unset)") +
                     ", format " + std::to_string(test.format));
        const FormatVariable variable(test.variable);
        ScratchDirectory directory;
        hdTrace trace = test.format == HDT_FORMAT_DEFAULT
                            ? hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels)
                            : hdT_createTraceInFormat(directory.path().c_str(), "capi", 3, kLevels,
                                                      test.format);
        ASSERT_TRUE(trace);
        ASSERT_EQ(hdT_logStateStart(trace, "Step"), 0);
        ASSERT_EQ(hdT_logAttributes(trace, "n='%d'", 5), 0);
        ASSERT_EQ(hdT_logStateEnd(trace), 0);
        ASSERT_EQ(hdT_finalize(trace), 0);
        const std::string path = basePathIn(directory) + test.suffix;
        std::vector<std::string> expected{"capi_host_0_0.info",
                                          "capi_host_0_0" + std::string(test.suffix)};
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(filesIn(directory), expected);
        const bool compact = std::string(test.suffix) == ".ctrc";
        EXPECT_EQ(reader::traceFormOf(path),
                  compact ? reader::TraceForm::Compact : reader::TraceForm::Xml);
        std::string xmlPath = path;
        if (compact) {
            xmlPath = basePathIn(directory) + ".trc";
            reader::convertTrace(path, xmlPath, reader::TraceForm::Xml);
        }
        const Element root = parseXmlFile(xmlPath);
        ASSERT_EQ(root.children.size(), 1u);
        EXPECT_EQ(root.children[0].name, "Step");
        EXPECT_EQ(givenAttributes(root.children[0]), (Attributes{{"n", "5"}}));
    }
}

TEST(CApiFormat, UnknownFormsAreRefusedOrWarnedAbout) {
    ScratchDirectory directory;
    const FormatVariable unset(nullptr);
    for (int wrong : {-1, 3, 100}) {
        errno = 0;
        EXPECT_EQ(hdT_createTraceInFormat(directory.path().c_str(), "capi", 3, kLevels,
                                          static_cast<hdT_Format>(wrong)),
                  nullptr);
        EXPECT_EQ(errno, EINVAL) << wrong;
    }
    EXPECT_EQ(
        hdT_createTraceInFormat(directory.path().c_str(), nullptr, 0, nullptr, HDT_FORMAT_COMPACT),
        nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_TRUE(filesIn(directory).empty());

    // The environment's unknown form: XML, with one warning (as the wrapper).
    const FormatVariable binary("binary");
    testing::internal::CaptureStderr();
    hdTrace first = hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels);
    const char *const otherLevels[] = {"host", "1", "0"};
    hdTrace second = hdT_createTrace(directory.path().c_str(), "capi", 3, otherLevels);
    const std::string warnings = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(first && second);
    EXPECT_EQ(warnings,
              "hdtrace: warning: HDTRACE_FORMAT='binary' is not xml or compact; using xml\n");
    EXPECT_EQ(hdT_finalize(first), 0);
    EXPECT_EQ(hdT_finalize(second), 0);
    EXPECT_EQ(filesIn(directory),
              (std::vector<std::string>{"capi_host_0_0.info", "capi_host_0_0.trc",
                                        "capi_host_1_0.info", "capi_host_1_0.trc"}));
}

TEST(CApiFormat, TheCompactLevelComesFromTheEnvironment) {
    // HDTRACE_COMPACT_LEVEL=0: frames stored as they are; a text that is no
    // level: level 1, with one warning. Either way the states read back.
    const FormatVariable compact("compact");
    for (const char *level : {"0", "3", "fast"}) {
        SCOPED_TRACE(level);
        ScratchDirectory directory;
        setenv("HDTRACE_COMPACT_LEVEL", level, 1);
        testing::internal::CaptureStderr();
        hdTrace trace = hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels);
        const std::string warnings = testing::internal::GetCapturedStderr();
        unsetenv("HDTRACE_COMPACT_LEVEL");
        ASSERT_TRUE(trace);
        for (int step = 0; step < 200; ++step) {
            ASSERT_EQ(hdT_logStateStart(trace, "Step"), 0);
            ASSERT_EQ(hdT_logAttributes(trace, "n='%d'", step % 4), 0);
            ASSERT_EQ(hdT_logStateEnd(trace), 0);
        }
        ASSERT_EQ(hdT_finalize(trace), 0);
        const std::string path = basePathIn(directory) + ".ctrc";
        reader::FrameFile file(path);
        ASSERT_EQ(file.frames().size(), 1u);
        const reader::FrameInfo &frame = file.frames()[0];
        if (std::string(level) == "0")
            EXPECT_EQ(frame.storedBytes, frame.rawBytes);
        else
            EXPECT_LT(frame.storedBytes, frame.rawBytes);
        EXPECT_EQ(warnings, std::string(level) == "fast"
                                ? "hdtrace: warning: HDTRACE_COMPACT_LEVEL='fast' is not a zstd "
                                  "level nor 0; using 1\n"
                                : "");
        const std::string xmlPath = basePathIn(directory) + ".trc";
        reader::convertTrace(path, xmlPath, reader::TraceForm::Xml);
        const Element root = parseXmlFile(xmlPath);
        ASSERT_EQ(root.children.size(), 200u);
        for (size_t step = 0; step < root.children.size(); ++step)
            EXPECT_EQ(root.children[step].attribute("n"), std::to_string(step % 4));
    }
}

}  // namespace
}  // namespace hdtrace
