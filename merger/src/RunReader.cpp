#include "RunReader.hpp"

#include <algorithm>
#include <unordered_map>

#include "InfoFileLines.hpp"

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

class Reader {
  public:
    Reader(RunModel &run, Diagnostics &diagnostics) : run_(run), diagnostics_(diagnostics) {}

    void readTrace(uint32_t traceIndex) {
        const TraceSource &trace = run_.traces[traceIndex];
        RankModel &rank = run_.ranks[static_cast<size_t>(trace.rank)];
        rank.traces.push_back(traceIndex);
        if (!trace.hasInfo) return;
        const std::string path = trace.infoPath();
        std::string error;
        // Line by line: memory follows the records kept, not the file size.
        InfoFileLines lines;
        if (!lines.open(path, &error)) {
            diagnostics_.problem(path, 0, "cannot read: " + error,
                                 "its files, communicators and datatypes");
            return;
        }
        size_t records = 0;
        std::string_view text;
        while (true) {
            const InfoFileLines::Status status = lines.next(&text, &error);
            const size_t lineNumber = lines.lineNumber();
            if (!error.empty()) {
                diagnostics_.problem(path, lineNumber, "cannot read: " + error,
                                     "the rest of the file");
                break;
            }
            if (status == InfoFileLines::Status::End) break;
            if (status == InfoFileLines::Status::TooLong) {
                diagnostics_.problem(path, lineNumber,
                                     "a line longer than " +
                                         std::to_string(lines.maxLineBytes >> 20) +
                                         " MiB, the merger's limit",
                                     "the line");
                continue;
            }
            if (status == InfoFileLines::Status::Unterminated) {
                diagnostics_.problem(path, lineNumber,
                                     "truncated line: the file ends without a newline", "the line");
                break;
            }
            try {
                parseInfoLine(text, line_);
            } catch (const InfoSyntaxError &syntax) {
                diagnostics_.problem(path, lineNumber, syntax.what(), "the line");
                continue;
            }
            if (const std::string *name = overlongName(line_)) {
                diagnostics_.problem(
                    path, lineNumber,
                    "a name of " + std::to_string(name->size()) + " bytes, longer than the " +
                        std::to_string(kMaxInfoNameBytes) + " the readers of the .proj accept",
                    "the line");
                continue;
            }
            const SourceLine source{traceIndex, static_cast<uint32_t>(lineNumber)};
            switch (line_.kind) {
                case InfoLine::Kind::Ignored:
                    continue;
                case InfoLine::Kind::Mpi:
                    rank.hasMpiLine = true;
                    rank.constants = line_.mpi;
                    break;
                case InfoLine::Kind::File:
                    addFile(line_.file);
                    break;
                case InfoLine::Kind::Comm:
                    rank.comms.push_back({std::move(line_.comm), source});
                    break;
                case InfoLine::Kind::Type:
                    rank.types.push_back({std::move(line_.type), source});
                    break;
            }
            ++records;
        }
        if (records == 0 && trace.thread == run_.traces[rank.traces.front()].thread)
            diagnostics_.problem(path, 0, "empty input: the .info holds no records",
                                 "nothing: the rank has no files, communicators or datatypes");
    }

  private:
    void addFile(const FileRecord &file) {
        const auto [found, added] = fileIndex_.emplace(file.name, run_.files.size());
        (void)found;
        if (added) run_.files.push_back({file.name, file.size});
    }

    RunModel &run_;
    Diagnostics &diagnostics_;
    InfoLine line_;
    std::unordered_map<std::string, size_t> fileIndex_;
};

int64_t highestNamedRank(const RankMap &map) {
    int64_t highest = -1;
    for (const RankRun &run : map)
        highest = std::max(highest, run.world + run.length - 1);
    return highest;
}

// The world is every traced rank and every rank a map names. A rank that a
// map names but that has no trace is a gap; one far beyond the traced ranks
// is a bad line (it would also make the communicator tables huge).
void checkWorldSize(RunModel &run, int64_t highestRank, Diagnostics &diagnostics) {
    const int64_t limit = std::max<int64_t>(2 * (highestRank + 1), highestRank + 1 + 1024);
    run.worldSize = highestRank + 1;
    SourceLine namedAt{};
    for (RankModel &rank : run.ranks) {
        auto kept = rank.comms.begin();
        for (auto comm = rank.comms.begin(); comm != rank.comms.end(); ++comm) {
            const int64_t highest =
                std::max(highestNamedRank(comm->record.map), highestNamedRank(comm->record.remote));
            if (highest >= limit) {
                diagnostics.problem(
                    run.infoPathOf(comm->source), comm->source.line,
                    "Comm line: communicator id=" + std::to_string(comm->record.id) +
                        " names world rank " + std::to_string(highest) +
                        ", far beyond the highest traced rank " + std::to_string(highestRank),
                    "the line");
                continue;
            }
            if (highest >= run.worldSize) {
                run.worldSize = highest + 1;
                namedAt = comm->source;
            }
            if (kept != comm) *kept = std::move(*comm);
            ++kept;
        }
        rank.comms.erase(kept, rank.comms.end());
    }

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
                 const std::function<void(size_t, size_t)> &progress) {
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

    Reader reader(run, diagnostics);
    const size_t total = run.traces.size();
    for (size_t index = 0; index < total; ++index) {
        run.ranks[static_cast<size_t>(run.traces[index].rank)].present = true;
        reader.readTrace(static_cast<uint32_t>(index));
        if (progress && (index % 64 == 63 || index + 1 == total)) progress(index + 1, total);
    }

    checkWorldSize(run, highestRank, diagnostics);
    return run;
}

}  // namespace hdtrace::merger
