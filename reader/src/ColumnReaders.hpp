// The two column readers behind readEventColumns (EventColumns.hpp), each
// on its own: for the slices, the tests that compare them, and benchmarks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/reader/EventColumns.hpp>

#include "CompactSource.hpp"
#include "SaxFileParser.hpp"

namespace hdtrace::reader {

// libxml2 over pieces of the file read as one document (SaxFileParser), for slices.
ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld,
                                          std::vector<InputPiece> pieces,
                                          std::function<int(int)> fileLine);
// The dialect scanner alone: nullopt, with the reason in *reason, when it does
// not fully recognise the trace or the trace is damaged.
std::optional<ColumnsResult> readEventColumnsByDialect(const std::string &path,
                                                       const TraceOptions &options,
                                                       const LocalToWorldTable *localToWorld,
                                                       std::string *reason);
// The dialect scanner over bytes [from, to) of the file, inside the root whose
// timeAdjustment is given (DialectScanner::runSlice); nullopt as above.
std::optional<ColumnsResult> readEventColumnsByDialectSlice(
    const std::string &path, const TraceOptions &options, const LocalToWorldTable *localToWorld,
    std::string_view timeAdjustment, uint64_t from, uint64_t to, bool toIsEndOfFile,
    std::string *reason);

// A compact trace from its typed records (CompactColumns.cpp): nullopt, with
// the reason in *reason, where a value needs the XML grammar's checks of text.
std::optional<ColumnsResult> readEventColumnsByCompactRecords(
    const std::string &path, const TraceOptions &options, const LocalToWorldTable *localToWorld,
    const std::optional<CompactByteRange> &range, std::string *reason);
// libxml2 over the XML form of a compact trace's selected frames.
ColumnsResult readEventColumnsOfCompactXml(const std::string &path, const TraceOptions &options,
                                           const LocalToWorldTable *localToWorld,
                                           std::unique_ptr<CompactSource> source);
// A compact trace (or the frames of a byte range) by its records, else by
// its XML form, which gives the same columns or the same error.
ColumnsResult readCompactEventColumns(const std::string &path, const TraceOptions &options,
                                      const LocalToWorldTable *localToWorld,
                                      const std::optional<CompactByteRange> &range);

}  // namespace hdtrace::reader
