#include "RunReader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

namespace hdtrace::merger {
namespace {

// The whole file, or false with *error set.
bool readWholeFile(const std::string &path, std::string &content, std::string *error) {
    // O_NONBLOCK: a FIFO in place of a .info must not hang the merge.
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *error = std::strerror(errno);
        return false;
    }
    struct stat status {};
    if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        *error = "not a regular file";
        close(fd);
        return false;
    }
    content.clear();
    char buffer[1 << 16];
    while (true) {
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR) continue;
            *error = std::strerror(errno);
            close(fd);
            return false;
        }
        if (got == 0) break;
        content.append(buffer, static_cast<size_t>(got));
    }
    close(fd);
    return true;
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
        if (!readWholeFile(path, content_, &error)) {
            diagnostics_.problem(path, 0, "cannot read: " + error,
                                 "its files, communicators and datatypes");
            return;
        }
        size_t lineNumber = 0;
        size_t records = 0;
        size_t pos = 0;
        while (pos < content_.size()) {
            ++lineNumber;
            size_t end = content_.find('\n', pos);
            const bool complete = end != std::string::npos;
            if (!complete) end = content_.size();
            const std::string_view text(content_.data() + pos, end - pos);
            pos = end + 1;
            if (!complete) {
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
    std::string content_;
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

}  // namespace

RunModel readRun(DiscoveredRun discovered, Diagnostics &diagnostics,
                 const std::function<void(size_t, size_t)> &progress) {
    RunModel run;
    run.program = std::move(discovered.program);
    run.directory = std::move(discovered.directory);
    run.traces = std::move(discovered.traces);

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
