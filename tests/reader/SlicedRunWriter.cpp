// reader_sliced_run DIR CYCLES RANKS: writes the run of SlicedRun.hpp (for
// tests/python/test_dask.py and the sliced case of bench/reader/dask_benchmark.py).
#include <cstdio>
#include <cstdlib>

#include "SlicedRun.hpp"

int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s DIR CYCLES RANKS\n", argv[0]);
        return 2;
    }
    const int cycles = std::atoi(argv[2]), ranks = std::atoi(argv[3]);
    if (cycles <= 0 || ranks <= 0) {
        std::fprintf(stderr, "%s: CYCLES and RANKS must be positive numbers\n", argv[0]);
        return 2;
    }
    std::string error;
    if (hdtrace::testing::writeSlicedRun(argv[1], ranks, cycles, &error).empty()) {
        std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
        return 1;
    }
    return 0;
}
