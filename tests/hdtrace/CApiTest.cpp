// The C API of hdTrace.h: formatting, argument checks and errno, the close at
// exit, and fork safety.
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include <hdtrace/hdTrace.h>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::Element;
using test::parseXmlFile;
using test::readFile;
using test::ScratchDirectory;

const char *const kLevels[] = {"host", "0", "0"};

std::string tracePathIn(const ScratchDirectory &directory) {
    return directory.path() + "/capi_host_0_0.trc";
}

#define EXPECT_ERRNO(call, expectedErrno) \
    do {                                  \
        errno = 0;                        \
        EXPECT_EQ((call), -1);            \
        EXPECT_EQ(errno, expectedErrno);  \
    } while (0)

TEST(CApi, LogsStatesAttributesElementsAndInfo) {
    ScratchDirectory directory;
    hdTrace trace = hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels);
    ASSERT_TRUE(trace);
    EXPECT_EQ(hdT_writeInfo(trace, "File name=\"%s\" Size=%lld id=%d\n", "f", 12LL, 0), 0);
    EXPECT_EQ(hdT_logStateStart(trace, "File_write"), 0);
    EXPECT_EQ(hdT_logAttributes(trace, "fid='%d' offset='%lld'", 0, 1LL << 40), 0);
    EXPECT_EQ(hdT_logAttributes(trace, "size='%lld'", 8LL), 0);
    EXPECT_EQ(hdT_logElement(trace, "Data", "count='%d'", 2), 0);
    EXPECT_EQ(hdT_logElement(trace, "Marker", nullptr), 0);
    EXPECT_EQ(hdT_logStateEnd(trace), 0);
    EXPECT_EQ(hdT_isEnabled(trace), 1);
    EXPECT_EQ(hdT_finalize(trace), 0);

    EXPECT_EQ(readFile(directory.path() + "/capi_host_0_0.info"), "File name=\"f\" Size=12 id=0\n");
    Element root = parseXmlFile(tracePathIn(directory));
    ASSERT_EQ(root.children.size(), 1u);
    const Element &write = root.children[0];
    EXPECT_EQ(write.name, "File_write");
    EXPECT_EQ(write.attributeNames(),
              (std::vector<std::string>{"fid", "offset", "size", "time", "end"}));
    EXPECT_EQ(write.attribute("offset"), "1099511627776");
    ASSERT_EQ(write.children.size(), 2u);
    EXPECT_EQ(write.children[0].name, "Data");
    EXPECT_EQ(write.children[0].attribute("count"), "2");
    EXPECT_EQ(write.children[1].name, "Marker");
    EXPECT_TRUE(write.children[1].attributes.empty());
}

TEST(CApi, RejectsMisuseWithErrno) {
    EXPECT_EQ(hdT_createTrace(nullptr, nullptr, 0, nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(hdT_createTrace(nullptr, "p", 2, nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);

    EXPECT_ERRNO(hdT_logStateStart(nullptr, "X"), EINVAL);
    EXPECT_ERRNO(hdT_logStateEnd(nullptr), EINVAL);
    EXPECT_ERRNO(hdT_logAttributes(nullptr, "a='1'"), EINVAL);
    EXPECT_ERRNO(hdT_logElement(nullptr, "E", nullptr), EINVAL);
    EXPECT_ERRNO(hdT_writeInfo(nullptr, "x"), EINVAL);
    EXPECT_ERRNO(hdT_setNestedDepth(nullptr, 1), EINVAL);
    EXPECT_ERRNO(hdT_setForceFlush(nullptr, 1), EINVAL);
    EXPECT_ERRNO(hdT_enableTrace(nullptr), EINVAL);
    EXPECT_ERRNO(hdT_disableTrace(nullptr), EINVAL);
    EXPECT_ERRNO(hdT_isEnabled(nullptr), EINVAL);
    EXPECT_ERRNO(hdT_finalize(nullptr), EINVAL);

    ScratchDirectory directory;
    hdTrace trace = hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels);
    ASSERT_TRUE(trace);
    EXPECT_ERRNO(hdT_logStateEnd(trace), EPERM);
    EXPECT_ERRNO(hdT_logAttributes(trace, "a='1'"), EPERM);
    EXPECT_ERRNO(hdT_logElement(trace, "E", nullptr), EPERM);
    EXPECT_ERRNO(hdT_logStateStart(trace, nullptr), EINVAL);
    EXPECT_ERRNO(hdT_logStateStart(trace, "not a name"), EINVAL);
    EXPECT_ERRNO(hdT_logStateStart(trace, "1st"), EINVAL);
    EXPECT_ERRNO(hdT_setNestedDepth(trace, -1), EINVAL);
    EXPECT_ERRNO(hdT_setNestedDepth(trace, HD_LOG_MAX_DEPTH), EINVAL);
    EXPECT_EQ(hdT_setNestedDepth(trace, HD_LOG_MAX_DEPTH - 1), 0);
    for (int level = 0; level < HD_LOG_MAX_DEPTH; ++level) {
        ASSERT_EQ(hdT_logStateStart(trace, "Level"), 0);
    }
    EXPECT_ERRNO(hdT_logStateStart(trace, "Level"), EOVERFLOW);
    for (int level = 0; level < HD_LOG_MAX_DEPTH; ++level)
        ASSERT_EQ(hdT_logStateEnd(trace), 0);

    EXPECT_EQ(hdT_disableTrace(trace), 0);
    EXPECT_EQ(hdT_isEnabled(trace), 0);
    EXPECT_EQ(hdT_logStateStart(trace, "Hidden"), 0);
    EXPECT_EQ(hdT_logAttributes(trace, "a='1'"), 0);
    EXPECT_EQ(hdT_logStateEnd(trace), 0);
    EXPECT_EQ(hdT_enableTrace(trace), 0);

    EXPECT_EQ(hdT_finalize(trace), 0);
    EXPECT_ERRNO(hdT_logStateStart(trace, "Late"), EBADF);
    EXPECT_ERRNO(hdT_writeInfo(trace, "x"), EBADF);
    EXPECT_ERRNO(hdT_finalize(trace), EBADF);

    // Everything rejected left the trace untouched: one chain of 16 levels.
    Element root = parseXmlFile(tracePathIn(directory));
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[0].name, "Nested");
    EXPECT_EQ(root.children[1].name, "Level");
    EXPECT_EQ(readFile(tracePathIn(directory)).find("Hidden"), std::string::npos);
}

// Runs body in a child process that then calls exit(0), and returns its status.
template <typename Body>
int runInChild(Body body) {
    fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        body();
        exit(0);  // normal exit: atexit handlers run
    }
    int status = -1;
    waitpid(child, &status, 0);
    return status;
}

TEST(CApi, ClosesUnfinalizedTracesAtExit) {
    ScratchDirectory directory;
    const int status = runInChild([&] {
        hdTrace trace = hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels);
        for (int i = 0; i < 3; ++i) {
            hdT_logStateStart(trace, "Step");
            hdT_logAttributes(trace, "i='%d'", i);
            hdT_logStateEnd(trace);
        }
        hdT_logStateStart(trace, "Unfinished");
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    Element root = parseXmlFile(tracePathIn(directory));
    ASSERT_EQ(root.children.size(), 4u);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(root.children[i].attribute("i"), std::to_string(i));
    EXPECT_EQ(root.children[3].name, "Unfinished");
}

TEST(CApi, ForkedChildNeverWritesIntoTheParentsTrace) {
    ScratchDirectory directory;
    hdTrace trace = hdT_createTrace(directory.path().c_str(), "capi", 3, kLevels);
    ASSERT_TRUE(trace);
    hdT_logStateStart(trace, "BeforeFork");
    hdT_logStateEnd(trace);  // still in the buffer, which the child inherits
    const int status = runInChild([&] {
        hdT_logStateStart(trace, "InChild");
        hdT_logStateEnd(trace);
    });
    ASSERT_TRUE(WIFEXITED(status));
    hdT_logStateStart(trace, "AfterFork");
    hdT_logStateEnd(trace);
    ASSERT_EQ(hdT_finalize(trace), 0);

    Element root = parseXmlFile(tracePathIn(directory));
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[0].name, "BeforeFork");
    EXPECT_EQ(root.children[1].name, "AfterFork");
}

}  // namespace
}  // namespace hdtrace
