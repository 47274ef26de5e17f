#include "RunReader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>

namespace hdtrace::merger {
namespace {

// The whole file, or false with *error set.
bool readWholeFile(const std::string &path, std::string &content, std::string *error) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = std::strerror(errno);
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
                                 "nothing else");
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

    std::string missing;
    size_t missingCount = 0;
    for (const RankModel &rank : run.ranks) {
        if (rank.present) continue;
        if (++missingCount <= 10)
            missing += (missing.empty() ? "" : ", ") + std::to_string(rank.rank);
    }
    if (missingCount > 0) {
        if (missingCount > 10) missing += ", ...";
        diagnostics.problem(run.traces.back().basePath, 0,
                            "gaps in the rank numbers: no trace of rank " + missing + " (" +
                                std::to_string(missingCount) + " of 0.." +
                                std::to_string(highestRank) + ")",
                            "nothing; those ranks are missing from the .proj");
    }
    return run;
}

}  // namespace hdtrace::merger
