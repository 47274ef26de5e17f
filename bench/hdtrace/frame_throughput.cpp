// bench_hdtrace_frames: the cost of the compact container. A stream of
// records shaped like the typed records of MPI calls (a shape byte, then six
// small varints: start time and duration as differences, peer, tag,
// communicator, size) goes through FrameWriter at zstd levels 1 and 3,
// compressed on the appending thread or on the background writer thread,
// then back through the reader's FrameFile. Prints, per case: ns per record
// and MB/s of records on the appending thread, the same to the closed file,
// bytes per record in the file, and the decode rate. Then the same stream
// paced like a program that computes about `work` ns between two calls:
// the ns each record adds to that program, in thread and in background.
// No assertions.
//
//     bench_hdtrace_frames [records=2000000] [directory=$TMPDIR or /tmp] [repetitions=3]
//                          [work=500]
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <hdtrace/FrameWriter.hpp>

#include "FrameFile.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Stream {
    std::vector<unsigned char> bytes;
    std::vector<uint32_t> ends;  // end of each record in bytes
    std::vector<int64_t> times;
};

void putVarint(std::vector<unsigned char> &out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<unsigned char>(value | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<unsigned char>(value));
}

// A rank's loop: Isend, Irecv, Waitall, Allreduce, File_write_at, with
// jittered gaps and durations, a few peers, tags and sizes.
Stream makeStream(long records) {
    Stream stream;
    stream.bytes.reserve(static_cast<size_t>(records) * 12);
    uint64_t state = 12345;
    auto next = [&state](uint64_t range) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % range;
    };
    int64_t time = 0;
    const uint64_t sizes[] = {8, 64, 4096, 65536};
    for (long i = 0; i < records; ++i) {
        const unsigned shape = static_cast<unsigned>(i % 5);
        const uint64_t gap = 80 + next(200);
        const uint64_t duration = (shape == 3 ? 900 : 150) + next(shape == 4 ? 2000 : 300);
        time += static_cast<int64_t>(gap + duration);
        stream.bytes.push_back(static_cast<unsigned char>(shape));
        putVarint(stream.bytes, gap);
        putVarint(stream.bytes, duration);
        putVarint(stream.bytes, (i / 5) % 4);                  // peer
        putVarint(stream.bytes, shape < 2 ? 7 + next(2) : 0);  // tag
        putVarint(stream.bytes, shape == 4 ? 3 : 1);           // communicator or file
        putVarint(stream.bytes, sizes[next(4)]);
        stream.ends.push_back(static_cast<uint32_t>(stream.bytes.size()));
        stream.times.push_back(time);
    }
    return stream;
}

long long fileSize(const std::string &path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 ? static_cast<long long>(info.st_size) : -1;
}

// About `iterations` steps of dependent arithmetic: the program's own work.
uint64_t gWorkSink = 0;
void work(long iterations) {
    uint64_t value = gWorkSink;
    for (long i = 0; i < iterations; ++i)
        value = value * 2862933555777941757ull + 3037000493ull;
    gWorkSink = value;
}

// Iterations of work() that take about nanoseconds.
long calibrateWork(double nanoseconds) {
    const long trial = 10'000'000;
    const auto start = Clock::now();
    work(trial);
    const double perIteration =
        std::chrono::duration<double, std::nano>(Clock::now() - start).count() / trial;
    return static_cast<long>(nanoseconds / perIteration);
}

// Seconds for the paced loop, with records (writer) or without (nullptr).
double pacedSeconds(const Stream &stream, hdtrace::FrameWriter *writer, long workIterations) {
    const auto start = Clock::now();
    uint32_t begin = 0;
    for (size_t i = 0; i < stream.ends.size(); ++i) {
        work(workIterations);
        if (writer)
            writer->append(stream.bytes.data() + begin, stream.ends[i] - begin, stream.times[i]);
        begin = stream.ends[i];
    }
    if (writer) writer->close();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct WriteFigures {
    double appendSeconds;  // the appending thread, until the last append
    double totalSeconds;   // until the file is closed
    long long fileBytes;
};

WriteFigures writeOnce(const Stream &stream, const std::string &path, int level, bool background) {
    hdtrace::FrameWriterOptions options;
    options.compressionLevel = level;
    options.background = background;
    auto writer = hdtrace::FrameWriter::create(path, options);
    if (!writer) {
        std::fprintf(stderr, "bench_hdtrace_frames: cannot create %s\n", path.c_str());
        std::exit(1);
    }
    const auto start = Clock::now();
    uint32_t begin = 0;
    for (size_t i = 0; i < stream.ends.size(); ++i) {
        writer->append(stream.bytes.data() + begin, stream.ends[i] - begin, stream.times[i]);
        begin = stream.ends[i];
    }
    const auto appended = Clock::now();
    writer->close();
    const auto closed = Clock::now();
    return {std::chrono::duration<double>(appended - start).count(),
            std::chrono::duration<double>(closed - start).count(), fileSize(path)};
}

double decodeSeconds(const std::string &path, uint64_t *records) {
    const auto start = Clock::now();
    hdtrace::reader::FrameFile file(path);
    std::vector<unsigned char> payload;
    for (size_t i = 0; i < file.frames().size(); ++i)
        file.readFrame(i, payload);
    *records = file.records();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char **argv) {
    const long records = argc > 1 ? std::atol(argv[1]) : 2000000;
    const char *tmp = std::getenv("TMPDIR");
    const std::string directory = argc > 2 ? argv[2] : (tmp ? tmp : "/tmp");
    const int repetitions = argc > 3 ? std::atoi(argv[3]) : 3;
    const Stream stream = makeStream(records);
    const double rawMegabytes = static_cast<double>(stream.bytes.size()) / 1e6;
    std::printf(
        "%ld records, %.2f bytes per record before compression, frames of 1 MiB, "
        "median of %d runs\n",
        records, static_cast<double>(stream.bytes.size()) / static_cast<double>(records),
        repetitions);
    std::printf("%-5s %-10s | %13s %11s | %13s %11s | %9s | %14s\n", "level", "compress",
                "append ns/rec", "append MB/s", "closed ns/rec", "closed MB/s", "B/record",
                "decode Mrec/s");
    const std::string path =
        directory + "/bench_hdtrace_frames." + std::to_string(getpid()) + ".ctrc";
    for (int level : {1, 3}) {
        for (bool background : {false, true}) {
            std::vector<WriteFigures> runs;
            std::vector<double> decodes;
            uint64_t decoded = 0;
            for (int r = 0; r < repetitions; ++r) {
                runs.push_back(writeOnce(stream, path, level, background));
                decodes.push_back(decodeSeconds(path, &decoded));
            }
            auto median = [](std::vector<double> values) {
                std::sort(values.begin(), values.end());
                return values[values.size() / 2];
            };
            std::vector<double> append, total;
            for (const WriteFigures &run : runs) {
                append.push_back(run.appendSeconds);
                total.push_back(run.totalSeconds);
            }
            const double a = median(append), t = median(total), d = median(decodes);
            if (decoded != static_cast<uint64_t>(records))
                std::fprintf(stderr, "bench_hdtrace_frames: read %llu records back, not %ld\n",
                             static_cast<unsigned long long>(decoded), records);
            std::printf("%-5d %-10s | %13.2f %11.0f | %13.2f %11.0f | %9.3f | %14.1f\n", level,
                        background ? "background" : "in thread", a * 1e9 / records,
                        rawMegabytes / a, t * 1e9 / records, rawMegabytes / t,
                        static_cast<double>(runs.back().fileBytes) / static_cast<double>(records),
                        static_cast<double>(records) / d / 1e6);
        }
    }

    const double workNanoseconds = argc > 4 ? std::atof(argv[4]) : 500;
    const long iterations = calibrateWork(workNanoseconds);
    std::printf(
        "\npaced: about %.0f ns of work before each record; ns added per record "
        "(median of %d, interleaved with the untraced loop)\n",
        workNanoseconds, repetitions);
    std::printf("%-5s %-10s | %12s %12s %12s\n", "level", "compress", "untraced ns", "traced ns",
                "added ns");
    for (int level : {1, 3}) {
        for (bool background : {false, true}) {
            std::vector<double> plain, traced;
            for (int r = 0; r < repetitions; ++r) {
                plain.push_back(pacedSeconds(stream, nullptr, iterations));
                hdtrace::FrameWriterOptions options;
                options.compressionLevel = level;
                options.background = background;
                auto writer = hdtrace::FrameWriter::create(path, options);
                if (!writer) return 1;
                traced.push_back(pacedSeconds(stream, writer.get(), iterations));
            }
            std::sort(plain.begin(), plain.end());
            std::sort(traced.begin(), traced.end());
            const double p = plain[plain.size() / 2] * 1e9 / records;
            const double t = traced[traced.size() / 2] * 1e9 / records;
            std::printf("%-5d %-10s | %12.1f %12.1f %12.1f\n", level,
                        background ? "background" : "in thread", p, t, t - p);
        }
    }
    unlink(path.c_str());
    return 0;
}
