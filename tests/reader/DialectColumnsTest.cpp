// The dialect scanner (DialectColumns.cpp) against libxml2's reader
// (readEventColumnsWithLibxml2): equal columns on every trace, equal errors
// and equal partial reads on every damaged one. Where the trace is ours or
// the original implementation's, the scanner must read it itself (no fallback).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/reader/EventColumns.hpp>

#include "ColumnReaders.hpp"
#include "ColumnsComparison.hpp"
#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::compareReaders;
using hdtrace::reader::testing::TemporaryFile;

namespace {

std::vector<std::string> tracesIn(const std::string &directory) {
    std::vector<std::string> traces;
    if (DIR *dir = opendir(directory.c_str())) {
        while (dirent *entry = readdir(dir)) {
            std::string name = entry->d_name;
            if (name.size() > 4 && name.compare(name.size() - 4, 4, ".trc") == 0)
                traces.push_back(directory + "/" + name);
        }
        closedir(dir);
    }
    return traces;
}

// Both readers agree, and the scanner read the trace itself.
void expectScannerReads(const std::string &path, const TraceOptions &options = {},
                        const LocalToWorldTable *table = nullptr) {
    std::optional<std::string> fallback;
    EXPECT_EQ(compareReaders(path, options, table, &fallback), "") << path;
    EXPECT_FALSE(fallback) << path << ": left to libxml2 because of " << fallback.value_or("");
}

// One file rewritten for each of thousands of texts, in memory (/dev/shm)
// where there is one: on ext4, rewriting a file flushes it to the disk.
class ScratchFile {
  public:
    ScratchFile() {
        struct stat info {};
        path_ = stat("/dev/shm", &info) == 0 && S_ISDIR(info.st_mode) ? "/dev/shm" : "/tmp";
        path_ += "/hdtrace-dialect-test-" + std::to_string(getpid()) + ".trc";
    }
    ~ScratchFile() { std::remove(path_.c_str()); }
    ScratchFile(const ScratchFile &) = delete;
    ScratchFile &operator=(const ScratchFile &) = delete;
    const std::string &write(const std::string &text) {
        std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
        return path_;
    }

  private:
    std::string path_;
};

// Both readers agree on text, with and without partial mode.
void expectSameOutcome(const std::string &text, const std::string &what) {
    static ScratchFile file;
    const std::string &path = file.write(text);
    TraceOptions options;
    EXPECT_EQ(compareReaders(path, options), "") << what;
    options.partial = true;
    EXPECT_EQ(compareReaders(path, options), "") << what << " (partial)";
}

// A trace through libhdtrace's writer with every kind of content the column
// reader looks at: peers, tags, sizes, requests, <For> and <Data> children,
// <Info>, nested calls, events, and file names that need escaping.
class WrittenTrace : public ::testing::Test {
  protected:
    void SetUp() override {
        char pattern[] = "/tmp/hdtrace-dialect-test-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
        hdtrace::TraceOptions options;
        options.directory = directory_;
        options.program = "dialect";
        options.levels = {"host", "0", "0"};
        options.nestedDepth = 2;
        std::string error;
        auto writer = hdtrace::TraceWriter::create(options, &error);
        ASSERT_TRUE(writer) << error;
        hdtrace::Timestamp time = writer->now();
        auto at = [&time](int64_t step) {
            time.nanoseconds += step;
            return time;
        };
        const char *fileNames[] = {"plain.dat",
                                   "a&b<c>'d\"e",
                                   "tab\there\nnewline\rcr",
                                   "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                   "bad\xff\xfe",
                                   "ctl\x01\x1f"};
        for (int i = 0; i < 3000; ++i) {
            switch (i % 10) {
                case 0:
                    writer->beginState("Send", at(100));
                    writer->attribute("size", int64_t{8} * i);
                    writer->attribute("toRank", int64_t{i % 7});
                    writer->attribute("toTag", int64_t{i % 5 - 1});
                    writer->attribute("cid", int64_t{i % 3});
                    writer->endState(at(50));
                    break;
                case 1:
                    writer->beginState("Sendrecv", at(100));
                    writer->attribute("size", int64_t{4});
                    writer->attribute("toRank", int64_t{1});
                    writer->attribute("toTag", int64_t{2});
                    writer->attribute("fromRank", int64_t{i % 4});
                    writer->attribute("fromTag", int64_t{-1});
                    writer->attribute("cid", int64_t{1});
                    writer->endState(at(70));
                    break;
                case 2:
                    writer->beginState("Bcast", at(10));
                    writer->attribute("size", int64_t{16});
                    writer->attribute("root", int64_t{2});
                    writer->attribute("rootRank", int64_t{2});
                    writer->attribute("cid", int64_t{0});
                    // A nested call: it goes in a <Nested> block before this one.
                    writer->beginState("Send", at(1));
                    writer->attribute("size", int64_t{16});
                    writer->attribute("toRank", int64_t{3});
                    writer->endState(at(1));
                    writer->endState(at(30));
                    break;
                case 3:
                    writer->beginState("File_open", at(10));
                    writer->attribute("cid", int64_t{0});
                    writer->attribute("name", fileNames[(i / 10) % 6]);
                    writer->attribute("fid", int64_t{i / 10});
                    writer->beginElement("Info");
                    writer->attribute("key", "cb_nodes");
                    writer->attribute("value", "4 & more");
                    writer->endElement();
                    writer->endState(at(300));
                    break;
                case 4:
                    writer->beginState("File_write_all_begin", at(10));
                    writer->attribute("fid", int64_t{i / 10});
                    writer->attribute("rid", int64_t{i});
                    writer->beginElement("Data");
                    writer->attribute("offset", int64_t{4096} * i);
                    writer->attribute("size", int64_t{512});
                    writer->endElement();
                    writer->endState(at(20));
                    break;
                case 5:
                    writer->beginState("Waitall", at(10));
                    writer->beginElement("For");
                    writer->attribute("rid", int64_t{i - 1});
                    writer->endElement();
                    writer->beginElement("For");
                    writer->attribute("rid", int64_t{i - 2});
                    writer->endElement();
                    writer->endState(at(20));
                    break;
                case 6:
                    writer->beginState("Recv", at(5));
                    writer->attribute("size", int64_t{0});
                    writer->attribute("fromRank", int64_t{-2});
                    writer->attribute("fromTag", int64_t{-1});
                    writer->attribute("cid", int64_t{0});
                    writer->endState(at(5));
                    break;
                case 7:
                    writer->event("Marker", at(1));
                    break;
                case 8:
                    writer->beginState("Alltoallv", at(10));
                    writer->attribute("sendSize", int64_t{64});
                    writer->attribute("recvSize", int64_t{32});
                    writer->attribute("source", int64_t{1});
                    writer->attribute("tag", int64_t{9});
                    writer->attribute("offset", int64_t{-7});
                    writer->endState(at(40));
                    break;
                default:
                    writer->beginState(i % 20 == 9 ? "Call_" + std::to_string(i) : "Barrier",
                                       at(10));
                    writer->attribute("cid", int64_t{0});
                    writer->endState(at(40));
                    break;
            }
        }
        ASSERT_EQ(writer->close(), 0);
        trace_ = writer->tracePath();
    }
    void TearDown() override {
        for (const std::string &path : tracesIn(directory_))
            std::remove(path.c_str());
        std::remove((trace_.substr(0, trace_.size() - 4) + ".info").c_str());
        rmdir(directory_.c_str());
    }

    std::string directory_;
    std::string trace_;
};

}  // namespace

TEST_F(WrittenTrace, IsReadByTheScannerWithTheSameColumns) {
    expectScannerReads(trace_);
    ColumnsResult result = readEventColumns(trace_, {}, nullptr);
    EXPECT_EQ(result.columns.rows(), 3000u);  // nested calls are left out, events are rows
    EXPECT_EQ(result.columns.openName.size(), 300u);
    EXPECT_NE(
        std::find(result.columns.openName.begin(), result.columns.openName.end(), "a&b<c>'d\"e"),
        result.columns.openName.end());
}

TEST_F(WrittenTrace, FiltersWindowsAndLocalRanksGiveTheSameColumns) {
    ColumnsResult all = readEventColumns(trace_, {}, nullptr);
    ASSERT_GT(all.columns.rows(), 100u);
    TraceOptions names;
    names.filter.names = {"Send", "File_open", "Waitall", "NoSuchCall"};
    expectScannerReads(trace_, names);
    TraceOptions window;
    window.filter.fromNs = all.columns.startNs[all.columns.rows() / 3];
    window.filter.toNs = all.columns.endNs[all.columns.rows() / 2];
    expectScannerReads(trace_, window);
    window.filter.names = {"Bcast"};
    expectScannerReads(trace_, window);
    LocalToWorldTable table{{0, {5, 4, 3, 2}}, {1, {9, -1, 8}}};
    expectScannerReads(trace_, {}, &table);
}

TEST_F(WrittenTrace, EveryDamagedEndingGivesTheSameErrorAndTheSamePartialRead) {
    const std::string text = hdtrace::reader::testing::fileText(trace_);
    ASSERT_GT(text.size(), 4000u);
    // The trace's first 10 calls or so, cut at every byte, as a hard kill leaves them.
    for (size_t cut = 0; cut < 1500; ++cut)
        expectSameOutcome(text.substr(0, cut), "cut at byte " + std::to_string(cut));
    // And cut at every byte of its last call and the end of <Program>.
    for (size_t cut = text.size() - 15; cut <= text.size(); ++cut)
        expectSameOutcome(text.substr(0, cut), "cut at byte " + std::to_string(cut));
}

TEST(DialectColumns, TestDataTracesAreReadByTheScanner) {
    const std::string data = HDTRACE_READER_TEST_DATA;
    size_t count = 0;
    for (const char *kind : {"ours", "original", "seed"}) {
        for (const std::string &trace : tracesIn(data + "/" + kind)) {
            expectScannerReads(trace);
            ++count;
        }
    }
    EXPECT_EQ(count, 6u);
}

TEST(DialectColumns, TheOriginalImplementationsFixturesAreReadByTheScanner) {
    // The optional fixtures: HDTRACE_SHARED_FIXTURES in the environment wins over
    // the default the build gives (tests/reader/CMakeLists.txt).
    const char *override = std::getenv("HDTRACE_SHARED_FIXTURES");
    const std::string fixtures =
        std::string(override ? override : HDTRACE_SHARED_FIXTURES) + "/original-traces/partdiff";
    struct stat info {};
    if (stat(fixtures.c_str(), &info) != 0)
        GTEST_SKIP()
            << fixtures
            << " is absent: this optional test reads traces of the original implementation "
               "(the PIOsim project's own tracer), which are not part of the repository; "
               "set HDTRACE_SHARED_FIXTURES to a folder holding original-traces/ to run it";
    std::vector<std::string> traces = tracesIn(fixtures);
    EXPECT_EQ(traces.size(), 5u);
    for (const std::string &trace : traces) {
        expectScannerReads(trace);
        LocalToWorldTable table{{0, {0, 1, 2, 3, 4}}, {1, {4, 3, 2, 1, 0}}};
        expectScannerReads(trace, {}, &table);
    }
}

// Every byte of a small trace replaced by each byte that matters to XML:
// whatever libxml2 says (an error, or other columns), the scanner says too.
TEST(DialectColumns, EveryByteMutationGivesTheSameOutcome) {
    const std::string text =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='17'>\n"
        "<Nested>\n  <Send size='1' toRank='2' time='0.000000001'/>\n</Nested>\n"
        "<Sendrecv size='4' toRank='1' toTag='2' fromRank='0' fromTag='3' cid='1' "
        "time='0.3' end='0.4'/>\n"
        "<File_open cid='0' name='f&amp;&#xA;\xc3\xa9.dat' fid='2' time='0.7' end='0.8'>\n"
        "  <Info key='k' value=\"v'\"/>\n</File_open>\n"
        "<File_read_all_begin fid='2' rid='7' time='0.9' end='1.0'><Data offset='64' "
        "size='32'/></File_read_all_begin>\n"
        "<Wait time='1.1' end='1.2'><For rid='7'/></Wait>\n"
        "</Program>\n";
    const char replacements[] = {'<',  '>',  '/', '&', '\'', '"', '=',    ' ',   '\n',
                                 '\r', '\0', '-', ':', ';',  '!', '\xc3', '\xff'};
    TraceOptions options, partial;
    partial.partial = true;
    ScratchFile file;
    for (size_t position = 0; position < text.size(); ++position) {
        for (char replacement : replacements) {
            if (text[position] == replacement) continue;
            std::string mutated = text;
            mutated[position] = replacement;
            const std::string &path = file.write(mutated);
            ASSERT_EQ(compareReaders(path, options), "")
                << "byte " << position << " replaced by " << static_cast<int>(replacement);
            ASSERT_EQ(compareReaders(path, partial), "")
                << "byte " << position << " replaced by " << static_cast<int>(replacement)
                << " (partial)";
        }
    }
}

// The same, where every call repeats one read before it: the scanner
// matches the second against the first one's shape (DialectScanner.hpp),
// so a mutation there is met by the shape matching, not the full scan.
TEST(DialectColumns, EveryByteMutationOfAKnownShapeGivesTheSameOutcome) {
    const std::string head =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='17'>\n";
    const std::string calls =
        "<Sendrecv size='4' toRank='1' toTag='2' fromRank='0' fromTag='3' cid='1' "
        "time='0.300000000' end='0.400000000'/>\n"
        "<File_open cid='0' name='f&amp;\xc3\xa9.dat' fid='2' time='0.7' end='0.8'>\n"
        "  <Info key='k' value='v'/>\n</File_open>\n"
        "<Wait time='1.100000000' end='1.200000000'><For rid='7'/></Wait>\n";
    const std::string text = head + calls + calls + "</Program>\n";
    const char replacements[] = {'<',  '>',  '/', '&', '\'', '"', '=',    ' ',   '\n',
                                 '\r', '\0', '-', '.', 'x',  '9', '\xc3', '\xff'};
    TraceOptions options, partial;
    partial.partial = true;
    ScratchFile file;
    for (size_t position = head.size() + calls.size(); position < text.size(); ++position) {
        for (char replacement : replacements) {
            if (text[position] == replacement) continue;
            std::string mutated = text;
            mutated[position] = replacement;
            const std::string &path = file.write(mutated);
            ASSERT_EQ(compareReaders(path, options), "")
                << "byte " << position << " replaced by " << static_cast<int>(replacement);
            ASSERT_EQ(compareReaders(path, partial), "")
                << "byte " << position << " replaced by " << static_cast<int>(replacement)
                << " (partial)";
        }
    }
}

// Many chunks of calls whose shapes change from call to call (attributes
// added, left out, reordered, respaced, double-quoted) and whose values need
// the full value scanner now and then: equal columns, read by the scanner.
TEST(DialectColumns, ChangingShapesAcrossChunksGiveTheSameColumns) {
    std::string text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='5'>\n";
    for (int i = 0; i < 60000; ++i) {
        const std::string n = std::to_string(i);
        const std::string time = "time='" + n + ".000000001' end='" + n + ".000000002'";
        switch (i % 9) {
            case 0:
                text += "<Send size='" + n + "' toRank='1' toTag='-1' cid='0' " + time + "/>\n";
                break;
            case 1:
                text += "<Send size='" + n + "' toRank='1' cid='0' " + time + "/>\n";
                break;
            case 2:
                text += "<Send toRank='2' size='" + n + "' cid='0' " + time + "/>\n";
                break;
            case 3:
                text += "<Send  size='" + n + "'  toRank='3' cid='0' " + time + " />\n";
                break;
            case 4:
                text += "<Send size=\"" + n + "\" toRank=\"4\" " + time + "/>\n";
                break;
            case 5:
                text += "<File_open cid='0' name='a&amp;" + n + "\xc3\xa9' fid='" + n + "' " +
                        time + "/>\n";
                break;
            case 6:
                text += "<File_open cid='0' name='plain" + n + "' fid='" + n + "' " + time + "/>\n";
                break;
            case 7:
                text += "<Wait " + time + ">\n  <For rid='" + n + "'/>\n</Wait>\n";
                break;
            default:
                text += "<Recv size='" + std::string(i % 5, '9') + "1' fromRank='" +
                        std::to_string(i % 4 - 2) + "' fromTag='-1' cid='" + std::to_string(i % 3) +
                        "' " + time + "/>\n";
                break;
        }
    }
    text += "</Program>\n";
    ASSERT_GT(text.size(), 3u * 256 * 1024);  // several of the scanner's chunks
    ScratchFile file;
    const std::string &path = file.write(text);
    expectScannerReads(path);
    LocalToWorldTable table{{0, {5, 4, 3, 2}}, {1, {9, -1, 8}}};
    expectScannerReads(path, {}, &table);
    TraceOptions names;
    names.filter.names = {"Recv", "Wait"};
    expectScannerReads(path, names);
}

// The scanner maps the file in chunks that end on a 4 KiB page, with zeroed
// pages after the file's last byte (DialectScanner::mapChunk): files whose
// end falls on, just before and just after a page boundary, whole or cut
// there, give what libxml2 gives (and are read by the scanner when whole).
TEST(DialectColumns, FilesEndingAroundPageBoundariesGiveTheSameOutcome) {
    std::string calls;
    for (int i = 0; calls.size() < 9000; ++i)
        calls += "<Send size='" + std::to_string(i) + "' toRank='1' cid='0' time='" +
                 std::to_string(i) + ".5' end='" + std::to_string(i) + ".75'/>\n";
    const std::string head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program>\n";
    const std::string tail = "</Program>\n";
    ScratchFile file;
    for (size_t page : {size_t{4096}, size_t{8192}}) {
        for (size_t size = page - 80; size <= page + 2; ++size) {
            // Whole: calls up to the page, then newlines up to size.
            std::string whole = head;
            size_t cut = calls.rfind("\n", size - head.size() - tail.size() - 1);
            whole += calls.substr(0, cut + 1);
            whole += std::string(size - whole.size() - tail.size(), '\n') + tail;
            ASSERT_EQ(whole.size(), size);
            expectScannerReads(file.write(whole));
            // Cut: the same calls without the padding, ending mid-tag at size.
            const std::string cutText = (head + calls).substr(0, size);
            expectSameOutcome(cutText, "cut at " + std::to_string(size));
        }
    }
}

// Columns of 2 MB or more come from mappings that freed columns leave for
// the next read (ColumnMemory.cpp), with their rows uninitialised until
// written: a second trace read into the first one's memory, with other values
// and attributes missing that the first one had, gives exactly its columns.
TEST(DialectColumns, ReusedColumnMemoryGivesTheSameColumns) {
    ScratchFile file;
    for (int pass = 0; pass < 3; ++pass) {
        std::string text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program>\n";
        for (int i = 0; i < 450000; ++i) {
            const std::string n = std::to_string(i * (pass + 1));
            if (pass == 1 && i % 3 == 0)  // no size, peer, tag, cid: their defaults
                text += "<Barrier time='" + n + ".5' end='" + n + ".75'/>\n";
            else
                text += "<Send size='" + n + "' toRank='" + std::to_string(i % 7) + "' toTag='" +
                        std::to_string(pass) + "' cid='0' time='" + n + ".5' end='" + n +
                        ".75'/>\n";
        }
        text += "</Program>\n";
        ASSERT_GT(text.size() / 100 * sizeof(int64_t), size_t{2} << 20);  // mapped columns
        expectScannerReads(file.write(text));
    }
}

TEST(DialectColumns, HostileDocumentsGiveTheSameOutcome) {
    const std::string head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program>\n";
    std::string deep = head + "<Send time='1'>";
    for (int i = 0; i < 300; ++i)
        deep += "<Data>";
    // More attributes than a tag shape holds (DialectScanner::kMaxShapeAttributes):
    // a child with these has no shape and is described for itself.
    std::string padding;
    for (int i = 0; i < 30; ++i)
        padding += " a" + std::to_string(i) + "='0'";
    std::string manyNames = head;
    for (int i = 0; i < 20000; ++i)
        manyNames += "<C" + std::to_string(i) + " time='1'/>\n";
    manyNames += "</Program>\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"empty", ""},
        {"only whitespace", "  \n"},
        {"byte-order mark", "\xef\xbb\xbf<Program/>"},
        {"empty root", "<Program/>"},
        {"DTD", "<!DOCTYPE Program [<!ENTITY e 'x'>]>\n<Program><Send name='&e;'/></Program>"},
        {"comment", head + "<!-- c -->\n</Program>\n"},
        {"processing instruction", head + "<?pi x?>\n</Program>\n"},
        {"CDATA", head + "<Send><![CDATA[x]]></Send></Program>\n"},
        {"text", head + "hello\n</Program>\n"},
        {"content after the root", head + "</Program>\n<Send/>\n"},
        {"two roots", "<Program/><Program/>"},
        {"wrong root", "<Trace><Send time='1'/></Trace>"},
        {"mismatched end tag", head + "<Send time='1'></Recv>\n</Program>\n"},
        {"repeated attribute", head + "<Send time='1' time='2'/>\n</Program>\n"},
        {"namespace prefix", head + "<x:Send time='1'/>\n</Program>\n"},
        {"namespace declaration", head + "<Send xmlns='urn:x' time='1'/>\n</Program>\n"},
        {"attribute without space", head + "<Send time='1'size='2'/>\n</Program>\n"},
        {"unquoted value", head + "<Send time=1/>\n</Program>\n"},
        {"< in a value", head + "<Send name='a<b' time='1'/>\n</Program>\n"},
        {"tab in a value", head + "<File_open name='a\tb' time='1'/>\n</Program>\n"},
        {"newline in a value", head + "<File_open name='a\nb' time='1'/>\n</Program>\n"},
        {"carriage return", head + "<Send time='1'/>\r\n</Program>\n"},
        {"NUL byte", head + std::string("<Send time='1'/>\0\n</Program>\n", 23)},
        {"invalid UTF-8", head + "<File_open name='\xc3\x28' time='1'/>\n</Program>\n"},
        {"overlong UTF-8", head + "<File_open name='\xc0\xaf' time='1'/>\n</Program>\n"},
        {"surrogate", head + "<File_open name='\xed\xa0\x80' time='1'/>\n</Program>\n"},
        {"U+FFFE", head + "<File_open name='\xef\xbf\xbe' time='1'/>\n</Program>\n"},
        {"reference to NUL", head + "<File_open name='&#0;' time='1'/>\n</Program>\n"},
        {"reference beyond Unicode",
         head + "<File_open name='&#x110000;' time='1'/>\n</Program>\n"},
        {"unknown entity", head + "<File_open name='&nbsp;' time='1'/>\n</Program>\n"},
        {"unterminated reference", head + "<File_open name='&amp' time='1'/>\n</Program>\n"},
        {"references", head + "<File_open name='&#38;&#x26;&lt;&gt;&apos;&quot;&#233;' fid='1' "
                              "time='1'/>\n</Program>\n"},
        {"reference in a number", head + "<Send size='&#52;2' time='1'/>\n</Program>\n"},
        {"size beyond 64 bits", head + "<Send size='99999999999999999999999' time='1'/>\n"
                                       "</Program>\n"},
        {"long size that fits", head + "<Send size='1000000000000000000' time='1'/>\n"
                                       "</Program>\n"},
        // The second tag matches the first one's shape (DialectScanner.hpp),
        // whose short values need no check for numbers beyond 64 bits.
        {"count beyond 64 bits in a known shape",
         head + "<Send size='1' count='1' time='1'/>\n<Send size='1' "
                "count='99999999999999999999999' time='2'/>\n</Program>\n"},
        {"size beyond 64 bits in a known shape",
         head + "<Send size='1' count='1' time='1'/>\n<Send size='99999999999999999999999' "
                "count='1' time='2'/>\n</Program>\n"},
        {"long values that fit in a known shape",
         head + "<Send size='1' count='1' time='1'/>\n<Send size='1000000000000000000' "
                "count='-1000000000000000000' time='2'/>\n</Program>\n"},
        {"child rank beyond 32 bits in a known shape",
         head + "<Wait time='1'><For rid='1' cid='4'/></Wait>\n<Wait time='2'><For rid='2' "
                "cid='4294967296'/></Wait>\n</Program>\n"},
        {"child time that is not one in a known shape",
         head + "<Wait time='1'><Data size='1' time='1'/></Wait>\n<Wait time='2'><Data "
                "size='2' time='x'/></Wait>\n</Program>\n"},
        {"child count beyond 64 bits in a known shape",
         head + "<Wait time='1'><For rid='1' count='1'/></Wait>\n<Wait time='2'><For rid='2' "
                "count='99999999999999999999999'/></Wait>\n</Program>\n"},
        {"children without a shape", head + "<Wait time='1'><For" + padding +
                                         " rid='3'/></Wait>\n<Write time='2'><Data" + padding +
                                         " size='5' offset='7'/></Write>\n</Program>\n"},
        {"child rank beyond 32 bits without a shape", head + "<Wait time='1'><For" + padding +
                                                          " rid='1' cid='4294967296'/></Wait>\n"
                                                          "</Program>\n"},
        {"child time that is not one without a shape",
         head + "<Wait time='1'><Data" + padding + " size='2' time='x'/></Wait>\n</Program>\n"},
        {"rank beyond 32 bits", head + "<Send toRank='2147483648' time='1'/>\n</Program>\n"},
        {"rank at the lowest int32", head + "<Send toRank='-2147483648' time='1'/>\n"
                                            "</Program>\n"},
        {"child rank beyond 32 bits", head + "<Wait time='1'><For rid='1' cid='4294967296'/>"
                                             "</Wait>\n</Program>\n"},
        {"deep child ignored", head + "<Wait time='1'><For rid='1'><X cid='4294967296'/></For>"
                                      "</Wait>\n</Program>\n"},
        {"time that is not one", head + "<Send time='1e3'/>\n</Program>\n"},
        {"time overflowing",
         "<Program timeAdjustment='1795333123'>\n<Send time='8281797364'/>"
         "\n</Program>\n"},
        {"adjustment that is not one", "<Program timeAdjustment='x'><Send time='1'/></Program>"},
        {"integers that are not", head + "<Send size='+4' toRank=' 1' toTag='0x1' cid='' "
                                         "time='1'/>\n</Program>\n"},
        {"nesting beyond the limit", deep},
        {"20,000 distinct names", manyNames},
        {"value longer than a chunk",
         head + "<File_open name='" + std::string(300000, 'n') + "' time='1'/>\n</Program>\n"},
        {"truncated in a tag", head + "<Send time='1"},
        {"truncated between tags", head + "<Send time='1'/>\n"},
    };
    for (const auto &[what, text] : cases)
        expectSameOutcome(text, what);
}

TEST(DialectColumns, WhatIsNotAFileGivesTheSameError) {
    char pattern[] = "/tmp/hdtrace-dialect-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string directory = pattern;
    const std::string fifo = directory + "/fifo.trc";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string &path : {directory, fifo, directory + "/missing.trc"})
        EXPECT_EQ(compareReaders(path, {}), "") << path;
    std::remove(fifo.c_str());
    rmdir(directory.c_str());
}
