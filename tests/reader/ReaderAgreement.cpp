// A command for the Python and end-to-end tests:
//   reader_agreement compare TRACE...
//     reads each trace with libxml2's reader and with the dialect scanner (with
//     its fallback), strict and partial, and prints every difference. A trace
//     that libxml2 reads without error must be read by the scanner itself.
//     Exit status 1 on any difference.
//   reader_agreement peak-memory TRACE [NAME...]
//     reads the trace into columns (only calls named NAME, if given) and
//     prints "rows R peak_kb K fallback F".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "ColumnReaders.hpp"
#include "ColumnsComparison.hpp"

using namespace hdtrace::reader;
using namespace hdtrace::reader::testing;

namespace {

int compare(int count, char **paths) {
    int disagreements = 0, byScanner = 0, byLibxml2 = 0;
    for (int i = 0; i < count; ++i) {
        const std::string path = paths[i];
        TraceOptions options;
        std::optional<std::string> fallback;
        std::string difference = compareReaders(path, options, nullptr, &fallback);
        options.partial = true;
        std::string partialDifference = compareReaders(path, options);
        if (!partialDifference.empty()) difference += "(partial) " + partialDifference;
        ReadOutcome reference =
            readOutcome([&] { return readEventColumnsWithLibxml2(path, TraceOptions{}, nullptr); });
        if (reference.result && fallback)
            difference +=
                "libxml2 reads it, but the scanner left it to libxml2: " + *fallback + "\n";
        if (!difference.empty()) {
            ++disagreements;
            std::printf("%s: the readers disagree:\n%s", path.c_str(), difference.c_str());
        }
        (reference.result && !fallback ? byScanner : byLibxml2) += 1;
    }
    std::printf("%d traces: %d read by the scanner, %d (damaged) left to libxml2, %d disagree\n",
                count, byScanner, byLibxml2, disagreements);
    return disagreements == 0 ? 0 : 1;
}

// The peak resident memory of this process image: VmHWM, not getrusage's
// ru_maxrss, which Linux carries over from the parent across fork and exec.
long peakKilobytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
    return -1;
}

int peakMemory(const std::string &path, std::vector<std::string> names) {
    TraceOptions options;
    options.filter.names = std::move(names);
    try {
        ColumnsResult result = readEventColumns(path, options, nullptr);
        std::printf("rows %zu peak_kb %ld fallback %s\n", result.columns.rows(), peakKilobytes(),
                    result.fallback ? result.fallback->c_str() : "none");
    } catch (const ReadError &error) {
        std::fprintf(stderr, "%s\n", error.what());
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc >= 2 && std::strcmp(argv[1], "compare") == 0) return compare(argc - 2, argv + 2);
    if (argc >= 3 && std::strcmp(argv[1], "peak-memory") == 0)
        return peakMemory(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    std::fprintf(stderr, "usage: %s compare TRACE... | peak-memory TRACE [NAME...]\n", argv[0]);
    return 2;
}
