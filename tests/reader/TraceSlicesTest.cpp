// Slices of a trace (TraceSlices.hpp), as columns and as events
// (TraceReader's slice constructor): for split points at every byte of
// traces the writer wrote (nested calls, <Nested> blocks, children, escaped
// values), the slices' rows or events one after the other are the whole
// read's;
// a damaged trace gives, in the slice that holds the damage, the error of the
// whole read (file, line, column, problem); a trace outside the writer's
// layout is read whole by the slice at 0.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>
#include <hdtrace/reader/TraceSlices.hpp>

#include "SlicedRun.hpp"
#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::TemporaryFile;

namespace {

// The rows of a read with names instead of codes, and the completions and
// opens with rows counted from a given first row.
struct Rows {
    std::vector<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int32_t,
                           int32_t, int32_t, int32_t, int32_t, int32_t>>
        calls;
    std::vector<std::pair<int64_t, int64_t>> completions;
    std::vector<std::tuple<int64_t, int64_t, std::string>> opens;

    void append(const EventColumns &c) {
        const auto first = static_cast<int64_t>(calls.size());
        for (size_t row = 0; row < c.rows(); ++row)
            calls.emplace_back(c.names[static_cast<size_t>(c.nameCode[row])], c.startNs[row],
                               c.endNs[row], c.size[row], c.offset[row], c.rid[row], c.peer[row],
                               c.tag[row], c.cid[row], c.fid[row], c.recvPeer[row], c.recvTag[row]);
        for (size_t index = 0; index < c.completionRow.size(); ++index)
            completions.emplace_back(first + c.completionRow[index], c.completionRid[index]);
        for (size_t index = 0; index < c.openRow.size(); ++index)
            opens.emplace_back(first + c.openRow[index], c.openFid[index], c.openName[index]);
    }
    bool operator==(const Rows &other) const {
        return calls == other.calls && completions == other.completions && opens == other.opens;
    }
};

Rows wholeRows(const std::string &path) {
    Rows rows;
    rows.append(readEventColumns(path, {}, nullptr).columns);
    return rows;
}

// The rows of the slices between the given split points (0 and the end added).
Rows slicedRows(const std::string &path, std::vector<uint64_t> splits, uint64_t size) {
    splits.insert(splits.begin(), 0);
    splits.push_back(size);
    Rows rows;
    for (size_t index = 0; index + 1 < splits.size(); ++index) {
        SliceRead slice =
            readEventColumnsSlice(path, {}, nullptr, splits[index], splits[index + 1]);
        EXPECT_FALSE(slice.whole);
        EXPECT_EQ(slice.result.fallback, std::nullopt) << "left to libxml2";
        rows.append(slice.result.columns);
    }
    return rows;
}

// An event as comparable text: name, times, attributes and children, but
// not its line (0 in a slice read).
std::string describe(const Event &event) {
    std::string text = event.name + (event.hasStart ? " @" + std::to_string(event.startNs) : "") +
                       (event.hasEnd ? "-" + std::to_string(event.endNs) : "");
    for (const Attribute &attribute : event.attributes)
        text += " " + attribute.name + "=" + attribute.value;
    text += " [";
    for (const Event &child : event.children)
        text += describe(child) + ";";
    return text + "]";
}

std::vector<std::string> eventsOf(TraceReader &reader, bool linesKnown) {
    std::vector<std::string> events;
    Event event;
    while (reader.next(event)) {
        EXPECT_EQ(event.line > 0, linesKnown) << describe(event);
        events.push_back(describe(event));
    }
    return events;
}

std::vector<std::string> wholeEvents(const std::string &path, const TraceOptions &options = {}) {
    TraceReader reader(path, options);
    return eventsOf(reader, true);
}

// The events of [begin, end) appended to events; the slice's damage.
std::optional<std::string> appendSliceEvents(std::vector<std::string> *events,
                                             const std::string &path, const TraceOptions &options,
                                             uint64_t begin, uint64_t end,
                                             bool linesKnown = false) {
    TraceReader reader(path, options, begin, end);
    for (std::string &event : eventsOf(reader, linesKnown))
        events->push_back(std::move(event));
    return reader.damage();
}

std::vector<std::string> slicedEvents(const std::string &path, std::vector<uint64_t> splits,
                                      uint64_t size, const TraceOptions &options = {}) {
    splits.insert(splits.begin(), 0);
    splits.push_back(size);
    std::vector<std::string> events;
    for (size_t index = 0; index + 1 < splits.size(); ++index)
        appendSliceEvents(&events, path, options, splits[index], splits[index + 1]);
    return events;
}

using ErrorAt = std::tuple<std::string, int, int, std::string>;

std::optional<ErrorAt> errorOf(const std::function<void()> &read) {
    try {
        read();
    } catch (const ReadError &error) {
        return ErrorAt{error.file(), error.line(), error.column(), error.problem()};
    }
    return std::nullopt;
}

class TraceSlices : public ::testing::Test {
  protected:
    void SetUp() override {
        char pattern[] = "/tmp/hdtrace-slices-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
        std::string error;
        traces_ = hdtrace::testing::writeSlicedRun(directory_, 2, 3, &error);
        ASSERT_EQ(traces_.size(), 2u) << error;
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    std::string directory_;
    std::vector<std::string> traces_;
};

}  // namespace

TEST_F(TraceSlices, TheWrittenTraceHasWhatSlicesMustKeepApart) {
    const std::string text = hdtrace::reader::testing::fileText(traces_[0]);
    EXPECT_NE(text.find("\n<Nested>\n  <Nested>\n    <Bcast"), std::string::npos) << text;
    EXPECT_NE(text.find("\n  <Info key='cb_nodes' value='&lt;2&gt;'/>"), std::string::npos);
    EXPECT_NE(text.find("&#xA;line"), std::string::npos);  // a newline in a value
    EXPECT_NE(text.find("\n  <For rid="), std::string::npos);
    EXPECT_NE(text.find("\n  <Data offset="), std::string::npos);
    EXPECT_NE(text.find("\n<Event name='cycle'"), std::string::npos);
    EXPECT_EQ(wholeRows(traces_[0]).calls.size(), 2u + 3u * 11u + 4u);
}

TEST_F(TraceSlices, TwoSlicesSplitAtEveryByteGiveTheWholeRows) {
    for (const std::string &trace : traces_) {
        const Rows whole = wholeRows(trace);
        const uint64_t size = std::filesystem::file_size(trace);
        for (uint64_t split = 0; split <= size; ++split)
            ASSERT_TRUE(slicedRows(trace, {split}, size) == whole) << trace << " split " << split;
    }
}

TEST_F(TraceSlices, TwoEventSlicesSplitAtEveryByteGiveTheWholeEvents) {
    for (const std::string &trace : traces_) {
        const std::vector<std::string> whole = wholeEvents(trace);
        ASSERT_EQ(whole.size(), 2u + 3u * 11u + 4u);
        const uint64_t size = std::filesystem::file_size(trace);
        for (uint64_t split = 0; split <= size; ++split)
            ASSERT_EQ(slicedEvents(trace, {split}, size), whole) << trace << " split " << split;
    }
    // Filters apply in each slice.
    TraceOptions options;
    options.filter.names = {"Isend", "Waitall", "File_open"};
    const std::vector<std::string> filtered = wholeEvents(traces_[1], options);
    EXPECT_EQ(filtered.size(), 3u * 4u + 1u);
    std::vector<uint64_t> splits;
    for (uint64_t at = 250; at < std::filesystem::file_size(traces_[1]); at += 250)
        splits.push_back(at);
    EXPECT_EQ(slicedEvents(traces_[1], splits, std::filesystem::file_size(traces_[1]), options),
              filtered);
}

TEST_F(TraceSlices, ManySmallSlicesGiveTheWholeRows) {
    const Rows whole = wholeRows(traces_[1]);
    const uint64_t size = std::filesystem::file_size(traces_[1]);
    for (uint64_t step : {1, 7, 40, 113, 512}) {
        std::vector<uint64_t> splits;
        for (uint64_t at = step; at < size; at += step)
            splits.push_back(at);
        ASSERT_TRUE(slicedRows(traces_[1], splits, size) == whole) << "slices of " << step;
    }
    // A slice reads from a line start to a line start.
    SliceRead middle = readEventColumnsSlice(traces_[1], {}, nullptr, size / 3, 2 * size / 3);
    const std::string text = hdtrace::reader::testing::fileText(traces_[1]);
    EXPECT_EQ(text[middle.from - 1], '\n');
    EXPECT_EQ(text[middle.to - 1], '\n');
    EXPECT_GE(middle.from, size / 3);
    EXPECT_GE(middle.to, 2 * size / 3);
    EXPECT_GT(middle.result.columns.rows(), 0u);
}

TEST_F(TraceSlices, TheTestDataOfOurDialectSplitsAtEveryByte) {
    const std::string trace = std::string(HDTRACE_READER_TEST_DATA) + "/ours/app_node01_0_0.trc";
    const Rows whole = wholeRows(trace);
    ASSERT_GT(whole.calls.size(), 5u);
    const uint64_t size = std::filesystem::file_size(trace);
    const std::vector<std::string> events = wholeEvents(trace);
    for (uint64_t split = 0; split <= size; ++split) {
        ASSERT_TRUE(slicedRows(trace, {split}, size) == whole) << "split " << split;
        ASSERT_EQ(slicedEvents(trace, {split}, size), events) << "split " << split;
    }
}

// Slices and prefixes longer than the scanner's chunk (256 KiB) and the
// blocks in which newlines are counted (64 KiB).
TEST_F(TraceSlices, SlicesLongerThanAChunkGiveTheWholeRowsAndPlaceErrors) {
    std::string error;
    const std::string trace =
        hdtrace::testing::writeSlicedRunTrace(directory_ + "/long", 0, 1, 3000, &error);
    ASSERT_FALSE(trace.empty()) << error;
    const Rows whole = wholeRows(trace);
    const uint64_t size = std::filesystem::file_size(trace);
    ASSERT_GT(size, 3u << 20);
    for (uint64_t step : {300001, 1000003}) {
        std::vector<uint64_t> splits;
        for (uint64_t at = step; at < size; at += step)
            splits.push_back(at);
        EXPECT_TRUE(slicedRows(trace, splits, size) == whole) << "slices of " << step;
    }
    const std::string text = hdtrace::reader::testing::fileText(trace);
    const size_t time = text.find("time='", 3 * text.size() / 4) + 6;
    TemporaryFile damaged(text.substr(0, time) + "x" + text.substr(time + 1));
    const std::optional<ErrorAt> expected =
        errorOf([&] { readEventColumns(damaged.path(), {}, nullptr); });
    ASSERT_TRUE(expected.has_value());
    EXPECT_GT(std::get<1>(*expected), 50000);
    const std::optional<ErrorAt> got = errorOf(
        [&] { readEventColumnsSlice(damaged.path(), {}, nullptr, 3 * size / 4 - 5000, size); });
    EXPECT_EQ(got, expected);
}

TEST_F(TraceSlices, FiltersApplyInEachSlice) {
    TraceOptions options;
    options.filter.names = {"Isend", "Waitall"};
    const uint64_t size = std::filesystem::file_size(traces_[0]);
    Rows whole, sliced;
    whole.append(readEventColumns(traces_[0], options, nullptr).columns);
    for (uint64_t at = 0; at < size; at += 300)
        sliced.append(
            readEventColumnsSlice(traces_[0], options, nullptr, at, at + 300).result.columns);
    EXPECT_TRUE(sliced == whole);
    EXPECT_EQ(whole.calls.size(), 3u * 3u + 1u);  // per cycle an Isend, 2 Waitall; the last Isend
}

TEST_F(TraceSlices, DamageIsReportedWhereTheWholeReadReportsIt) {
    const std::string text = hdtrace::reader::testing::fileText(traces_[0]);
    // A time that is none, a broken tag, a call left open, a cut file.
    std::vector<std::string> damaged;
    const size_t send = text.find("<Send ", text.size() / 2);
    const size_t time = text.find("time='", send) + 6;
    damaged.push_back(text.substr(0, time) + "x" + text.substr(time + 1));
    damaged.push_back(text.substr(0, send + 3) + "=" + text.substr(send + 4));
    const size_t close = text.find("</File_open>\n", text.size() / 3);
    damaged.push_back(text.substr(0, close) + text.substr(close + 13));
    damaged.push_back(text.substr(0, 2 * text.size() / 3));
    // A bare '&' between elements: libxml2 waits for its ';', in the slice
    // until the slice's end, in the whole file perhaps to the file's end.
    const size_t child = text.find("\n  <For", text.size() / 2);
    damaged.push_back(text.substr(0, child + 1) + "&" + text.substr(child + 2));
    for (const std::string &bytes : damaged) {
        TemporaryFile file(bytes);
        const std::optional<ErrorAt> whole =
            errorOf([&] { readEventColumns(file.path(), {}, nullptr); });
        ASSERT_TRUE(whole.has_value());
        for (uint64_t step : {97, 400, 1500}) {
            std::vector<ErrorAt> errors;
            for (uint64_t at = 0; at < bytes.size(); at += step) {
                if (auto error = errorOf(
                        [&] { readEventColumnsSlice(file.path(), {}, nullptr, at, at + step); }))
                    errors.push_back(*error);
            }
            ASSERT_FALSE(errors.empty()) << std::get<3>(*whole);
            for (const ErrorAt &error : errors)
                EXPECT_EQ(error, *whole) << "slices of " << step;
            // The event slices: the same errors in the same slices.
            std::vector<ErrorAt> eventErrors;
            for (uint64_t at = 0; at < bytes.size(); at += step) {
                std::vector<std::string> events;
                if (auto error = errorOf(
                        [&] { appendSliceEvents(&events, file.path(), {}, at, at + step); }))
                    eventErrors.push_back(*error);
            }
            EXPECT_EQ(eventErrors, errors) << "event slices of " << step;
        }
    }
}

TEST_F(TraceSlices, APartialSliceKeepsItsCallsBeforeTheCut) {
    const std::string text = hdtrace::reader::testing::fileText(traces_[0]);
    TemporaryFile file(text.substr(0, text.size() / 2));
    TraceOptions partial;
    partial.partial = true;
    const ColumnsResult whole = readEventColumns(file.path(), partial, nullptr);
    ASSERT_TRUE(whole.damage.has_value());
    const uint64_t middle = text.size() / 4;
    Rows sliced, expected;
    expected.append(whole.columns);
    sliced.append(readEventColumnsSlice(file.path(), partial, nullptr, 0, middle).result.columns);
    SliceRead last = readEventColumnsSlice(file.path(), partial, nullptr, middle, text.size());
    sliced.append(last.result.columns);
    EXPECT_TRUE(sliced == expected);
    EXPECT_EQ(last.result.damage, whole.damage);

    TraceReader wholeReader(file.path(), partial);
    const std::vector<std::string> expectedEvents = eventsOf(wholeReader, true);
    ASSERT_TRUE(wholeReader.damage().has_value());
    std::vector<std::string> events;
    EXPECT_EQ(appendSliceEvents(&events, file.path(), partial, 0, middle), std::nullopt);
    EXPECT_EQ(appendSliceEvents(&events, file.path(), partial, middle, text.size()),
              wholeReader.damage());
    EXPECT_EQ(events, expectedEvents);
}

// A trace outside the writer's layout: read whole by the slice at 0, the
// other slices empty.
void expectReadWholeByTheFirstSlice(const std::string &trace) {
    const Rows whole = wholeRows(trace);
    ASSERT_GT(whole.calls.size(), 0u) << trace;
    SliceRead first = readEventColumnsSlice(trace, {}, nullptr, 0, 10);
    SliceRead second = readEventColumnsSlice(trace, {}, nullptr, 10, 1u << 30);
    EXPECT_TRUE(first.whole && second.whole) << trace;
    Rows sliced;
    sliced.append(first.result.columns);
    sliced.append(second.result.columns);
    EXPECT_TRUE(sliced == whole) << trace;
    EXPECT_EQ(second.result.columns.rows(), 0u) << trace;

    std::vector<std::string> events;
    appendSliceEvents(&events, trace, {}, 0, 10, true);
    EXPECT_EQ(events, wholeEvents(trace)) << trace;
    appendSliceEvents(&events, trace, {}, 10, 1u << 30);
    EXPECT_EQ(events, wholeEvents(trace)) << trace << ": the second slice is not empty";

    // Split at 0: the empty slice before it holds no byte, so the slice
    // after it reads the trace, once.
    SliceRead none = readEventColumnsSlice(trace, {}, nullptr, 0, 0);
    SliceRead all = readEventColumnsSlice(trace, {}, nullptr, 0, 1u << 30);
    EXPECT_TRUE(none.whole && all.whole) << trace;
    EXPECT_EQ(none.result.columns.rows(), 0u) << trace;
    Rows splitAtZero;
    splitAtZero.append(all.result.columns);
    EXPECT_TRUE(splitAtZero == whole) << trace;
    std::vector<std::string> splitEvents;
    appendSliceEvents(&splitEvents, trace, {}, 0, 0);
    EXPECT_TRUE(splitEvents.empty()) << trace << ": the empty slice at 0 read calls";
    appendSliceEvents(&splitEvents, trace, {}, 0, 1u << 30, true);
    EXPECT_EQ(splitEvents, wholeEvents(trace)) << trace;
}

// The older layout: no timeAdjustment, absolute times.
TEST_F(TraceSlices, TheSeedsLayoutIsReadWholeByTheFirstSlice) {
    expectReadWholeByTheFirstSlice(std::string(HDTRACE_READER_TEST_DATA) +
                                   "/seed/seed_node01_0_0.trc");
}

// The original implementation's traces: no XML declaration.
TEST_F(TraceSlices, TheOriginalImplementationsTracesAreReadWholeByTheFirstSlice) {
    // The optional fixtures: HDTRACE_SHARED_FIXTURES in the environment wins over
    // the default the build gives (tests/reader/CMakeLists.txt).
    const char *override = std::getenv("HDTRACE_SHARED_FIXTURES");
    const std::string fixtures =
        std::string(override ? override : HDTRACE_SHARED_FIXTURES) + "/original-traces/partdiff";
    if (!std::filesystem::is_directory(fixtures))
        GTEST_SKIP()
            << fixtures
            << " is absent: this optional test reads traces of the original implementation "
               "(the PIOsim project's own tracer), which are not part of the repository; "
               "set HDTRACE_SHARED_FIXTURES to a folder holding original-traces/ to run it";
    int traces = 0;
    for (const auto &entry : std::filesystem::directory_iterator(fixtures)) {
        if (entry.path().extension() != ".trc") continue;
        expectReadWholeByTheFirstSlice(entry.path().string());
        ++traces;
    }
    EXPECT_EQ(traces, 5);
}

TEST_F(TraceSlices, ALineStartingWithAStartTagInsideACallIsRefused) {
    // Well-formed, with the writer's prolog, but a child at the start of a line.
    TemporaryFile file(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='10'>\n"
        "<Wait time='0.1' end='0.2'>\n<For rid='1'/>\n</Wait>\n"
        "<Send size='8' toRank='0' toTag='5' cid='1' time='0.3' end='0.4'/>\n</Program>\n");
    const std::string text = hdtrace::reader::testing::fileText(file.path());
    const uint64_t child = text.find("<For");
    const std::optional<ErrorAt> error =
        errorOf([&] { readEventColumnsSlice(file.path(), {}, nullptr, 0, child); });
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(std::get<1>(*error), 4);
    EXPECT_NE(std::get<3>(*error).find("not in the writer's layout"), std::string::npos);
    TraceOptions partial;
    partial.partial = true;  // the layout is no damage to keep calls before
    for (const TraceOptions &options : {TraceOptions{}, partial}) {
        std::vector<std::string> events;
        EXPECT_EQ(errorOf([&] { appendSliceEvents(&events, file.path(), options, 0, child); }),
                  error);
    }
}

TEST_F(TraceSlices, AnUnreadableTraceFailsEverySlice) {
    const std::string missing = directory_ + "/missing.trc";
    const std::optional<ErrorAt> whole = errorOf([&] { wholeEvents(missing); });
    ASSERT_TRUE(whole.has_value());
    for (uint64_t begin : {0, 100}) {
        std::vector<std::string> events;
        EXPECT_EQ(errorOf([&] { appendSliceEvents(&events, missing, {}, begin, begin + 100); }),
                  whole);
        EXPECT_EQ(errorOf([&] { readEventColumnsSlice(missing, {}, nullptr, begin, begin + 100); }),
                  whole);
    }
}
