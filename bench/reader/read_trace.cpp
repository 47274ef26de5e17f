// Reads a trace with the C++ reader alone: as Events, and into columns with
// each of the two column readers (libxml2's SAX parser, and the dialect
// scanner with libxml2 as its fallback; the scanner both reading the file
// with read(2), its default, and mapping it, HDTRACE_READER_MMAP=1). Rates
// are per core: events divided by the CPU time of this process, best of three
// rounds (the machine may be shared), with the wall-clock time beside, and
// the first round's CPU time apart: with --only dialect in a fresh process,
// the only read whose columns take fresh pages from the kernel (later reads
// reuse the column memory that earlier ones freed, ColumnMemory.hpp).
//
//   reader_bench_columns [--only events|libxml2|dialect|tree] [--rounds N] TRACE
//
// tree: every call at every depth, nested ones included (readCallTree), from
// an XML or a compact trace; its rate counts rows of the tree.
//
// --only runs one reader, so that `perf stat` and `perf record` see it alone
// (with --only dialect, HDTRACE_READER_MMAP in the environment chooses).
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "ColumnReaders.hpp"

namespace {

double cpuSeconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Best CPU and wall time of rounds runs of read, which returns the rows read,
// and the first run's CPU time.
void measure(const char *label, double megabytes, int rounds, const std::function<size_t()> &read) {
    double bestCpu = 1e30, bestWall = 1e30, firstCpu = 0;
    size_t rows = 0;
    for (int round = 0; round < rounds; ++round) {
        const double cpu = cpuSeconds(), wall = wallSeconds();
        rows = read();
        if (round == 0) firstCpu = cpuSeconds() - cpu;
        bestCpu = std::min(bestCpu, cpuSeconds() - cpu);
        bestWall = std::min(bestWall, wallSeconds() - wall);
    }
    std::printf(
        "%-26s %zu events: %6.2f M events/s per core (%.3f s CPU, %.0f MB/s; first round "
        "%.3f s), %6.2f M events/s wall\n",
        label, rows, static_cast<double>(rows) / bestCpu / 1e6, bestCpu, megabytes / bestCpu,
        firstCpu, static_cast<double>(rows) / bestWall / 1e6);
}

size_t readWithDialect(const std::string &path) {
    auto result = hdtrace::reader::readEventColumns(path, {}, nullptr);
    if (result.fallback)
        std::printf("(the dialect scanner left the trace to libxml2: %s)\n",
                    result.fallback->c_str());
    return result.columns.rows();
}

}  // namespace

int main(int argc, char **argv) {
    std::string only, path;
    int rounds = 3;
    for (int index = 1; index < argc; ++index) {
        const std::string argument = argv[index];
        if (argument == "--only" && index + 1 < argc)
            only = argv[++index];
        else if (argument == "--rounds" && index + 1 < argc)
            rounds = std::atoi(argv[++index]);
        else if (path.empty() && argument[0] != '-')
            path = argument;
        else
            path.clear(), index = argc;
    }
    if (path.empty() || rounds <= 0 ||
        !(only.empty() || only == "events" || only == "libxml2" || only == "dialect" ||
          only == "tree")) {
        std::fprintf(stderr, "usage: %s [--only events|libxml2|dialect|tree] [--rounds N] TRACE\n",
                     argv[0]);
        return 2;
    }
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) {
        std::fprintf(stderr, "%s: cannot stat %s\n", argv[0], path.c_str());
        return 1;
    }
    const double megabytes = static_cast<double>(info.st_size) / 1e6;
    const auto runs = [&only](const char *reader) { return only.empty() || only == reader; };
    double load[1] = {0};
    if (getloadavg(load, 1) == 1) std::printf("load average %.2f\n", load[0]);
    try {
        // The Event reader first, so that the peak memory it reports is its own:
        // it holds one chunk of calls at a time, whatever the trace's length.
        if (runs("events")) {
            auto start = std::chrono::steady_clock::now();
            hdtrace::reader::TraceReader reader(path);
            hdtrace::reader::Event event;
            size_t count = 0;
            while (reader.next(event))
                ++count;
            double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            rusage usage{};
            getrusage(RUSAGE_SELF, &usage);
            std::printf(
                "events:  %zu events in %.3f s = %.2f M events/s, peak memory %.1f MB "
                "for a %.0f MB trace\n",
                count, elapsed, static_cast<double>(count) / elapsed / 1e6,
                usage.ru_maxrss / 1024.0, megabytes);
        }
        if (runs("libxml2"))
            measure("columns, libxml2:", megabytes, rounds, [&] {
                return hdtrace::reader::readEventColumnsWithLibxml2(path, {}, nullptr)
                    .columns.rows();
            });
        if (runs("tree"))
            measure("call tree:", megabytes, rounds,
                    [&] { return hdtrace::reader::readCallTree(path).tree.rows(); });
        if (runs("dialect")) {
            measure("columns, dialect:", megabytes, rounds, [&] { return readWithDialect(path); });
            if (only.empty()) {
                setenv("HDTRACE_READER_MMAP", "1", 1);
                measure("columns, dialect, mapped:", megabytes, rounds,
                        [&] { return readWithDialect(path); });
                unsetenv("HDTRACE_READER_MMAP");
            }
        }
    } catch (const hdtrace::reader::ReadError &error) {
        std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
        return 1;
    }
    return 0;
}
