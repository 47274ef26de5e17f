// bench_compress_frames: what compressing a compact trace's frames costs the
// thread that does it, with their times gathered as the writer does now
// (encoding 2 when the gathered form is smaller, 3 when it is larger by at
// most an eighth) and as it did before encoding 3 (gathered only when
// smaller, else compressed as they are).
//
//     bench_compress_frames TRACE.ctrc [LEVEL=1] [ROUNDS=5]
//
// The trace's frames are read back into records first (any level, 0
// included). Prints, per way: how many frames gathered smaller, larger, or
// not at all, the ns per byte of records the gathering and zstd take (the
// best of the rounds, one thread), and the compressed bytes. Asserts
// nothing about time.
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/ReadError.hpp>

namespace {

using Bytes = std::vector<unsigned char>;
using Clock = std::chrono::steady_clock;

struct Way {
    const char *name;
    bool largerKept;  // a gathered form as large as the records or larger is compressed
};

struct Figures {
    size_t smaller = 0, larger = 0, notGathered = 0, compressedBytes = 0;
    double gatherNanoseconds = 0, zstdNanoseconds = 0;
};

Figures measure(const std::vector<Bytes> &frames, const Way &way, int level, int rounds) {
    Figures best;
    ZSTD_CCtx *context = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level);
    hdtrace::compact::TimeGathering gathering;
    Bytes gathered, compressed;
    for (int round = 0; round < rounds; ++round) {
        Figures figures;
        for (const Bytes &frame : frames) {
            const auto gatherStart = Clock::now();
            bool useGathered = gathering.gather(frame.data(), frame.size(), gathered);
            const auto gatherEnd = Clock::now();
            if (useGathered && gathered.size() >= frame.size()) {
                useGathered = way.largerKept;
                ++figures.larger;
            } else if (useGathered) {
                ++figures.smaller;
            } else {
                ++figures.notGathered;
            }
            const Bytes &input = useGathered ? gathered : frame;
            compressed.resize(ZSTD_compressBound(input.size()));
            const size_t bytes = ZSTD_compress2(context, compressed.data(), compressed.size(),
                                                input.data(), input.size());
            const auto zstdEnd = Clock::now();
            if (ZSTD_isError(bytes)) {
                std::fprintf(stderr, "bench_compress_frames: zstd: %s\n", ZSTD_getErrorName(bytes));
                std::exit(1);
            }
            figures.compressedBytes += bytes;
            figures.gatherNanoseconds +=
                std::chrono::duration<double, std::nano>(gatherEnd - gatherStart).count();
            figures.zstdNanoseconds +=
                std::chrono::duration<double, std::nano>(zstdEnd - gatherEnd).count();
        }
        if (round == 0 || figures.gatherNanoseconds + figures.zstdNanoseconds <
                              best.gatherNanoseconds + best.zstdNanoseconds)
            best = figures;
    }
    ZSTD_freeCCtx(context);
    return best;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: bench_compress_frames TRACE.ctrc [LEVEL=1] [ROUNDS=5]\n");
        return 2;
    }
    const int level = argc > 2 ? std::atoi(argv[2]) : 1;
    const int rounds = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
    std::vector<Bytes> frames;
    size_t recordBytes = 0;
    try {
        hdtrace::reader::FrameFile file(argv[1]);
        for (size_t position = 0; position < file.frames().size(); ++position) {
            frames.emplace_back();
            file.readFrame(position, frames.back());
            recordBytes += frames.back().size();
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "bench_compress_frames: %s\n", error.what());
        return 1;
    }
    if (recordBytes == 0) {
        std::fprintf(stderr, "bench_compress_frames: %s holds no records\n", argv[1]);
        return 1;
    }
    std::printf("%s: %zu frames, %zu bytes of records; zstd level %d, best of %d rounds\n", argv[1],
                frames.size(), recordBytes, level, rounds);
    const Way ways[] = {{"gathered if smaller (before)", false},
                        {"gathered up to an eighth larger", true}};
    for (const Way &way : ways) {
        const Figures figures = measure(frames, way, level, rounds);
        const auto perByte = [recordBytes](double nanoseconds) {
            return nanoseconds / static_cast<double>(recordBytes);
        };
        std::printf(
            "%-32s frames gathered smaller %zu, larger %zu, not %zu; gathering %.2f ns/B, "
            "zstd %.2f ns/B; %zu bytes (%.3f of the records)\n",
            way.name, figures.smaller, figures.larger, figures.notGathered,
            perByte(figures.gatherNanoseconds), perByte(figures.zstdNanoseconds),
            figures.compressedBytes,
            static_cast<double>(figures.compressedBytes) / static_cast<double>(recordBytes));
    }
    return 0;
}
