// What it costs to touch memory right after a system call, by pages and by
// cache lines: where the kernel isolates its page tables, each system call
// flushes the TLB, and every page a traced call touches afterwards (code
// and data of the tracer) costs a page walk again. The loop makes one
// getppid system call, or none, then reads one byte from each of P pages,
// or from L cache lines of one block. Prints, per row, the medians over the
// rounds of the ns the reads take in an iteration without the system call
// and after it (the iteration's time less that of the system call alone,
// measured in the same round). The chain rows read P pages each through
// an address read from the one before (as a writer reaches its encoder and
// its buffer), once as they come and once with every page's address
// prefetched first, all at once.
//
//   bench_pages_after_syscall [--iterations N] [--rounds R]
//
// Asserts nothing about time.
#include <sys/mman.h>
#include <sys/syscall.h>
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

constexpr size_t kPage = 4096;
constexpr size_t kSpanPages = 2048;  // 8 MiB: more pages than any L1 TLB holds

volatile uint64_t gSink;

// ns per iteration of: an optional system call, then one read from each of
// count places stride bytes apart in block.
double measure(const unsigned char *block, size_t count, size_t stride, bool systemCall,
               long iterations) {
    uint64_t sum = 0;
    const auto start = std::chrono::steady_clock::now();
    for (long iteration = 0; iteration < iterations; ++iteration) {
        if (systemCall) ::syscall(SYS_getppid);
        for (size_t place = 0; place < count; ++place)
            sum += block[place * stride + static_cast<size_t>(iteration & 63)];
    }
    const double elapsed =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    gSink = sum;
    return elapsed / static_cast<double>(iterations);
}

// ns per iteration of: an optional system call, then a walk along count
// pages, each read giving the address of the next (block is linked so
// first); with prefetchFirst, every page's address is prefetched before.
double measureChain(unsigned char *block, size_t count, bool prefetchFirst, bool systemCall,
                    long iterations) {
    std::vector<unsigned char *> places(count);
    for (size_t place = 0; place < count; ++place)
        places[place] = block + place * 61 * kPage + 128;
    for (size_t place = 0; place < count; ++place) {
        unsigned char *next = place + 1 < count ? places[place + 1] : nullptr;
        std::memcpy(places[place], &next, sizeof next);
    }
    uint64_t sum = 0;
    const auto start = std::chrono::steady_clock::now();
    for (long iteration = 0; iteration < iterations; ++iteration) {
        if (systemCall) ::syscall(SYS_getppid);
        if (prefetchFirst)
            for (unsigned char *place : places)
                __builtin_prefetch(place);
        for (unsigned char *at = places[0]; at != nullptr;) {
            sum += at[sizeof at];
            std::memcpy(&at, at, sizeof at);
        }
    }
    const double elapsed =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    gSink = sum;
    // The links stay in the pages: the next chain writes its own.
    return elapsed / static_cast<double>(iterations);
}

struct Row {
    const char *unit;
    size_t count;
    size_t stride;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

int usage(const char *program) {
    std::fprintf(stderr, "usage: %s [--iterations N] [--rounds R]\n", program);
    return 2;
}

}  // namespace

int main(int argc, char **argv) {
    long iterations = 200000;
    long rounds = 7;
    for (int index = 1; index < argc; ++index) {
        const std::string option = argv[index];
        if ((option != "--iterations" && option != "--rounds") || index + 1 >= argc)
            return usage(argv[0]);
        char *end = nullptr;
        const long value = std::strtol(argv[++index], &end, 10);
        if (*end != '\0' || value <= 0) return usage(argv[0]);
        (option == "--iterations" ? iterations : rounds) = value;
    }
    const size_t bytes = kSpanPages * kPage;
    void *mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        std::perror("mmap");
        return 1;
    }
    // 4 KiB pages, as the code of a library and most of its data are.
    madvise(mapped, bytes, MADV_NOHUGEPAGE);
    auto *block = static_cast<unsigned char *>(mapped);
    std::memset(block, 1, bytes);

    // Pages 61 apart, so that they do not share a TLB set in an obvious way;
    // cache lines one after the other.
    const std::vector<Row> rows = {{"pages", 4, 61 * kPage},  {"pages", 8, 61 * kPage},
                                   {"pages", 16, 61 * kPage}, {"pages", 32, 61 * kPage},
                                   {"cache lines", 16, 64},   {"cache lines", 64, 64},
                                   {"cache lines", 256, 64}};
    const std::vector<size_t> chains = {4, 8, 16};
    std::vector<std::vector<double>> without(rows.size()), after(rows.size());
    std::vector<std::vector<double>> chainWithout(2 * chains.size()), chainAfter(2 * chains.size());
    std::vector<double> systemCall;
    for (long round = 0; round < rounds; ++round) {
        const double alone = measure(block, 0, 0, true, iterations);
        systemCall.push_back(alone);
        for (size_t row = 0; row < rows.size(); ++row) {
            without[row].push_back(
                measure(block, rows[row].count, rows[row].stride, false, iterations));
            after[row].push_back(
                measure(block, rows[row].count, rows[row].stride, true, iterations) - alone);
        }
        for (size_t chain = 0; chain < 2 * chains.size(); ++chain) {
            const size_t count = chains[chain / 2];
            const bool prefetchFirst = chain % 2 == 1;
            chainWithout[chain].push_back(
                measureChain(block, count, prefetchFirst, false, iterations));
            chainAfter[chain].push_back(
                measureChain(block, count, prefetchFirst, true, iterations) - alone);
        }
    }
    std::printf("getppid alone: %.1f ns (median of %ld rounds of %ld)\n", median(systemCall),
                rounds, iterations);
    std::printf("%-30s %16s %16s\n", "reads of", "no system call", "after getppid");
    for (size_t row = 0; row < rows.size(); ++row) {
        const size_t span = (rows[row].count - 1) * rows[row].stride + 64;
        std::printf("%4zu %-12s (%3zu pages) %13.1f ns %13.1f ns\n", rows[row].count,
                    rows[row].unit,
                    rows[row].stride >= kPage ? rows[row].count : (span + kPage - 1) / kPage,
                    median(without[row]), median(after[row]));
    }
    for (size_t chain = 0; chain < 2 * chains.size(); ++chain) {
        const size_t count = chains[chain / 2];
        std::printf("%4zu pages, chained%-12s %13.1f ns %13.1f ns\n", count,
                    chain % 2 == 1 ? ", prefetched" : "", median(chainWithout[chain]),
                    median(chainAfter[chain]));
    }
    return 0;
}
