// bench_hdtrace_frames: the cost of the compact container. A stream of
// records shaped like the typed records of MPI calls (a shape byte, then six
// small varints: start time and duration as differences, peer, tag,
// communicator, size) goes through FrameWriter at zstd levels 1 and 3,
// compressed on the appending thread or on the background writer thread,
// then back through the reader's FrameFile. Prints, per case: ns per record
// and MB/s of records on the appending thread, the same to the closed file,
// bytes per record in the file, and the decode rate; and the CPU time per
// record of the appending thread and of the whole process, which show where
// the compression runs and hold still on a loaded machine, where wall-clock
// figures do not. No assertions.
//
//     bench_hdtrace_frames [records=2000000] [directory=$TMPDIR or /tmp] [repetitions=3]
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>

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

struct WriteFigures {
    double appendSeconds;      // the appending thread, until the last append
    double totalSeconds;       // until the file is closed
    double threadCpuSeconds;   // of the appending thread, until closed
    double processCpuSeconds;  // of the process, until closed
    long long fileBytes;
};

double cpuSeconds(clockid_t clock) {
    timespec now;
    clock_gettime(clock, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

WriteFigures writeOnce(const Stream &stream, const std::string &path, int level, bool background) {
    hdtrace::FrameWriterOptions options;
    options.compressionLevel = level;
    options.background = background;
    auto writer = hdtrace::FrameWriter::create(path, options);
    if (!writer) {
        std::fprintf(stderr, "bench_hdtrace_frames: cannot create %s\n", path.c_str());
        std::exit(1);
    }
    const double threadStart = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    const double processStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
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
            std::chrono::duration<double>(closed - start).count(),
            cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - threadStart,
            cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - processStart, fileSize(path)};
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
    std::printf("%-5s %-10s | %13s %11s | %13s %11s | %12s %13s | %9s | %13s\n", "level",
                "compress", "append ns/rec", "append MB/s", "closed ns/rec", "closed MB/s",
                "thread CPU ns", "process CPU ns", "B/record", "decode Mrec/s");
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
            std::vector<double> append, total, threadCpu, processCpu;
            for (const WriteFigures &run : runs) {
                append.push_back(run.appendSeconds);
                total.push_back(run.totalSeconds);
                threadCpu.push_back(run.threadCpuSeconds);
                processCpu.push_back(run.processCpuSeconds);
            }
            const double a = median(append), t = median(total), d = median(decodes);
            if (decoded != static_cast<uint64_t>(records))
                std::fprintf(stderr, "bench_hdtrace_frames: read %llu records back, not %ld\n",
                             static_cast<unsigned long long>(decoded), records);
            std::printf(
                "%-5d %-10s | %13.2f %11.0f | %13.2f %11.0f | %12.2f %13.2f | %9.3f | "
                "%13.1f\n",
                level, background ? "background" : "in thread", a * 1e9 / records, rawMegabytes / a,
                t * 1e9 / records, rawMegabytes / t, median(threadCpu) * 1e9 / records,
                median(processCpu) * 1e9 / records,
                static_cast<double>(runs.back().fileBytes) / static_cast<double>(records),
                static_cast<double>(records) / d / 1e6);
        }
    }

    unlink(path.c_str());
    return 0;
}
