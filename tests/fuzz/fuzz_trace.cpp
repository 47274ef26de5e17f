// Fuzz target: a .trc through every reading path of the reader library.
//
// Besides crashes, hangs and leaks, it checks that the paths agree:
// - a partial read never throws, and keeps every call a strict read
//   delivered before its error (all of them when there is none);
// - a name filter gives exactly the unfiltered calls of those names;
// - a time window gives a subset of the calls;
// - the columns have one row per call of the event reader, with its name,
//   times, size, offset and rid;
// - the SAX parser sees the same elements whatever the chunk size;
// - two slices that both read (TraceReader's and the columns'), split where
//   the input says, give the whole read's calls one after the other;
// - the call tree reads what the event reader reads and refuses what it
//   refuses, and has its calls at every depth in pre-order, each with its
//   parent, name and times.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceReader.hpp>
#include <hdtrace/reader/TraceSlices.hpp>

#include "FuzzSupport.hpp"
#include "SaxFileParser.hpp"

using namespace hdtrace::reader;
using hdtrace::fuzz::fail;

namespace {

struct ReadOutcome {
    std::vector<Event> events;  // those delivered before an error, if any
    bool failed = false;
    std::string error;
    int errorLine = 0;
    std::optional<std::string> damage;
};

ReadOutcome readEvents(const std::string &path, TraceOptions options) {
    ReadOutcome outcome;
    try {
        TraceReader reader(path, std::move(options));
        Event event;
        while (reader.next(event))
            outcome.events.push_back(event);
        outcome.damage = reader.damage();
    } catch (const ReadError &error) {
        outcome.failed = true;
        outcome.error = error.what();
        outcome.errorLine = error.line();
    }
    return outcome;
}

// Whether line (1-based) of the input lies inside a <Nested> block: the
// columns skip those blocks unread (docs/dev/reader.md, "The column reader"), so a
// defect confined to one is refused by the event reader alone.
bool insideNestedBlock(std::string_view input, int line) {
    int depth = 0, current = 1;
    size_t start = 0;
    while (start <= input.size() && current <= line) {
        const size_t end = std::min(input.find('\n', start), input.size());
        const std::string_view text = input.substr(start, end - start);
        if (current == line) return depth > 0 && text.find("</Nested>") == std::string_view::npos;
        for (size_t at = text.find("<Nested"); at != std::string_view::npos;
             at = text.find("<Nested", at + 1))
            ++depth;
        for (size_t at = text.find("</Nested>"); at != std::string_view::npos;
             at = text.find("</Nested>", at + 1))
            --depth;
        start = end + 1;
        ++current;
    }
    return false;
}

// lines: whether the lines count (a slice read knows none).
bool sameEvent(const Event &a, const Event &b, bool lines = true) {
    if (a.name != b.name || a.hasStart != b.hasStart || a.hasEnd != b.hasEnd ||
        a.startNs != b.startNs || a.endNs != b.endNs || (lines && a.line != b.line) ||
        a.attributes.size() != b.attributes.size() || a.children.size() != b.children.size())
        return false;
    for (size_t i = 0; i < a.attributes.size(); ++i)
        if (a.attributes[i].name != b.attributes[i].name ||
            a.attributes[i].value != b.attributes[i].value)
            return false;
    for (size_t i = 0; i < a.children.size(); ++i)
        if (!sameEvent(a.children[i], b.children[i], lines)) return false;
    return true;
}

// Records what the SAX parser reports, text joined between tags.
class RecordingHandler : public SaxHandler {
  public:
    std::string record;
    void startElement(std::string_view name, const AttributeList &attributes) override {
        // Every view first, then the text: a handler may hold the values of
        // a start tag while it reads the others.
        std::vector<std::string_view> values;
        for (int i = 0; i < attributes.size(); ++i)
            values.push_back(attributes.value(i));
        record += "<";
        record += name;
        for (int i = 0; i < attributes.size(); ++i) {
            record += " ";
            record += attributes.name(i);
            record += "=";
            record += values[static_cast<size_t>(i)];
        }
        record += ">";
    }
    void endElement(std::string_view name) override {
        record += "</";
        record += name;
        record += ">";
    }
    void characters(std::string_view text) override { record += text; }
};

struct SaxOutcome {
    std::string record;
    bool failed = false;
    std::string error;
};

SaxOutcome readSax(const std::string &path, size_t chunkBytes) {
    SaxOutcome outcome;
    RecordingHandler handler;
    try {
        SaxFileParser parser(path, handler, chunkBytes);
        parser.parseAll();
    } catch (const ReadError &error) {
        outcome.failed = true;
        outcome.error = error.what();
    }
    outcome.record = handler.record;
    return outcome;
}

// Whether a partial read may throw error: a compact container whose header
// is damaged has nothing to keep, and a partial read refuses it as the
// strict one does (FrameFile.hpp).
bool partialReadMayRefuse(const ReadOutcome &strict, const std::string &error,
                          const std::string &path) {
    return strict.failed && strict.events.empty() && error == strict.error &&
           traceFormOf(path) == TraceForm::Compact;
}

void checkPartial(const ReadOutcome &strict, const std::string &path) {
    TraceOptions options;
    options.partial = true;
    const ReadOutcome partial = readEvents(path, options);
    if (partial.failed && !partialReadMayRefuse(strict, partial.error, path))
        fail("a partial read threw: " + partial.error);
    if (partial.failed) return;
    if (strict.failed != partial.damage.has_value())
        fail("strict read " + std::string(strict.failed ? "failed" : "succeeded") +
             ", partial read " + (partial.damage ? "reports damage" : "reports none"));
    if (!strict.failed && partial.events.size() != strict.events.size())
        fail("a partial read of an undamaged trace gave " + std::to_string(partial.events.size()) +
             " calls, the strict one " + std::to_string(strict.events.size()));
    if (strict.events.size() > partial.events.size())
        fail("a partial read kept fewer calls than the strict read delivered");
    for (size_t i = 0; i < strict.events.size(); ++i)
        if (!sameEvent(strict.events[i], partial.events[i]))
            fail("call " + std::to_string(i) + " differs between the strict and partial reads");
}

void checkNameFilter(const ReadOutcome &strict, const std::string &path) {
    TraceOptions options;
    options.filter.names = {"Send", "File_write_at", "Wait", "Nested", "Event"};
    const ReadOutcome filtered = readEvents(path, options);
    if (strict.failed) return;  // skipped calls are not decoded: may succeed
    if (filtered.failed)
        fail("the name filter failed where the full read did not: " + filtered.error);
    std::vector<const Event *> expected;
    for (const Event &event : strict.events)
        for (const std::string &name : options.filter.names)
            if (event.name == name) expected.push_back(&event);
    if (expected.size() != filtered.events.size())
        fail("the name filter gave " + std::to_string(filtered.events.size()) + " calls, not " +
             std::to_string(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i)
        if (!sameEvent(*expected[i], filtered.events[i]))
            fail("call " + std::to_string(i) + " of the name filter differs from the full read");
}

void checkTimeWindow(const ReadOutcome &strict, const std::string &path, uint64_t hash) {
    if (strict.failed || strict.events.empty()) return;
    const Event &a = strict.events[hash % strict.events.size()];
    const Event &b = strict.events[(hash >> 16) % strict.events.size()];
    TraceOptions options;
    options.filter.fromNs = std::min(a.startNs, b.startNs);
    options.filter.toNs = std::max(a.endNs, b.endNs);
    const ReadOutcome windowed = readEvents(path, options);
    if (windowed.failed)
        fail("the time window failed where the full read did not: " + windowed.error);
    if (windowed.events.size() > strict.events.size())
        fail("the time window gave more calls than the full read");
}

// Each row holds what the call says: its name, its times, and the numbers
// of its own size, offset and rid attributes. (Whichever parser fills the
// columns, the event reader is the reference.)
void compareRows(const EventColumns &columns, const std::vector<Event> &events) {
    for (size_t row = 0; row < events.size(); ++row) {
        const Event &event = events[row];
        const std::string where = "row " + std::to_string(row) + " (" + event.name + "): ";
        const int32_t code = columns.nameCode[row];
        if (code < 0 || static_cast<size_t>(code) >= columns.names.size() ||
            columns.names[static_cast<size_t>(code)] != event.name)
            fail(where + "the columns give another name");
        if (event.hasStart && columns.startNs[row] != event.startNs)
            fail(where + "the columns give another start time");
        if (event.hasStart && columns.endNs[row] != (event.hasEnd ? event.endNs : event.startNs))
            fail(where + "the columns give another end time");
        const std::pair<const char *, const hdtrace::reader::Column<int64_t> *> numbers[] = {
            {"size", &columns.size}, {"offset", &columns.offset}, {"rid", &columns.rid}};
        for (const auto &[attribute, column] : numbers) {
            const std::string *text = event.attribute(attribute);
            const std::optional<int64_t> value = text ? parseInteger(*text) : std::nullopt;
            if (value && (*column)[row] != *value)
                fail(where + "the columns give another " + attribute);
        }
    }
}

void checkColumns(const ReadOutcome &strict, const std::string &path, std::string_view input) {
    ColumnsResult columns;
    bool failed = false;
    try {
        columns = readEventColumns(path, TraceOptions{}, nullptr);
    } catch (const ReadError &) {
        failed = true;
    }
    // The columns refuse more (numbers beyond 32 bits), never less, but for
    // what lies inside the <Nested> blocks they skip.
    if (strict.failed && !failed && !insideNestedBlock(input, strict.errorLine))
        fail("the columns accepted a trace the event reader refused");
    const bool bothRead = !failed && !strict.failed;
    if (bothRead && columns.columns.rows() != strict.events.size())
        fail("the columns have " + std::to_string(columns.columns.rows()) + " rows for " +
             std::to_string(strict.events.size()) + " calls");
    if (bothRead) compareRows(columns.columns, strict.events);

    // Ranks local to communicators, translated through a small table.
    LocalToWorldTable table{{0, {0, 1}}, {1, {1}}, {2, {1, 0}}};
    TraceOptions partial;
    partial.partial = true;
    try {
        readEventColumns(path, partial, &table);
    } catch (const ReadError &error) {
        if (!partialReadMayRefuse(strict, error.what(), path))
            fail(std::string("a partial read into columns threw: ") + error.what());
    }
}

void checkChunking(const std::string &path, uint64_t hash) {
    const SaxOutcome whole = readSax(path, 256 * 1024);
    const size_t small = 1 + hash % 61;
    const SaxOutcome chunked = readSax(path, small);
    if (whole.failed != chunked.failed)
        fail("chunks of " + std::to_string(small) + " bytes " +
             (chunked.failed ? "fail: " + chunked.error : "succeed") + ", whole chunks " +
             (whole.failed ? "fail: " + whole.error : "succeed"));
    if (!whole.failed && whole.record != chunked.record)
        fail("chunks of " + std::to_string(small) + " bytes see other elements than whole chunks");
}

// The calls of two slices split at a byte the hash picks, when both read.
// (A slice may refuse what the whole read accepts: a line that starts with
// a start tag inside a call, or input that is no trace of the writer's.)
void checkSlices(const ReadOutcome &strict, const std::string &path, size_t size, uint64_t hash) {
    const uint64_t split = size == 0 ? 0 : (hash >> 24) % (size + 1);
    std::vector<Event> events;
    bool sliceFailed = false;
    for (const auto &[begin, end] : {std::pair<uint64_t, uint64_t>{0, split}, {split, size}}) {
        try {
            TraceReader reader(path, TraceOptions{}, begin, end);
            Event event;
            while (reader.next(event))
                events.push_back(event);
        } catch (const ReadError &) {
            sliceFailed = true;
        }
    }
    // The columns' slices against the columns' whole read, which refuses
    // more than the event reader (numbers beyond 32 bits).
    const auto rowNames = [](const EventColumns &columns, std::vector<std::string> *names) {
        for (size_t row = 0; row < columns.rows(); ++row)
            names->push_back(columns.names[static_cast<size_t>(columns.nameCode[row])]);
    };
    std::vector<std::string> wholeRows, slicedRows;
    bool columnsFailed = false;
    try {
        rowNames(readEventColumns(path, TraceOptions{}, nullptr).columns, &wholeRows);
        for (const auto &[begin, end] : {std::pair<uint64_t, uint64_t>{0, split}, {split, size}})
            rowNames(
                readEventColumnsSlice(path, TraceOptions{}, nullptr, begin, end).result.columns,
                &slicedRows);
    } catch (const ReadError &) {
        columnsFailed = true;
    }
    if (!columnsFailed && slicedRows != wholeRows)
        fail("two column slices split at " + std::to_string(split) + " gave " +
             std::to_string(slicedRows.size()) + " rows, not the whole read's " +
             std::to_string(wholeRows.size()));
    if (strict.failed) return;
    if (!sliceFailed) {
        if (events.size() != strict.events.size())
            fail("two slices split at " + std::to_string(split) + " gave " +
                 std::to_string(events.size()) + " calls, the whole read " +
                 std::to_string(strict.events.size()));
        for (size_t i = 0; i < events.size(); ++i)
            if (!sameEvent(events[i], strict.events[i], false))
                fail("call " + std::to_string(i) + " of two slices split at " +
                     std::to_string(split) + " differs from the whole read");
    }
}

}  // namespace

struct TreeRow {
    std::string name;
    int depth;
    int64_t parent, startNs, endNs;
};

// An event's calls in the call tree's order: the call, then the calls
// nested in it (its children with a time), each followed by its own.
void flattenCalls(const Event &event, int depth, int64_t parent, std::vector<TreeRow> &rows) {
    const auto row = static_cast<int64_t>(rows.size());
    rows.push_back(
        {event.name, depth, parent, event.startNs, event.hasEnd ? event.endNs : event.startNs});
    for (const Event &child : event.children)
        if (child.hasStart) flattenCalls(child, depth + 1, row, rows);
}

void checkCallTree(const ReadOutcome &strict, const std::string &path) {
    CallTreeResult result;
    bool failed = false;
    try {
        result = readCallTree(path);
    } catch (const ReadError &) {
        failed = true;
    }
    if (failed != strict.failed)
        fail(failed ? "the call tree refuses a trace the event reader reads"
                    : "the call tree reads a trace the event reader refuses");
    if (failed) return;
    std::vector<TreeRow> expected;
    for (const Event &event : strict.events)
        if (event.hasStart) flattenCalls(event, 0, -1, expected);
    const CallTree &tree = result.tree;
    if (tree.rows() != expected.size())
        fail("the call tree has " + std::to_string(tree.rows()) + " rows, the events " +
             std::to_string(expected.size()) + " calls");
    for (size_t row = 0; row < expected.size(); ++row) {
        const TreeRow &want = expected[row];
        if (tree.names[static_cast<size_t>(tree.nameCode[row])] != want.name ||
            tree.depth[row] != want.depth || tree.parent[row] != want.parent ||
            tree.startNs[row] != want.startNs || tree.endNs[row] != want.endNs)
            fail("row " + std::to_string(row) + " of the call tree is not the events' " +
                 want.name);
    }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string path = hdtrace::fuzz::writeScratchFile(
        "app_h_0_0.trc", std::string_view(reinterpret_cast<const char *>(data), size));
    const uint64_t hash = hdtrace::fuzz::hashOf(data, size);
    const ReadOutcome strict = readEvents(path, TraceOptions{});
    checkPartial(strict, path);
    checkNameFilter(strict, path);
    checkTimeWindow(strict, path, hash);
    checkColumns(strict, path, std::string_view(reinterpret_cast<const char *>(data), size));
    checkChunking(path, hash);
    checkSlices(strict, path, size, hash);
    checkCallTree(strict, path);
    return 0;
}
