// bench_rewrite_frames: the frames of a compact trace written again, with or
// without their times gathered (frame encoding 2 or 1), so that the bytes
// and the read cost of the two encodings compare on the same records (two
// runs of a program never give the same times).
//
//     bench_rewrite_frames IN.ctrc OUT.ctrc gathered|plain
//
// Each frame of IN becomes one frame of OUT holding its records as one
// record (the container does not delimit records), so OUT's frames count
// one record each; readers of the two outputs see the same elements.
// Prints the bytes of IN and OUT.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/ReadError.hpp>

namespace {

long long fileBytes(const char *path) {
    struct stat info;
    return ::stat(path, &info) == 0 ? static_cast<long long>(info.st_size) : -1;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 4 ||
        (std::strcmp(argv[3], "gathered") != 0 && std::strcmp(argv[3], "plain") != 0)) {
        std::fprintf(stderr, "usage: bench_rewrite_frames IN.ctrc OUT.ctrc gathered|plain\n");
        return 2;
    }
    try {
        hdtrace::reader::FrameFile in(argv[1]);
        hdtrace::FrameWriterOptions options;
        options.gatherTimes = std::strcmp(argv[3], "gathered") == 0;
        options.background = false;
        for (const hdtrace::reader::FrameInfo &frame : in.frames())
            if (frame.rawBytes > options.frameBytes) options.frameBytes = frame.rawBytes;
        std::string error;
        const auto out = hdtrace::FrameWriter::create(argv[2], options, &error);
        if (!out) {
            std::fprintf(stderr, "bench_rewrite_frames: %s\n", error.c_str());
            return 1;
        }
        std::vector<unsigned char> records;
        for (size_t position = 0; position < in.frames().size(); ++position) {
            in.readFrame(position, records);
            if (out->append(records.data(), records.size(), in.frames()[position].earliest) != 0 ||
                out->flush() != 0) {
                std::fprintf(stderr, "bench_rewrite_frames: cannot write %s\n", argv[2]);
                return 1;
            }
        }
        if (out->close() != 0) {
            std::fprintf(stderr, "bench_rewrite_frames: cannot close %s\n", argv[2]);
            return 1;
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "bench_rewrite_frames: %s\n", error.what());
        return 1;
    }
    std::printf("%s: %lld bytes; %s (%s): %lld bytes\n", argv[1], fileBytes(argv[1]), argv[2],
                argv[3], fileBytes(argv[2]));
    return 0;
}
