// What the merger knows about a run after reading it: its traces, and per
// rank the communicators and datatypes of its .info files (all threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/TraceNames.hpp>

#include "InfoLine.hpp"
#include "InfoRecordPool.hpp"
#include "Span.hpp"

namespace hdtrace::merger {

// One process-and-thread trace: <directory>/<program>_<host>_<rank>_<thread>.
struct TraceSource {
    std::string basePath;  // without .trc / .ctrc / .info
    std::string directory;
    std::string host;
    std::string rankText;    // as in the file name (the Topology node name)
    std::string threadText;  // as in the file name
    int64_t rank = 0;
    int64_t thread = 0;
    bool hasInfo = false;
    bool hasTrace = false;
    // What the directory listing said of the files; false where it did not
    // say (a link, a file system that does not tell), which the readers
    // then ask the file itself.
    bool infoIsRegularFile = false;
    bool traceIsRegularFile = false;
    // The suffix of the trace found (.trc where both forms are there, as
    // the readers prefer it); empty while none is.
    std::string_view traceSuffix;

    std::string infoPath() const { return basePath + ".info"; }
    std::string tracePath() const {
        return basePath + std::string(traceSuffix.empty() ? kXmlTraceSuffix : traceSuffix);
    }
};

// Where a record came from, for messages.
struct SourceLine {
    uint32_t trace = 0;  // index into RunModel::traces
    uint32_t line = 0;
};

// The records of Comm and Type lines are kept once per distinct line text
// (InfoRecordPool): most lines repeat on many ranks, and a rank refers to
// its records. The references stay valid as long as the RunModel.
struct LocatedComm {
    const CommRecord &record;
    SourceLine source;
};

struct LocatedType {
    const TypeRecord &record;
    SourceLine source;
};

struct RankModel {
    int64_t rank = 0;
    bool present = false;     // some trace of this rank exists
    uint32_t firstTrace = 0;  // index into RunModel::traces of its first thread's, when present
    bool hasMpiLine = false;
    MpiConstants constants;
    // Every thread's, in file order: the rank's stretch of RunModel's
    // arrays (the ranks add their records rank after rank, so a rank's are
    // consecutive and need no allocation of their own).
    Span<LocatedComm> comms;
    Span<LocatedType> types;
};

struct ProjectFile {
    std::string name;
    int64_t initialSize = 0;
};

struct RunModel {
    std::string program;
    std::string directory;            // where the traces are
    std::vector<TraceSource> traces;  // by rank, then thread
    std::vector<RankModel> ranks;     // index = world rank, 0..N-1
    // The ranks' communicator and datatype records, rank after rank: what
    // their Spans show.
    std::vector<LocatedComm> comms;
    std::vector<LocatedType> types;
    std::vector<ProjectFile> files;  // unique names, in order of first sight
    // Ranks 0..worldSize-1 exist: the traced ranks and every rank a map names.
    int64_t worldSize = 0;
    // Owns the records the ranks' LocatedComm and LocatedType refer to.
    std::unique_ptr<InfoRecordPool> records;
    // By TypeRecord ordinal: how many of the run's Type lines have the
    // record's text. A record of one line is formed for one rank only.
    std::vector<uint32_t> typeRecordLines;

    bool isSingleLine(const TypeRecord &record) const {
        return record.ordinal < typeRecordLines.size() && typeRecordLines[record.ordinal] == 1;
    }

    std::string infoPathOf(const SourceLine &source) const {
        return traces[source.trace].infoPath();
    }
};

}  // namespace hdtrace::merger
