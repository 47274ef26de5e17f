// What memory fresh from the kernel costs the first time it is written, the
// way a reader's table or columns take it: on 4 KiB or 2 MB pages, each page
// faulted in as it is first written or all of them by one call beforehand
// (MADV_POPULATE_WRITE). Each measurement runs in a child process of its
// own, since the first large block of a process is what a command writes;
// the four ways alternate round by round. Prints, per way, the median and
// range of the milliseconds to fault in and write the block, and of writing
// it again (memory already there: the floor).
//
//   reader_bench_fresh_memory [--megabytes M] [--rounds N]
//
// Asserts nothing about time.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

struct Way {
    const char *label;
    bool hugePages;
    bool faultedInFirst;
};

constexpr Way kWays[] = {
    {"4 KiB pages, faulted as written", false, false},
    {"4 KiB pages, faulted in by one call", false, true},
    {"2 MB pages, faulted as written", true, false},
    {"2 MB pages, faulted in by one call", true, true},
};

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

struct Measured {
    double first = 0;  // fault in (where asked) and write
    double again = 0;  // write again
};

// In this process: one block of bytes taken the given way and written twice.
// False where the kernel refused the way (no MADV_POPULATE_WRITE before 5.14).
bool measure(const Way &way, size_t bytes, Measured &measured) {
    // Mapped at a 2 MB boundary, as the reader's column memory is.
    void *mapped = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return false;
    auto *block = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(mapped) + kHugePage - 1) &
                                           ~uintptr_t{kHugePage - 1});
    if (madvise(block, bytes, way.hugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0) return false;
    const auto start = std::chrono::steady_clock::now();
#ifdef MADV_POPULATE_WRITE
    if (way.faultedInFirst && madvise(block, bytes, MADV_POPULATE_WRITE) != 0) return false;
#else
    if (way.faultedInFirst) return false;
#endif
    std::memset(block, 1, bytes);
    measured.first = millisecondsSince(start);
    const auto again = std::chrono::steady_clock::now();
    std::memset(block, 2, bytes);
    measured.again = millisecondsSince(again);
    return true;
}

// The same in a child process; false if it failed.
bool measureInChild(const Way &way, size_t bytes, Measured &measured) {
    int channel[2];
    if (pipe(channel) != 0) return false;
    const pid_t child = fork();
    if (child < 0) return false;
    if (child == 0) {
        close(channel[0]);
        Measured result;
        const bool ok = measure(way, bytes, result);
        const ssize_t written =
            ok ? write(channel[1], &result, sizeof result) : static_cast<ssize_t>(0);
        _exit(written == static_cast<ssize_t>(sizeof result) ? 0 : 1);
    }
    close(channel[1]);
    const ssize_t got = read(channel[0], &measured, sizeof measured);
    close(channel[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return got == static_cast<ssize_t>(sizeof measured) && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

void printSpread(const char *what, std::vector<double> values) {
    std::sort(values.begin(), values.end());
    std::printf("  %s median %7.1f ms (%.1f-%.1f)", what, values[values.size() / 2], values.front(),
                values.back());
}

int usage(const char *program) {
    std::fprintf(stderr, "usage: %s [--megabytes M] [--rounds N]\n", program);
    return 2;
}

}  // namespace

int main(int argc, char **argv) {
    long megabytes = 140;  // to_numpy's table of a million calls
    long rounds = 5;
    for (int index = 1; index < argc; ++index) {
        const std::string option = argv[index];
        if ((option == "--megabytes" || option == "--rounds") && index + 1 < argc) {
            char *end = nullptr;
            const long value = std::strtol(argv[++index], &end, 10);
            if (*end != '\0' || value <= 0) return usage(argv[0]);
            (option == "--megabytes" ? megabytes : rounds) = value;
        } else {
            return usage(argv[0]);
        }
    }
    const size_t bytes = static_cast<size_t>(megabytes) << 20;
    constexpr size_t kWayCount = sizeof kWays / sizeof kWays[0];
    std::vector<double> first[kWayCount], again[kWayCount];
    bool refused[kWayCount] = {};
    for (long round = 0; round < rounds; ++round)
        for (size_t way = 0; way < kWayCount; ++way) {
            Measured measured;
            if (!measureInChild(kWays[way], bytes, measured)) {
                refused[way] = true;
                continue;
            }
            first[way].push_back(measured.first);
            again[way].push_back(measured.again);
        }
    std::printf("%ld MB fresh in a new process, %ld rounds:\n", megabytes, rounds);
    for (size_t way = 0; way < kWayCount; ++way) {
        std::printf("%-38s", kWays[way].label);
        if (refused[way]) {
            std::printf("  refused by this kernel\n");
            continue;
        }
        printSpread("first write", first[way]);
        printSpread("again", again[way]);
        std::printf("\n");
    }
    return 0;
}
