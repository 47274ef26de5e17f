#include "RunReader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <new>
#include <optional>
#include <unordered_map>

#include "FlatMap.hpp"
#include "InfoFileLines.hpp"
#include "InfoRecordPool.hpp"
#include "OrderedParallel.hpp"
#include "TextArena.hpp"
#include "TextKey.hpp"

namespace hdtrace::merger {
namespace {

// The name of a File, Comm or Type record when it is longer than the readers
// of the .proj accept; nullptr otherwise.
const std::string *overlongName(const InfoLine &line) {
    const std::string *name = nullptr;
    if (line.kind == InfoLine::Kind::File) name = &line.file.name;
    if (line.kind == InfoLine::Kind::Comm) name = &line.comm.name;
    if (line.kind == InfoLine::Kind::Type) name = &line.type.name;
    return name && name->size() > kMaxInfoNameBytes ? name : nullptr;
}

// A problem found while reading, reported when the trace's turn comes.
struct ReadProblem {
    size_t line;
    std::string what;
    std::string dropped;
};

// One record or problem of a .info file, in line order.
struct ReadItem {
    enum class What : uint8_t { Problem, Mpi, File, Comm, Type };
    What what;
    uint32_t line;
    uint32_t detail = 0;  // Problem, Mpi, File: index into TraceRead's list of them
    const CommRecord *comm = nullptr;
    const TypeRecord *type = nullptr;
};

// The most items of a trace whose room is used again for the next.
constexpr size_t kKeptItems = size_t(1) << 16;

// What a reading thread found in one trace's .info file.
struct TraceRead {
    bool hasInfo = false;
    bool opened = false;
    size_t records = 0;
    std::vector<ReadItem> items;
    std::vector<ReadProblem> problems;
    std::vector<MpiConstants> mpis;
    std::vector<FileRecord> files;

    // Empty again, keeping the room of the lists for the next trace; not
    // the room of a trace far larger than most, which would stay held for
    // the rest of the run. Every problem and file is also an item, so the
    // items' room bounds the others'.
    void clear() {
        if (items.capacity() > kKeptItems) {
            *this = TraceRead();
            return;
        }
        hasInfo = false;
        opened = false;
        records = 0;
        items.clear();
        problems.clear();
        mpis.clear();
        files.clear();
    }

    void problem(size_t line, std::string what, std::string dropped) {
        items.push_back({ReadItem::What::Problem, static_cast<uint32_t>(line),
                         static_cast<uint32_t>(problems.size())});
        problems.push_back({line, std::move(what), std::move(dropped)});
    }
};

bool startsWithKeyword(std::string_view text, std::string_view keyword) {
    return text.size() > keyword.size() && text.compare(0, keyword.size(), keyword) == 0 &&
           (text[keyword.size()] == ' ' || text[keyword.size()] == '\t');
}

// Parses .info files into TraceReads; one per reading thread. Comm and Type
// lines whose text an earlier line had are not parsed again.
class TraceParser {
  public:
    explicit TraceParser(InfoRecordPool &pool) : comms_(pool.comms), types_(pool.types) {}
    ~TraceParser() {
        if (directoryFd_ >= 0) close(directoryFd_);
    }
    TraceParser(const TraceParser &) = delete;
    TraceParser &operator=(const TraceParser &) = delete;

    void parse(const TraceSource &trace, TraceRead &out) {
        out.clear();
        out.hasInfo = trace.hasInfo;
        if (!trace.hasInfo) return;
        fileNames_.clear(filesOfLastFile_);
        fileNameTexts_.clear();
        std::string error;
        // Line by line: memory follows the records kept, not the file size.
        InfoFileLines &lines = lines_;
        if (!openInfo(trace, &error)) {
            out.problem(0, "cannot read: " + error, "its files, communicators and datatypes");
            return;
        }
        out.opened = true;
        // A run's .info files are mostly alike: room for as many items and
        // files as the last one had saves growing the lists line by line.
        out.items.reserve(itemsOfLastFile_);
        out.files.reserve(filesOfLastFile_);
        std::string_view text;
        while (true) {
            const InfoFileLines::Status status = lines.next(&text, &error);
            const size_t lineNumber = lines.lineNumber();
            if (!error.empty()) {
                out.problem(lineNumber, "cannot read: " + error, "the rest of the file");
                break;
            }
            if (status == InfoFileLines::Status::End) break;
            if (status == InfoFileLines::Status::TooLong) {
                out.problem(lineNumber,
                            "a line longer than " + std::to_string(lines.maxLineBytes >> 20) +
                                " MiB, the merger's limit",
                            "the line");
                continue;
            }
            if (status == InfoFileLines::Status::Unterminated) {
                out.problem(lineNumber, "truncated line: the file ends without a newline",
                            "the line");
                break;
            }
            const auto line = static_cast<uint32_t>(lineNumber);
            const bool isComm = startsWithKeyword(text, "Comm");
            const bool isType = !isComm && startsWithKeyword(text, "Type");
            std::optional<HashedText> hashed;
            if (isComm || isType) {
                hashed.emplace(text);
                if (isComm) {
                    if (const CommRecord *comm = comms_.find(*hashed)) {
                        out.items.push_back({ReadItem::What::Comm, line, 0, comm, nullptr});
                        ++out.records;
                        continue;
                    }
                } else if (const TypeRecord *type = types_.find(*hashed)) {
                    out.items.push_back({ReadItem::What::Type, line, 0, nullptr, type});
                    ++out.records;
                    continue;
                }
            }
            try {
                parseInfoLine(text, line_);
            } catch (const InfoSyntaxError &syntax) {
                out.problem(lineNumber, syntax.what(), "the line");
                continue;
            }
            if (const std::string *name = overlongName(line_)) {
                out.problem(lineNumber,
                            "a name of " + std::to_string(name->size()) +
                                " bytes, longer than the " + std::to_string(kMaxInfoNameBytes) +
                                " the readers of the .proj accept",
                            "the line");
                continue;
            }
            switch (line_.kind) {
                case InfoLine::Kind::Ignored:
                    continue;
                case InfoLine::Kind::Mpi:
                    out.items.push_back(
                        {ReadItem::What::Mpi, line, static_cast<uint32_t>(out.mpis.size())});
                    out.mpis.push_back(line_.mpi);
                    break;
                case InfoLine::Kind::File:
                    // Only a name's first line counts, so a file of repeated
                    // lines is held as its distinct names.
                    if (!isNewFileName(line_.file.name)) break;
                    out.items.push_back(
                        {ReadItem::What::File, line, static_cast<uint32_t>(out.files.size())});
                    out.files.push_back(std::move(line_.file));
                    break;
                case InfoLine::Kind::Comm:
                    if (!hashed) hashed.emplace(text);
                    out.items.push_back({ReadItem::What::Comm, line, 0,
                                         &comms_.add(*hashed, std::move(line_.comm)), nullptr});
                    break;
                case InfoLine::Kind::Type:
                    if (!hashed) hashed.emplace(text);
                    out.items.push_back({ReadItem::What::Type, line, 0, nullptr,
                                         &types_.add(*hashed, std::move(line_.type))});
                    break;
            }
            ++out.records;
        }
        itemsOfLastFile_ = out.items.size();
        filesOfLastFile_ = out.files.size();
    }

  private:
    bool isNewFileName(const std::string &name) {
        const TextKey key = TextKey::of(name);
        if (fileNames_.find(key)) return false;
        fileNames_.tryEmplace({key.hash, fileNameTexts_.keep(name)}, true);
        return true;
    }

    // Opens the trace's .info by its name in the trace's directory, which
    // stays open from trace to trace: the kernel then looks up one name per
    // file, not every directory on the way to it.
    bool openInfo(const TraceSource &trace, std::string *error) {
        if (!directoryTried_ || trace.directory != directory_) {
            if (directoryFd_ >= 0) close(directoryFd_);
            directory_ = trace.directory;
            directoryFd_ = ::open(directory_.empty() ? "." : directory_.c_str(),
                                  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            directoryTried_ = true;
        }
        // Where the directory cannot be opened, the file is opened by its
        // path, to say what is wrong with it.
        if (directoryFd_ < 0) return lines_.open(trace.infoPath(), error);
        const size_t slash = trace.basePath.rfind('/');
        infoName_.assign(trace.basePath, slash == std::string::npos ? 0 : slash + 1);
        infoName_.append(kInfoSuffix);
        return lines_.open(infoName_.c_str(), error, directoryFd_, trace.infoIsRegularFile);
    }

    RecentRecords<CommRecord> comms_;
    RecentRecords<TypeRecord> types_;
    std::string directory_;  // of the last trace; open as directoryFd_
    int directoryFd_ = -1;
    bool directoryTried_ = false;
    std::string infoName_;
    InfoFileLines lines_;  // one buffer for all the files this parser reads
    InfoLine line_;
    // The file names of the trace under way, kept in an arena that each
    // trace uses again.
    TextArena fileNameTexts_;
    FlatMap<TextKey, bool, TextKeyHash, TextKeyEqual> fileNames_;
    size_t itemsOfLastFile_ = 0;
    size_t filesOfLastFile_ = 0;
};

// Gives each rank its stretch of `all`, the ranks' elements rank after
// rank, counts[r] of them rank r's.
template <class T>
void sliceByRank(std::vector<RankModel> &ranks, const std::vector<T> &all,
                 const std::vector<uint32_t> &counts, Span<T> RankModel::*slice) {
    size_t first = 0;
    for (size_t rank = 0; rank < ranks.size(); ++rank) {
        ranks[rank].*slice = Span<T>(all.data() + first, counts[rank]);
        first += counts[rank];
    }
}

// The most records of each kind expect() makes room for: 1 GiB of them.
constexpr size_t kMaxRecordsExpected = size_t(64) << 20;

// Adds what was read to the RunModel, trace by trace in order (so rank after
// rank): the records to the run's arrays, the problems to the diagnostics.
class RunBuilder {
  public:
    RunBuilder(RunModel &run, Diagnostics &diagnostics)
        : run_(run),
          diagnostics_(diagnostics),
          commCounts_(run.ranks.size(), 0),
          typeCounts_(run.ranks.size(), 0) {}

    void add(uint32_t traceIndex, const TraceRead &read) {
        const TraceSource &trace = run_.traces[traceIndex];
        const size_t rankIndex = static_cast<size_t>(trace.rank);
        RankModel &rank = run_.ranks[rankIndex];
        if (!rank.present) rank.firstTrace = traceIndex;
        rank.present = true;
        if (!read.hasInfo) return;
        for (const ReadItem &item : read.items) {
            const SourceLine source{traceIndex, item.line};
            switch (item.what) {
                case ReadItem::What::Problem: {
                    const ReadProblem &problem = read.problems[item.detail];
                    diagnostics_.problem(trace.infoPath(), problem.line, problem.what,
                                         problem.dropped);
                    break;
                }
                case ReadItem::What::Mpi:
                    rank.hasMpiLine = true;
                    rank.constants = read.mpis[item.detail];
                    break;
                case ReadItem::What::File:
                    addFile(read.files[item.detail]);
                    break;
                case ReadItem::What::Comm:
                    run_.comms.push_back({*item.comm, source});
                    ++commCounts_[rankIndex];
                    break;
                case ReadItem::What::Type:
                    run_.types.push_back({*item.type, source});
                    ++typeCounts_[rankIndex];
                    break;
            }
        }
        if (read.opened && read.records == 0 && trace.thread == run_.traces[rank.firstTrace].thread)
            diagnostics_.problem(trace.infoPath(), 0, "empty input: the .info holds no records",
                                 "nothing: the rank has no files, communicators or datatypes");
    }

    // Once the first traces are added: room in the run's arrays for the
    // records of all, at their rate so far and twice over. Most runs' traces
    // are alike, and room not used costs no memory (the kernel provides
    // pages as they are written), where an array grown as it goes is copied
    // at each doubling and its pages are written twice. Only a hint: a
    // first batch unlike the rest, or an address space too small for the
    // room, leaves the arrays to grow as they go.
    void expect(size_t tracesAdded, size_t tracesInAll) {
        const auto roomFor = [&](size_t records) {
            const double estimate = 2.0 * static_cast<double>(records) *
                                    static_cast<double>(tracesInAll) /
                                    static_cast<double>(std::max<size_t>(tracesAdded, 1));
            return static_cast<size_t>(std::min(estimate, double(kMaxRecordsExpected)));
        };
        try {
            run_.comms.reserve(roomFor(run_.comms.size()));
            run_.types.reserve(roomFor(run_.types.size()));
        } catch (const std::bad_alloc &) {
        }
    }

    // Once every trace is added: the ranks' slices of the run's arrays.
    void finish() {
        sliceByRank(run_.ranks, run_.comms, commCounts_, &RankModel::comms);
        sliceByRank(run_.ranks, run_.types, typeCounts_, &RankModel::types);
    }

  private:
    void addFile(const FileRecord &file) {
        if (fileIndex_.try_emplace(file.name, run_.files.size()).second)
            run_.files.push_back({file.name, file.size});
    }

    RunModel &run_;
    Diagnostics &diagnostics_;
    std::unordered_map<std::string, size_t> fileIndex_;
    std::vector<uint32_t> commCounts_;  // by rank
    std::vector<uint32_t> typeCounts_;
};

// Takes the dropped communicator records out of the run's array.
void dropComms(RunModel &run, const std::vector<bool> &dropped) {
    std::vector<LocatedComm> kept;
    std::vector<uint32_t> counts(run.ranks.size(), 0);
    for (size_t rank = 0; rank < run.ranks.size(); ++rank) {
        for (const LocatedComm &comm : run.ranks[rank].comms) {
            if (dropped[static_cast<size_t>(&comm - run.comms.data())]) continue;
            kept.push_back(comm);
            ++counts[rank];
        }
    }
    // LocatedComm refers to its record, so the vector is swapped, not assigned.
    run.comms.swap(kept);
    sliceByRank(run.ranks, run.comms, counts, &RankModel::comms);
}

int64_t highestNamedRank(const RankMap &map) {
    int64_t highest = -1;
    for (const RankRun &run : map)
        highest = std::max(highest, run.highestWorld());
    return highest;
}

// The world is every traced rank and every rank a map names. A rank that a
// map names but that has no trace is a gap; one far beyond the traced ranks
// is a bad line (it would also make the communicator tables huge).
void checkWorldSize(RunModel &run, int64_t highestRank, Diagnostics &diagnostics) {
    const int64_t limit = std::max<int64_t>(2 * (highestRank + 1), highestRank + 1 + 1024);
    run.worldSize = highestRank + 1;
    SourceLine namedAt{};
    // Many ranks share a record; its maps are looked at once (-2: not yet).
    std::vector<int64_t> highestOf(run.records->comms.size(), -2);
    std::vector<bool> dropped;  // by index into run.comms, once any is
    for (const LocatedComm &comm : run.comms) {
        int64_t &highest = highestOf[comm.record.ordinal];
        if (highest == -2)
            highest =
                std::max(highestNamedRank(comm.record.map), highestNamedRank(comm.record.remote));
        if (highest >= limit) {
            diagnostics.problem(run.infoPathOf(comm.source), comm.source.line,
                                "Comm line: communicator id=" + std::to_string(comm.record.id) +
                                    " names world rank " + std::to_string(highest) +
                                    ", far beyond the highest traced rank " +
                                    std::to_string(highestRank),
                                "the line");
            if (dropped.empty()) dropped.assign(run.comms.size(), false);
            dropped[static_cast<size_t>(&comm - run.comms.data())] = true;
            continue;
        }
        if (highest >= run.worldSize) {
            run.worldSize = highest + 1;
            namedAt = comm.source;
        }
    }
    if (!dropped.empty()) dropComms(run, dropped);

    std::string missing;
    int64_t missingCount = 0;
    for (int64_t rank = 0; rank < run.worldSize; ++rank) {
        if (rank < static_cast<int64_t>(run.ranks.size()) && run.ranks[size_t(rank)].present)
            continue;
        if (++missingCount <= 10) missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
        if (missingCount > 10) {
            // Count the rest without visiting them.
            int64_t presentAbove = 0;
            for (int64_t above = rank + 1; above < static_cast<int64_t>(run.ranks.size()); ++above)
                presentAbove += run.ranks[size_t(above)].present ? 1 : 0;
            missingCount += run.worldSize - rank - 1 - presentAbove;
            missing += ", ...";
            break;
        }
    }
    if (missingCount == 0) return;
    std::string what = "gaps in the rank numbers: no trace of rank " + missing + " (" +
                       std::to_string(missingCount) + " of 0.." +
                       std::to_string(run.worldSize - 1) + ")";
    const bool named = run.worldSize > highestRank + 1;
    if (named) what += "; this map names world rank " + std::to_string(run.worldSize - 1);
    diagnostics.problem(named ? run.infoPathOf(namedAt) : run.traces.back().basePath,
                        named ? namedAt.line : 0, what,
                        "nothing; those ranks have no trace in the .proj");
}

// The rank tables are indexed by rank number, so a rank number far beyond
// the number of traced ranks (one file named app_h_2147483647_0.trc) would
// cost memory for every rank below it. Such a trace is a gap too large to be
// a run with missing traces: refused (dropped with --force) before anything
// is allocated, so that memory follows the traces present. traces is sorted
// by rank.
void dropFarRanks(std::vector<TraceSource> &traces, Diagnostics &diagnostics) {
    int64_t traced = 0;
    for (size_t i = 0; i < traces.size(); ++i)
        traced += i == 0 || traces[i].rank != traces[i - 1].rank ? 1 : 0;
    const int64_t limit = std::max<int64_t>(2 * traced, traced + 1024);
    auto far = std::find_if(traces.begin(), traces.end(),
                            [limit](const TraceSource &trace) { return trace.rank >= limit; });
    for (auto trace = far; trace != traces.end(); ++trace) {
        diagnostics.problem(trace->tracePath(), 0,
                            "gaps in the rank numbers: rank " + trace->rankText +
                                " in the file name, but only " + std::to_string(traced) +
                                " rank(s) are traced (at most " + std::to_string(limit) +
                                " rank numbers are allowed for them)",
                            "this trace");
    }
    traces.erase(far, traces.end());
    if (traces.empty()) throw MergeError("", 0, "empty input: no usable traces");
}

}  // namespace

RunModel readRun(DiscoveredRun discovered, Diagnostics &diagnostics,
                 const std::function<void(size_t, size_t)> &progress, unsigned jobs) {
    RunModel run;
    run.program = std::move(discovered.program);
    run.directory = std::move(discovered.directory);
    run.traces = std::move(discovered.traces);

    dropFarRanks(run.traces, diagnostics);
    int64_t highestRank = -1;
    for (const TraceSource &trace : run.traces)
        highestRank = std::max(highestRank, trace.rank);
    if (highestRank >= (int64_t(1) << 31))
        throw MergeError(run.traces.back().basePath, 0, "rank number out of range");
    run.ranks.resize(static_cast<size_t>(highestRank + 1));
    for (size_t rank = 0; rank < run.ranks.size(); ++rank)
        run.ranks[rank].rank = static_cast<int64_t>(rank);

    run.records = std::make_unique<InfoRecordPool>();
    RunBuilder builder(run, diagnostics);
    const size_t total = run.traces.size();
    // Traces are read in batches of 64 on the threads and added here in order.
    InfoRecordPool &pool = *run.records;
    const std::vector<TraceSource> &traces = run.traces;
    OrderedParallel<TraceRead> reader(total, 64, jobs, 4 * size_t(jobs), [&pool, &traces] {
        auto parser = std::make_shared<TraceParser>(pool);
        return [parser, &traces](size_t trace, TraceRead &read) {
            parser->parse(traces[trace], read);
        };
    });
    for (size_t batch = 0; batch < reader.batchCount(); ++batch) {
        std::vector<TraceRead> reads = reader.take(batch);
        const size_t first = reader.firstItemOf(batch);
        for (size_t offset = 0; offset < reads.size(); ++offset)
            builder.add(static_cast<uint32_t>(first + offset), reads[offset]);
        if (batch == 0) builder.expect(reads.size(), total);
        if (progress) progress(first + reads.size(), total);
        reader.giveBack(std::move(reads));
    }
    builder.finish();

    checkWorldSize(run, highestRank, diagnostics);
    run.typeRecordLines.assign(run.records->types.size(), 0);
    for (const LocatedType &type : run.types)
        ++run.typeRecordLines[type.record.ordinal];
    return run;
}

}  // namespace hdtrace::merger
