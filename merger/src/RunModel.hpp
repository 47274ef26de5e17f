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

// One rank's consecutive elements of an array the RunModel holds for all
// ranks: a run's ranks add their records in rank order, so each rank's are
// one stretch of a single array, with no allocation of the rank's own.
template <class T>
class RankSlice {
  public:
    void assign(const T *data, size_t size) {
        data_ = data;
        size_ = size;
    }
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T &operator[](size_t index) const { return data_[index]; }
    const T &front() const { return data_[0]; }

  private:
    const T *data_ = nullptr;
    size_t size_ = 0;
};

struct RankModel {
    int64_t rank = 0;
    bool present = false;     // some trace of this rank exists
    uint32_t firstTrace = 0;  // index into RunModel::traces of its first thread's, when present
    bool hasMpiLine = false;
    MpiConstants constants;
    RankSlice<LocatedComm> comms;  // every thread's, in file order
    RankSlice<LocatedType> types;  // every thread's, in file order
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
    // their RankSlices show.
    std::vector<LocatedComm> comms;
    std::vector<LocatedType> types;
    std::vector<ProjectFile> files;  // unique names, in order of first sight
    // Ranks 0..worldSize-1 exist: the traced ranks and every rank a map names.
    int64_t worldSize = 0;
    // Owns the records the ranks' LocatedComm and LocatedType refer to.
    std::unique_ptr<InfoRecordPool> records;

    std::string infoPathOf(const SourceLine &source) const {
        return traces[source.trace].infoPath();
    }
};

}  // namespace hdtrace::merger
