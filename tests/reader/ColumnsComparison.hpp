// Compares the two column readers (libxml2's SAX and the dialect scanner
// with its fallback) on one trace: the same columns, or the same error.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "ColumnReaders.hpp"

namespace hdtrace::reader::testing {

// The columns, or the error text ("file:line:column: problem").
struct ReadOutcome {
    std::optional<ColumnsResult> result;
    std::string error;
};

template <typename Read>
ReadOutcome readOutcome(Read read) {
    ReadOutcome outcome;
    try {
        outcome.result = read();
    } catch (const ReadError &error) {
        outcome.error = error.what();
    }
    return outcome;
}

template <typename T, typename Allocator>
void compareColumn(std::ostringstream &out, const char *name,
                   const std::vector<T, Allocator> &expected,
                   const std::vector<T, Allocator> &actual) {
    if (expected.size() != actual.size()) {
        out << name << ": " << expected.size() << " values against " << actual.size() << "\n";
        return;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
        if (!(expected[i] == actual[i])) {
            out << name << "[" << i << "]: " << expected[i] << " against " << actual[i] << "\n";
            return;
        }
    }
}

// Empty when equal, else what differs (libxml2's value first).
inline std::string differences(const ColumnsResult &expected, const ColumnsResult &actual) {
    std::ostringstream out;
    const EventColumns &a = expected.columns, &b = actual.columns;
    compareColumn(out, "names", a.names, b.names);
    compareColumn(out, "nameCode", a.nameCode, b.nameCode);
    compareColumn(out, "startNs", a.startNs, b.startNs);
    compareColumn(out, "endNs", a.endNs, b.endNs);
    compareColumn(out, "size", a.size, b.size);
    compareColumn(out, "offset", a.offset, b.offset);
    compareColumn(out, "rid", a.rid, b.rid);
    compareColumn(out, "peer", a.peer, b.peer);
    compareColumn(out, "tag", a.tag, b.tag);
    compareColumn(out, "cid", a.cid, b.cid);
    compareColumn(out, "fid", a.fid, b.fid);
    compareColumn(out, "recvPeer", a.recvPeer, b.recvPeer);
    compareColumn(out, "recvTag", a.recvTag, b.recvTag);
    compareColumn(out, "completionRow", a.completionRow, b.completionRow);
    compareColumn(out, "completionRid", a.completionRid, b.completionRid);
    compareColumn(out, "openRow", a.openRow, b.openRow);
    compareColumn(out, "openFid", a.openFid, b.openFid);
    compareColumn(out, "openName", a.openName, b.openName);
    if (a.untranslatedPeers != b.untranslatedPeers)
        out << "untranslatedPeers: " << a.untranslatedPeers << " against " << b.untranslatedPeers
            << "\n";
    if (expected.damage != actual.damage)
        out << "damage: " << expected.damage.value_or("(none)") << " against "
            << actual.damage.value_or("(none)") << "\n";
    if (expected.timeFractionDigits != actual.timeFractionDigits)
        out << "timeFractionDigits: " << expected.timeFractionDigits << " against "
            << actual.timeFractionDigits << "\n";
    return out.str();
}

inline std::string differences(const ReadOutcome &expected, const ReadOutcome &actual) {
    if (expected.error != actual.error)
        return "error: '" + expected.error + "' against '" + actual.error + "'\n";
    if (expected.result && actual.result) return differences(*expected.result, *actual.result);
    return {};
}

// Reads path with both readers under options. Empty when they agree.
inline std::string compareReaders(const std::string &path, const TraceOptions &options,
                                  const LocalToWorldTable *localToWorld = nullptr,
                                  std::optional<std::string> *fallback = nullptr) {
    ReadOutcome reference =
        readOutcome([&] { return readEventColumnsWithLibxml2(path, options, localToWorld); });
    ReadOutcome fast = readOutcome([&] { return readEventColumns(path, options, localToWorld); });
    if (fallback && fast.result) *fallback = fast.result->fallback;
    return differences(reference, fast);
}

}  // namespace hdtrace::reader::testing
