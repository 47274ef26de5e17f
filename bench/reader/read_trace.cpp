// Reads a trace with the C++ reader alone: into columns, and as Events.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s TRACE.trc\n", argv[0]);
        return 2;
    }
    struct stat info {};
    if (stat(argv[1], &info) != 0) {
        std::fprintf(stderr, "%s: cannot stat %s\n", argv[0], argv[1]);
        return 1;
    }
    const double megabytes = static_cast<double>(info.st_size) / 1e6;
    try {
        // The Event reader first, so that the peak memory it reports is its own:
        // it holds one chunk of calls at a time, whatever the trace's length.
        auto start = std::chrono::steady_clock::now();
        hdtrace::reader::TraceReader reader(argv[1]);
        hdtrace::reader::Event event;
        size_t count = 0;
        while (reader.next(event))
            ++count;
        double elapsed = seconds(start);
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::printf(
            "events:  %zu events in %.3f s = %.2f M events/s, peak memory %.1f MB "
            "for a %.0f MB trace\n",
            count, elapsed, count / elapsed / 1e6, usage.ru_maxrss / 1024.0, megabytes);
        for (int round = 0; round < 3; ++round) {
            start = std::chrono::steady_clock::now();
            auto result = hdtrace::reader::readEventColumns(argv[1], {}, nullptr);
            elapsed = seconds(start);
            std::printf("columns: %zu events in %.3f s = %.2f M events/s, %.0f MB/s\n",
                        result.columns.rows(), elapsed, result.columns.rows() / elapsed / 1e6,
                        megabytes / elapsed);
        }
    } catch (const hdtrace::reader::ReadError &error) {
        std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
        return 1;
    }
    return 0;
}
