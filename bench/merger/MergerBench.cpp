// merger_bench: time and peak memory of merge() on generated runs.
//
// For each size it writes a run into a temporary directory: per rank one
// .trc and one .info with the Mpi line, three File lines, 10 communicators
// (compact maps as the wrapper writes them: WORLD, SELF, dups, row, column
// (strided), half and pair splits, a rotated quad and an intercommunicator
// between neighbouring rows) and 20 datatypes
// (4 named, 16 derived covering the combiners of Appendix B). Every 16th rank
// also has a second thread. The merge runs in a forked child, so that its
// peak RSS (wait4) is the merge's alone; it starts once the run is on disk
// (sync), as a merge of a run written some time before would.
//
// Usage: merger_bench [ranks...]   (default 1024 4096 16384)
//        merger_bench --threads N    (one rank with N traces, one per thread,
//                                     each .info with WORLD and SELF, as a
//                                     program with N threads alive at once
//                                     writes them)
//        merger_bench --write N DIR  (only write the run of N ranks into DIR,
//                                     with every communicator and type kind:
//                                     the lines above plus predefined types
//                                     written as byte layouts, the Fortran and
//                                     _INTEGER combiners, escaped names and the
//                                     second threads repeating their rank's
//                                     lines; for comparing two mergers' output)
//        merger_bench --write-timed N DIR (only write the run of N ranks the
//                                     timed merge reads, into DIR: for
//                                     profiling project-merger on it)
//        merger_bench --merge [--jobs N] DIR... (only time the merge of runs
//                                     already on disk, e.g. written by
//                                     --write-timed: for comparing two builds
//                                     on the same input, interleaved; each
//                                     run's .info files are read once before,
//                                     so that every merge starts from the
//                                     page cache, as one right after the run
//                                     does)
//        merger_bench --spelt-columns ... (any of the above with the column
//                                     communicator's map written one entry per
//                                     member, as the wrapper did before the
//                                     strided form, instead of one strided run)
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <hdtrace/merger/Merger.hpp>

namespace {

void writeFile(const std::string &path, const std::string &content) {
    FILE *file = std::fopen(path.c_str(), "w");
    if (!file || std::fwrite(content.data(), 1, content.size(), file) != content.size()) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::fclose(file);
}

std::string range(long first, long count) {
    return count == 1 ? std::to_string(first)
                      : std::to_string(first) + ".." + std::to_string(first + count - 1);
}

std::string run(long world, long local, long count) {
    return range(world, count) + "->" + range(local, count) + ";";
}

// Set by --spelt-columns.
bool columnsSpeltOut = false;

// World ranks first, first+step, ... -> local 0, 1, ...: as the wrapper
// writes them (strided from 3 members on), or one entry per member.
std::string steppedMap(long first, long step, long count) {
    if (count < 3 || columnsSpeltOut) {
        std::string map;
        for (long k = 0; k < count; ++k)
            map += run(first + step * k, k, 1);
        return map;
    }
    return range(first, 1) + ".." + std::to_string(first + step * (count - 1)) + ":" +
           std::to_string(step) + "->" + range(0, count) + ";";
}

std::string comm(long id, const std::string &map, const char *name,
                 const std::string &remote = "") {
    std::string line = "Comm map='" + map + "'";
    if (!remote.empty()) line += " remote='" + remote + "'";
    return line + " id=" + std::to_string(id) + " name='" + name + "'\n";
}

// Lines that only the --write runs carry: the kinds the timed runs leave
// out, with the size, lb and extent MPI gives them.
std::string otherKindsOf(long rank) {
    const long fortranKind = 1 + rank % 18;  // decimal digits of the F90 integer
    const long integerBytes = fortranKind <= 2   ? 1
                              : fortranKind <= 4 ? 2
                              : fortranKind <= 9 ? 4
                                                 : 8;
    const long secondAt = 64 + rank % 5;                // HINDEXED_INTEGER's second block
    const long hindexedExtent = secondAt + 3 * 32 - 8;  // from lb 8 to the end of 3 x 32 bytes
    const long structExtent = (24 + 2 * hindexedExtent + 15) / 16 * 16;  // aligned to 16
    return "Comm map='" + run(rank, 0, 1) +
           "' id=10 name='dup &amp; &lt;self&gt;'\n"
           "File name=\"/scratch/a&amp;b &lt;" +
           std::to_string(rank % 3) +
           "&gt;.dat\" Size=7 id=3\n"
           "Type id='2' combiner='MPI_COMBINER_NAMED' name='MPI_SHORT_INT' size='6' "
           "extent='8' blocks='0:2;4:4;'\n"
           "Type id='4' combiner='MPI_COMBINER_NAMED' name='MPI_LONG_DOUBLE_INT' size='20' "
           "extent='32' blocks='0:16;16:4;'\n"
           "Type id='5' combiner='MPI_COMBINER_NAMED' name='MPI_PACKED' size='1' extent='1'\n"
           "Type id='16777300' combiner='MPI_COMBINER_F90_REAL' name='' integers='6;37;' "
           "addresses='' types='' size='4' lb='0' extent='4'\n"
           "Type id='16777301' combiner='MPI_COMBINER_F90_COMPLEX' name='' integers='15;307;' "
           "addresses='' types='' size='16' lb='0' extent='16'\n"
           "Type id='16777302' combiner='MPI_COMBINER_F90_INTEGER' name='' integers='" +
           std::to_string(fortranKind) + ";' addresses='' types='' size='" +
           std::to_string(integerBytes) + "' lb='0' extent='" + std::to_string(integerBytes) +
           "'\n"
           "Type id='16777303' combiner='MPI_COMBINER_HVECTOR_INTEGER' name='' integers='4;1;' "
           "addresses='40;' types='2;' size='24' lb='0' extent='128'\n"
           "Type id='16777304' combiner='MPI_COMBINER_HINDEXED_INTEGER' name='h&amp;i' "
           "integers='2;1;3;' addresses='8;" +
           std::to_string(secondAt) + ";' types='4;' size='80' lb='8' extent='" +
           std::to_string(hindexedExtent) +
           "'\n"
           "Type id='16777305' combiner='MPI_COMBINER_STRUCT_INTEGER' name='' "
           "integers='2;1;2;' addresses='0;16;' types='5;16777304;' size='161' lb='0' extent='" +
           std::to_string(structExtent) + "'\n";
}

// Bytes of the generated DARRAY on a rank: ranks x 64 doubles on a grid of
// 64 x (ranks / 64) processes, rows in blocks, columns cyclic in pairs.
long darraySize(long rank, long ranks) {
    const long columnsOfGrid = ranks / 64;
    const long coordinate = rank % columnsOfGrid;
    long columns = 0;
    for (long column = 0; column < 64; ++column)
        columns += (column / 2) % columnsOfGrid == coordinate;
    return ranks / 64 * columns * 8;
}

// The lines carry MPI's size, lb and extent as the wrapper writes them.
std::string infoOf(long rank, long ranks, size_t *lines) {
    std::string info =
        "Mpi library='Open MPI v4.1.4' order_c=0 order_fortran=1 distribute_block=0 "
        "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n";
    const long row = rank / 64 * 64;
    const long column = rank % 64;
    const long half = rank / (ranks / 2) * (ranks / 2);
    const long pair = rank / 2 * 2;
    const long quad = rank / 4 * 4;
    const long neighbour = (rank / 64 ^ 1) * 64;
    info += comm(0, run(0, 0, ranks), "WORLD");
    info += comm(1, run(rank, 0, 1), "SELF");
    info += comm(2, run(0, 0, ranks), "");
    info += comm(3, run(row, 0, 64), "row");
    info += comm(4, run(row, 0, 64), "");
    info += comm(5, steppedMap(column, 64, ranks / 64), "column");
    info += comm(6, run(half, 0, ranks / 2), "");
    info += comm(7, run(pair, 0, 2), "");
    info += comm(8, run(quad, 3, 1) + run(quad + 1, 0, 3), "rotated");
    info += comm(9, run(row, 0, 64), "rows", run(neighbour, 0, 64));
    info += "File name=\"/scratch/shared output.dat\" Size=0 id=0\n";
    info +=
        "File name=\"/scratch/checkpoint." + std::to_string(rank % 8) + "\" Size=1048576 id=1\n";
    info += "File name=\"/scratch/rank-" + std::to_string(rank) +
            ".log\" Size=" + std::to_string(rank * 512) + " id=2\n";
    info +=
        "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT' size='4' extent='4'\n"
        "Type id='17' combiner='MPI_COMBINER_NAMED' name='MPI_DOUBLE' size='8' extent='8'\n"
        "Type id='1' combiner='MPI_COMBINER_NAMED' name='MPI_CHAR' size='1' extent='1'\n"
        "Type id='3' combiner='MPI_COMBINER_NAMED' name='MPI_BYTE' size='1' extent='1'\n"
        "Type id='16777216' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='4;' "
        "addresses='' types='6;' size='16' lb='0' extent='16'\n"
        "Type id='16777217' combiner='MPI_COMBINER_VECTOR' name='' integers='8;2;16;' "
        "addresses='' types='17;' size='128' lb='0' extent='912'\n"
        "Type id='16777218' combiner='MPI_COMBINER_HVECTOR' name='' integers='8;2;' "
        "addresses='256;' types='17;' size='128' lb='0' extent='1808'\n"
        "Type id='16777219' combiner='MPI_COMBINER_INDEXED' name='' integers='3;1;2;3;0;4;10;' "
        "addresses='' types='6;' size='24' lb='0' extent='52'\n"
        "Type id='16777220' combiner='MPI_COMBINER_HINDEXED' name='' integers='2;4;4;' "
        "addresses='0;64;' types='1;' size='8' lb='0' extent='68'\n"
        "Type id='16777221' combiner='MPI_COMBINER_INDEXED_BLOCK' name='' "
        "integers='3;2;0;5;9;' addresses='' types='6;' size='24' lb='0' extent='44'\n"
        "Type id='16777222' combiner='MPI_COMBINER_HINDEXED_BLOCK' name='' integers='2;3;' "
        "addresses='0;100;' types='3;' size='6' lb='0' extent='103'\n"
        "Type id='16777223' combiner='MPI_COMBINER_STRUCT' name='particle' "
        "integers='3;1;3;8;' addresses='0;8;32;' types='6;17;1;' size='36' lb='0' extent='40'\n"
        "Type id='16777224' combiner='MPI_COMBINER_RESIZED' name='' addresses='0;48;' "
        "types='16777223;' size='36' lb='0' extent='48'\n"
        "Type id='16777225' combiner='MPI_COMBINER_DUP' name='' types='16777224;' size='36' lb='0' "
        "extent='48'\n"
        "Type id='16777226' combiner='MPI_COMBINER_SUBARRAY' name='' "
        "integers='2;100;100;10;20;" +
        std::to_string(rank % 10) +
        ";5;0;' addresses='' types='17;' size='1600' lb='0' extent='80000'\n"
        "Type id='16777227' combiner='MPI_COMBINER_DARRAY' name='' integers='" +
        std::to_string(ranks) + ";" + std::to_string(rank) + ";2;" + std::to_string(ranks) +
        ";64;0;1;-1;2;64;" + std::to_string(ranks / 64) + ";0;' addresses='' types='17;' size='" +
        std::to_string(darraySize(rank, ranks)) + "' lb='0' extent='" +
        std::to_string(ranks * 64 * 8) +
        "'\n"
        "Type id='16777228' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='2;' "
        "addresses='' types='16777225;' size='72' lb='0' extent='96'\n"
        "Type id='16777229' combiner='MPI_COMBINER_VECTOR' name='' integers='2;1;3;' "
        "addresses='' types='16777226;' size='3200' lb='0' extent='320000'\n"
        "Type id='16777230' combiner='MPI_COMBINER_STRUCT' name='' integers='2;1;1;' "
        "addresses='0;4096;' types='16777216;16777218;' size='144' lb='0' extent='5904'\n"
        "Type id='16777231' combiner='MPI_COMBINER_RESIZED' name='' addresses='-8;128;' "
        "types='16777217;' size='128' lb='-8' extent='128'\n";
    *lines += 1 + 10 + 3 + 20;
    return info;
}

long peakRssKiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

const char *const kEmptyTrace =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n</Program>\n";

// Writes the generated run; returns its directory.
std::string writeRun(long ranks, long threadsOfRankZero, size_t *lines, size_t *traces,
                     const char *into = nullptr, bool otherKinds = false) {
    char directoryTemplate[] = "/tmp/merger-bench-XXXXXX";
    const char *directory = into ? into : mkdtemp(directoryTemplate);
    if (!directory || (into && mkdir(into, 0777) != 0)) {
        std::perror(into ? into : "mkdtemp");
        std::exit(1);
    }
    if (threadsOfRankZero > 0) {  // one rank, many threads
        for (long thread = 0; thread < threadsOfRankZero; ++thread) {
            const std::string base =
                std::string(directory) + "/bench_node0_0_" + std::to_string(thread);
            writeFile(base + ".trc", kEmptyTrace);
            writeFile(base + ".info",
                      "Mpi library='Open MPI v4.1.4' order_c=0 order_fortran=1 "
                      "distribute_block=0 distribute_cyclic=1 distribute_none=2 "
                      "distribute_dflt_darg=-1\n" +
                          comm(0, run(0, 0, 1), "WORLD") + comm(1, run(0, 0, 1), "SELF"));
            *lines += 3;
            ++*traces;
        }
        return directory;
    }
    for (long rank = 0; rank < ranks; ++rank) {
        const long threads = rank % 16 == 0 ? 2 : 1;
        for (long thread = 0; thread < threads; ++thread) {
            const std::string base = std::string(directory) + "/bench_node" +
                                     std::to_string(rank / 32) + "_" + std::to_string(rank) + "_" +
                                     std::to_string(thread);
            writeFile(base + ".trc", kEmptyTrace);
            std::string info = thread == 0 || otherKinds ? infoOf(rank, ranks, lines) : "";
            if (otherKinds) {
                info += otherKindsOf(rank);
                *lines += 11;
            }
            writeFile(base + ".info", info);
            ++*traces;
        }
    }
    return directory;
}

// Reads every .info file of the directory once. A run's files not read for
// a while may have left the page cache (some machines drop unused cache
// pages after a minute), and a merge that reads some of them from the disk
// would be timed on what the disk did: with the files in the cache, merges
// of runs used at different times compare.
void warmInfoFiles(const std::string &directory) {
    DIR *listing = opendir(directory.c_str());
    if (!listing) {
        std::perror(directory.c_str());
        std::exit(1);
    }
    static char buffer[1 << 16];
    while (const dirent *entry = readdir(listing)) {
        const size_t length = std::strlen(entry->d_name);
        if (length < 5 || std::strcmp(entry->d_name + length - 5, ".info") != 0) continue;
        const int fd = openat(dirfd(listing), entry->d_name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // the merge reports it
        while (read(fd, buffer, sizeof buffer) > 0) {
        }
        close(fd);
    }
    closedir(listing);
}

// Merges the run in `directory` in a forked child (so that the peak RSS is
// the merge's alone) and prints one line: the merge's wall time and where
// it went, its CPU time (user and system) over all threads, its peak RSS.
void timeMerge(const std::string &directory, const std::string &label, unsigned jobs,
               double syncSeconds) {
    int pipeEnds[2];
    if (pipe(pipeEnds) != 0) std::exit(1);
    const pid_t child = fork();
    if (child == 0) {
        close(pipeEnds[0]);
        hdtrace::merger::MergeOptions options;
        options.inputs = {directory};
        options.jobs = jobs;
        double seconds = -1;
        char report[256];
        // When each stage ended: finding the traces (until the first file
        // is read), reading, unifying (writing is the rest).
        double discoverEnd = -1, readEnd = 0, unifyEnd = 0;
        const auto start = std::chrono::steady_clock::now();
        const auto since = [&start] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        using Stage = hdtrace::merger::MergeProgress::Stage;
        options.progress = [&](const hdtrace::merger::MergeProgress &progress) {
            if (progress.stage == Stage::Reading && discoverEnd < 0) discoverEnd = since();
            if (progress.done != progress.total) return;
            if (progress.stage == Stage::Reading) readEnd = since();
            if (progress.stage == Stage::Unifying) unifyEnd = since();
        };
        try {
            const auto result = hdtrace::merger::merge(options);
            seconds = since();
            struct stat status {};
            stat(result.outputPath.c_str(), &status);
            std::snprintf(report, sizeof report, "%.3f %zu %zu %lld %.3f %.3f %zu %.3f", seconds,
                          result.communicatorCount, result.datatypeCount,
                          static_cast<long long>(status.st_size), readEnd, unifyEnd - readEnd,
                          result.traceCount, discoverEnd);
        } catch (const std::exception &error) {
            std::snprintf(report, sizeof report, "error %s", error.what());
        }
        if (write(pipeEnds[1], report, std::strlen(report) + 1) < 0) _exit(2);
        _exit(0);
    }
    close(pipeEnds[1]);
    char report[256] = {};
    if (read(pipeEnds[0], report, sizeof report - 1) < 0) std::exit(1);
    close(pipeEnds[0]);
    int status = 0;
    rusage usage{};
    wait4(child, &status, 0, &usage);
    double seconds = 0, reading = 0, unifying = 0, discovering = 0;
    size_t communicators = 0, datatypes = 0, traces = 0;
    long long projBytes = 0;
    if (std::sscanf(report, "%lf %zu %zu %lld %lf %lf %zu %lf", &seconds, &communicators,
                    &datatypes, &projBytes, &reading, &unifying, &traces, &discovering) != 8) {
        std::fprintf(stderr, "merger_bench: %s: %s\n", label.c_str(), report);
        std::exit(1);
    }
    const auto secondsOf = [](const timeval &time) {
        return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
    };
    const double userSeconds = secondsOf(usage.ru_utime);
    const double systemSeconds = secondsOf(usage.ru_stime);
    std::printf(
        "%s %7zu traces  merge %7.3f s (read %.2f of which finding the traces %.2f, unify %.2f, "
        "write %.2f; CPU %.2f s: user %.2f, system %.2f)  peak RSS %7.1f MiB  %7zu communicators "
        "%8zu datatypes  .proj %7.1f MiB",
        label.c_str(), traces, seconds, reading, discovering, unifying,
        seconds - reading - unifying, userSeconds + systemSeconds, userSeconds, systemSeconds,
        static_cast<double>(usage.ru_maxrss) / 1024, communicators, datatypes,
        static_cast<double>(projBytes) / (1 << 20));
    if (syncSeconds >= 0) std::printf("  (sync of the run before: %.1f s)", syncSeconds);
    std::printf("\n");
    std::fflush(stdout);
}

void benchmark(long ranks, long threadsOfRankZero) {
    size_t lines = 0;
    size_t traces = 0;
    const std::string directory = writeRun(ranks, threadsOfRankZero, &lines, &traces);

    // The generated run on disk first: the merge is timed as of a run
    // written some time before, not while gigabytes of the generator's
    // files are still being written back (which slows its own writing).
    const auto syncStart = std::chrono::steady_clock::now();
    sync();
    const double syncSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - syncStart).count();

    char label[64];
    std::snprintf(label, sizeof label, "%7ld ranks %8zu .info lines ", ranks, lines);
    timeMerge(directory, label, 0, syncSeconds);
    const std::string remove = "rm -rf '" + directory + "'";
    if (std::system(remove.c_str()) != 0)
        std::fprintf(stderr, "could not remove %s\n", directory.c_str());
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "--spelt-columns") == 0) {
        columnsSpeltOut = true;
        argv[1] = argv[0];
        --argc;
        ++argv;
    }
    if (argc == 3 && std::strcmp(argv[1], "--threads") == 0) {
        const long threads = std::atol(argv[2]);
        if (threads < 1) {
            std::fprintf(stderr, "merger_bench: --threads needs a positive number\n");
            return 2;
        }
        std::printf("merger_bench: merge() of one rank with %ld traces (threads)\n", threads);
        benchmark(1, threads);
        return 0;
    }
    if (argc >= 3 && std::strcmp(argv[1], "--merge") == 0) {
        unsigned jobs = 0;
        int first = 2;
        if (std::strcmp(argv[2], "--jobs") == 0) {
            if (argc < 5 || std::atoi(argv[3]) < 1) {
                std::fprintf(stderr, "merger_bench: --merge --jobs N DIR..., N at least 1\n");
                return 2;
            }
            jobs = static_cast<unsigned>(std::atoi(argv[3]));
            first = 4;
        }
        for (int i = first; i < argc; ++i) {
            warmInfoFiles(argv[i]);
            timeMerge(argv[i], argv[i], jobs, -1);
        }
        return 0;
    }
    const bool writeAll = argc == 4 && std::strcmp(argv[1], "--write") == 0;
    if (writeAll || (argc == 4 && std::strcmp(argv[1], "--write-timed") == 0)) {
        const long ranks = std::atol(argv[2]);
        if (ranks < 128 || ranks % 128 != 0) {
            std::fprintf(stderr, "merger_bench: ranks must be a multiple of 128\n");
            return 2;
        }
        size_t lines = 0, traces = 0;
        writeRun(ranks, 0, &lines, &traces, argv[3], writeAll);
        std::printf("%s: %ld ranks, %zu traces, %zu .info lines\n", argv[3], ranks, traces, lines);
        return 0;
    }
    std::vector<long> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(std::atol(argv[i]));
    if (sizes.empty()) sizes = {1024, 4096, 16384};
    std::printf(
        "merger_bench: merge() of generated runs (10 communicators, 20 datatypes, "
        "3 files per rank; column maps %s); parent RSS %ld KiB\n",
        columnsSpeltOut ? "spelt out" : "strided", peakRssKiB());
    for (long ranks : sizes) {
        if (ranks < 128 || ranks % 128 != 0) {
            std::fprintf(stderr, "merger_bench: ranks must be a multiple of 128\n");
            return 2;
        }
        benchmark(ranks, 0);
    }
    return 0;
}
