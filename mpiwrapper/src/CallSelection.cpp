#include "CallSelection.hpp"

#include <cstdio>
#include <string>

#include <mpi.h>

#include "FilePaths.hpp"

namespace hdtracempi {

std::atomic<uint8_t> gTracedCalls[hdtrace::filter::kCallCount];
std::atomic<bool> gRequestsNamed{true};

namespace {

using hdtrace::filter::FilterError;
using hdtrace::filter::Rule;
using hdtrace::filter::TraceFilter;

TraceFilter *gFilter = nullptr;

// A directory as a file pattern: its shell specials taken literally.
std::string literalPattern(const std::string &text) {
    std::string pattern;
    for (const char c : text) {
        if (c == '*' || c == '?' || c == '[' || c == '\\') pattern += '\\';
        pattern += c;
    }
    return pattern;
}

// HDTRACE_POSIX_EXCLUDE=DIR:DIR: "exclude file DIR DIR/*" for each.
void addExcludedDirectories(TraceFilter &filter, std::string_view colonSeparated) {
    Rule rule;
    rule.kind = Rule::Kind::File;
    rule.include = false;
    rule.place.source = "HDTRACE_POSIX_EXCLUDE";
    size_t start = 0;
    while (start <= colonSeparated.size()) {
        size_t end = colonSeparated.find(':', start);
        if (end == std::string_view::npos) end = colonSeparated.size();
        const std::string_view entry = colonSeparated.substr(start, end - start);
        if (!entry.empty()) {
            const std::string directory = literalPattern(normalisedPath(entry));
            rule.patterns.push_back(directory);
            rule.patterns.push_back(directory == "/" ? "/*" : directory + "/*");
        }
        start = end + 1;
    }
    if (!rule.patterns.empty()) filter.addRule(std::move(rule));
}

// The rules in force: the shorthands first, so that the file's rules,
// which come last, win where both match.
TraceFilter rulesOf(const Config &config) {
    TraceFilter filter;
    if (!config.allFunctions) filter.addText("exclude group ordinary", "HDTRACE_ALL_FUNCTIONS=0");
    if (!config.posix) filter.addText("layer posix off\nlayer stdio off", "HDTRACE_POSIX=0");
    addExcludedDirectories(filter, config.posixExclude);
    if (!config.filter.empty()) filter.addFile(config.filter);
    return filter;
}

// Whether a traced call of this rank is in the group request-completions.
bool namesRequests() {
    const std::vector<hdtrace::filter::GroupEntry> &groups = hdtrace::filter::dialectGroups();
    int group = -1;
    for (size_t index = 0; index < groups.size(); ++index)
        if (groups[index].name == "request-completions") group = static_cast<int>(index);
    if (group < 0) return true;  // the dialect lost the group: follow every request
    const std::vector<hdtrace::filter::CallEntry> &calls = hdtrace::filter::dialectCalls();
    for (size_t index = 0; index < calls.size(); ++index)
        if ((calls[index].groups >> group & 1) && callTraced(static_cast<uint16_t>(index)))
            return true;
    return false;
}

}  // namespace

const TraceFilter &traceFilter() {
    static const TraceFilter none;
    return gFilter ? *gFilter : none;
}

bool selectCalls(const Config &config, int worldRank, int worldSize) {
    std::string problem;
    TraceFilter filter;
    try {
        filter = rulesOf(config);
    } catch (const FilterError &error) {
        problem = error.what();
    }
    if (!config.filter.empty()) {
        // Each rank reads the file itself: agree, so that all stop or none.
        int failed = problem.empty() ? worldSize : worldRank;
        int firstFailed = worldSize;
        PMPI_Allreduce(&failed, &firstFailed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (firstFailed < worldSize) {
            if (worldRank == firstFailed)
                std::fprintf(stderr,
                             "hdtracempi: error: the filter (HDTRACE_FILTER) cannot be "
                             "used: %s\nhdtracempi: nothing was traced; the program "
                             "stops in MPI_Init.\n",
                             problem.c_str());
            return false;
        }
    } else if (!problem.empty()) {
        // A shorthand the wrapper wrote itself: cannot fail, but say so if it does.
        if (worldRank == 0) std::fprintf(stderr, "hdtracempi: warning: %s\n", problem.c_str());
    }
    const bool rankTraced = filter.tracesRank(worldRank);
    const std::vector<uint8_t> traced = filter.tracedCalls();
    bool anyCall = false;
    for (size_t index = 0; index < traced.size(); ++index) {
        gTracedCalls[index].store(rankTraced ? traced[index] : 0, std::memory_order_relaxed);
        anyCall = anyCall || traced[index] != 0;
    }
    gRequestsNamed.store(namesRequests(), std::memory_order_relaxed);
    if (worldRank == 0) {
        for (const std::string &warning : filter.warnings())
            std::fprintf(stderr, "hdtracempi: warning: %s\n", warning.c_str());
        bool anyRank = false;
        for (int rank = 0; rank < worldSize && !anyRank; ++rank)
            anyRank = filter.tracesRank(rank);
        if (!anyCall)
            std::fprintf(stderr,
                         "hdtracempi: warning: the filter %s leaves out every call: the "
                         "traces will hold no calls\n",
                         config.filter.c_str());
        else if (!anyRank)
            std::fprintf(stderr,
                         "hdtracempi: warning: the filter %s leaves out every rank of "
                         "the %d: the traces will hold no calls\n",
                         config.filter.c_str(), worldSize);
    }
    gFilter = new TraceFilter(std::move(filter));
    return true;
}

bool tracesCLibraryCalls() {
    const std::vector<hdtrace::filter::CallEntry> &calls = hdtrace::filter::dialectCalls();
    for (size_t index = 0; index < calls.size(); ++index)
        if (calls[index].layer != "mpi" && callTraced(static_cast<uint16_t>(index))) return true;
    return false;
}

}  // namespace hdtracempi
