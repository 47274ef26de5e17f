// bench_hdtrace_states: the cost of writing one MPI-like state with
// libhdtrace, and the write throughput.
//
// A typical state is a <Send> with six integer attributes; each state reads
// the clock twice (start and end), as the MPI wrapper does. The benchmark
// writes N states through the typed C++ API and through the printf-style C
// API, the typed API both in XML and in compact form, each form with and
// without the background writer thread, and prints ns per state (wall
// clock, and CPU of the writing thread before close, which leaves out what
// the background writer thread does; without that thread it includes the
// compression and the writes of every full frame or buffer half), bytes
// per state and MB/s. Target: at most 100 ns per state through the typed API. No
// assertions: figures only.
//
//     bench_hdtrace_states [states=2000000] [directory=$TMPDIR or /tmp]
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/hdTrace.h>

namespace {

using Clock = std::chrono::steady_clock;

struct Figures {
    double nanosecondsPerState;
    // CPU time of the writing thread alone, without close(): what a traced
    // program pays itself when a background thread compresses and writes.
    double threadNanosecondsPerState;
    double bytesPerState;
    double megabytesPerSecond;
};

double threadCpuNanoseconds() {
    timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

long long fileSize(const std::string &path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 ? static_cast<long long>(info.st_size) : -1;
}

Figures runTyped(const std::string &directory, long states, hdtrace::TraceOptions::Format format,
                 bool writerThread) {
    hdtrace::TraceOptions options;
    options.format = format;
    options.backgroundWrites = writerThread;
    options.directory = directory;
    options.program = "bench-typed";
    options.levels = {"host", "0", "0"};
    std::string error;
    auto writer = hdtrace::TraceWriter::create(options, &error);
    if (!writer) {
        std::fprintf(stderr, "bench: %s\n", error.c_str());
        std::exit(1);
    }
    const auto begin = Clock::now();
    const double cpuBegin = threadCpuNanoseconds();
    for (long i = 0; i < states; ++i) {
        writer->beginState("Send", hdtrace::Timestamp::now());
        writer->attribute("size", int64_t{8} * (i & 1023));
        writer->attribute("count", i & 1023);
        writer->attribute("tid", int64_t{1275069445});
        writer->attribute("toRank", i & 15);
        writer->attribute("toTag", int64_t{42});
        writer->attribute("cid", int64_t{0});
        writer->endState(hdtrace::Timestamp::now());
    }
    const double cpuNanoseconds = threadCpuNanoseconds() - cpuBegin;
    writer->close();
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    const double bytes = static_cast<double>(fileSize(writer->tracePath()));
    unlink(writer->tracePath().c_str());
    unlink(writer->infoPath().c_str());
    return {seconds * 1e9 / states, cpuNanoseconds / states, bytes / states, bytes / seconds / 1e6};
}

Figures runCApi(const std::string &directory, long states) {
    const char *levels[] = {"host", "0", "0"};
    hdTrace trace = hdT_createTrace(directory.c_str(), "bench-capi", 3, levels);
    if (!trace) {
        std::perror("bench: hdT_createTrace");
        std::exit(1);
    }
    const auto begin = Clock::now();
    const double cpuBegin = threadCpuNanoseconds();
    for (long i = 0; i < states; ++i) {
        hdT_logStateStart(trace, "Send");
        hdT_logAttributes(trace,
                          "size='%lld' count='%ld' tid='%d' toRank='%ld' toTag='%d' cid='%d'",
                          8LL * (i & 1023), i & 1023, 1275069445, i & 15, 42, 0);
        hdT_logStateEnd(trace);
    }
    const double cpuNanoseconds = threadCpuNanoseconds() - cpuBegin;
    hdT_finalize(trace);
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    const std::string path = directory + "/bench-capi_host_0_0.trc";
    const double bytes = static_cast<double>(fileSize(path));
    unlink(path.c_str());
    unlink((directory + "/bench-capi_host_0_0.info").c_str());
    return {seconds * 1e9 / states, cpuNanoseconds / states, bytes / states, bytes / seconds / 1e6};
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

void usage(FILE *out) {
    std::fprintf(out,
                 "usage: bench_hdtrace_states [STATES] [DIRECTORY]\n"
                 "Writes STATES states (default 2000000) per run into DIRECTORY (default\n"
                 "$TMPDIR or /tmp) through both APIs of libhdtrace (the typed one in XML\n"
                 "and compact form, with and without the writer thread) and prints the\n"
                 "medians of 5 runs: ns per state (wall, and CPU of the writing thread),\n"
                 "bytes per state, MB/s.\n");
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    long states = 2000000;
    if (argc > 1) {
        char *end = nullptr;
        states = std::strtol(argv[1], &end, 10);
        if (*argv[1] == '\0' || *end != '\0' || states <= 0) {
            std::fprintf(stderr,
                         "bench_hdtrace_states: STATES must be a positive integer, not '%s'\n",
                         argv[1]);
            usage(stderr);
            return 2;
        }
    }
    if (argc > 3) {
        usage(stderr);
        return 2;
    }
    const char *tmp = std::getenv("TMPDIR");
    const std::string directory = argc > 2 ? argv[2] : (tmp && *tmp ? tmp : "/tmp");
    constexpr int kRepetitions = 5;

    std::printf("libhdtrace state benchmark: %ld states per run, median of %d runs, in %s\n",
                states, kRepetitions, directory.c_str());
    std::printf("%-40s %12s %16s %14s %10s\n", "API", "ns/state", "thread ns/state", "bytes/state",
                "MB/s");
    using Format = hdtrace::TraceOptions::Format;
    for (const char *api :
         {"typed C++ (TraceWriter)", "typed C++, no writer thread", "typed C++, compact form",
          "typed C++, compact, no writer thread", "printf-style C (hdTrace.h)"}) {
        std::vector<double> nanoseconds, threadNanoseconds, bytes, throughput;
        for (int repetition = 0; repetition < kRepetitions; ++repetition) {
            const bool compact = std::strstr(api, "compact") != nullptr;
            const bool writerThread = std::strstr(api, "no writer thread") == nullptr;
            const Figures figures =
                api[0] == 't' ? runTyped(directory, states, compact ? Format::Compact : Format::Xml,
                                         writerThread)
                              : runCApi(directory, states);
            nanoseconds.push_back(figures.nanosecondsPerState);
            threadNanoseconds.push_back(figures.threadNanosecondsPerState);
            bytes.push_back(figures.bytesPerState);
            throughput.push_back(figures.megabytesPerSecond);
        }
        std::printf("%-40s %12.1f %16.1f %14.1f %10.1f\n", api, median(nanoseconds),
                    median(threadNanoseconds), median(bytes), median(throughput));
    }
    std::printf(
        "target: <= 100 ns per state through the typed API "
        "(6 attributes and two clock reads per state)\n");
    return 0;
}
