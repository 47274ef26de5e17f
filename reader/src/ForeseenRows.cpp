#include "ForeseenRows.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "DialectBytes.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {
namespace {

// A few thousand calls: enough of a trace's mix for a steady ratio of bytes
// to calls, read from the page cache in some ten microseconds.
constexpr size_t kSampleBytes = size_t{256} << 10;
// Where the sample holds no call (a prolog, or a file of one call).
constexpr size_t kFallbackBytesPerCall = 40;
// Calls later in the file may be shorter than the sample's: an eighth more
// costs only unwritten address space.
constexpr size_t kMarginEighths = 9;
constexpr size_t kSlackRows = 1024;

}  // namespace

size_t foreseenXmlCalls(const char *sample, size_t sampleBytes, size_t fileBytes) {
    size_t calls = 0;
    const char *const end = sample + sampleBytes;
    for (const char *at = sample;
         (at = static_cast<const char *>(std::memchr(at, '<', static_cast<size_t>(end - at))));) {
        const char *name = ++at;
        while (at != end && dialect::kTables.name[dialect::byteAt(at)])
            ++at;
        if (at == end) break;  // a name cut by the sample's end
        const std::string_view tag(name, static_cast<size_t>(at - name));
        // End tags, the prolog and comments (no name after '<'), the root
        // and the nested blocks are no calls; the details below a call
        // (<Data>, <For>) are counted with them, which errs towards room.
        if (tag.empty() || grammar::isRoot(tag) || grammar::isNestedBlock(tag)) continue;
        ++calls;
    }
    if (calls == 0 || sampleBytes == 0) return fileBytes / kFallbackBytesPerCall + kSlackRows;
    const double perByte = static_cast<double>(calls) / static_cast<double>(sampleBytes);
    return static_cast<size_t>(perByte * static_cast<double>(fileBytes) *
                               static_cast<double>(kMarginEighths) / 8.0) +
           kSlackRows;
}

size_t foreseenXmlCalls(const std::string &path) {
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return 0;
    struct stat file {};
    std::vector<char> sample;
    ssize_t got = -1;
    if (::fstat(descriptor, &file) == 0 && file.st_size > 0) {
        sample.resize(std::min(kSampleBytes, static_cast<size_t>(file.st_size)));
        got = ::pread(descriptor, sample.data(), sample.size(), 0);
    }
    ::close(descriptor);
    if (got <= 0) return 0;
    return foreseenXmlCalls(sample.data(), static_cast<size_t>(got),
                            static_cast<size_t>(file.st_size));
}

}  // namespace hdtrace::reader
