#include "Config.hpp"

#include <strings.h>

#include <cstdio>
#include <cstdlib>

#include <hdtrace/TraceFormatName.hpp>

namespace hdtracempi {
namespace {

// Accept 0/1 and the common spellings; anything else is a mistake.
bool parseSwitch(const char *text, bool &value) {
    static const char *const kOn[] = {"1", "yes", "on", "true"};
    static const char *const kOff[] = {"0", "no", "off", "false", ""};
    for (const char *on : kOn)
        if (strcasecmp(text, on) == 0) {
            value = true;
            return true;
        }
    for (const char *off : kOff)
        if (strcasecmp(text, off) == 0) {
            value = false;
            return true;
        }
    return false;
}

void readWriterThread(Config::WriterThread &value, bool reportProblems) {
    const char *text = std::getenv("HDTRACE_WRITER_THREAD");
    if (!text) return;
    bool on = false;
    if (strcasecmp(text, "auto") == 0)
        value = Config::WriterThread::Auto;
    else if (parseSwitch(text, on))
        value = on ? Config::WriterThread::On : Config::WriterThread::Off;
    else if (reportProblems)
        std::fprintf(stderr,
                     "hdtracempi: warning: HDTRACE_WRITER_THREAD='%s' is not 0, 1 or auto; "
                     "using auto\n",
                     text);
}

// HDTRACE_CLOCK: "tsc" reads the TSC where the kernel trusts it (see
// hdtrace/Clock.hpp), "realtime" calls clock_gettime for every time.
void readClock(bool &tsc, bool reportProblems) {
    const char *text = std::getenv("HDTRACE_CLOCK");
    if (!text || !*text) return;
    if (strcasecmp(text, "tsc") == 0)
        tsc = true;
    else if (strcasecmp(text, "realtime") == 0)
        tsc = false;
    else if (reportProblems)
        std::fprintf(stderr,
                     "hdtracempi: warning: HDTRACE_CLOCK='%s' is not tsc or realtime; using %s\n",
                     text, tsc ? "tsc" : "realtime");
}

// --- Clocks: HDTRACE_CLOCK_SYNC (docs/user/clocks.md).
void readClockSync(bool &on, bool reportProblems) {
    const char *text = std::getenv("HDTRACE_CLOCK_SYNC");
    if (!text || parseSwitch(text, on)) return;
    char *end = nullptr;
    const long seconds = std::strtol(text, &end, 10);
    on = true;
    if (!reportProblems) return;
    if (*text && *end == '\0' && seconds > 1)
        std::fprintf(stderr,
                     "hdtracempi: warning: HDTRACE_CLOCK_SYNC=%ld: periodic clock measurement "
                     "is not supported (see docs/user/clocks.md); measuring in "
                     "MPI_Init and MPI_Finalize only\n",
                     seconds);
    else
        std::fprintf(stderr,
                     "hdtracempi: warning: HDTRACE_CLOCK_SYNC='%s' is not 0 or 1; using 1\n", text);
}
// --- end of Clocks

void readFormat(bool &compact, bool reportProblems) {
    const char *text = std::getenv("HDTRACE_FORMAT");
    if (!text) return;
    if (const auto format = hdtrace::traceFormatNamed(text))
        compact = *format == hdtrace::TraceOptions::Format::Compact;
    else if (reportProblems)
        std::fprintf(stderr,
                     "hdtracempi: warning: HDTRACE_FORMAT='%s' is not xml or compact; using xml\n",
                     text);
}

void readCompactLevel(int &level, bool reportProblems) {
    const char *text = std::getenv("HDTRACE_COMPACT_LEVEL");
    if (!text) return;
    if (const auto named = hdtrace::compactLevelNamed(text))
        level = *named;
    else if (reportProblems)
        std::fprintf(stderr,
                     "hdtracempi: warning: HDTRACE_COMPACT_LEVEL='%s' is not a zstd level nor 0; "
                     "using %d\n",
                     text, level);
}

}  // namespace

void readSwitch(const char *variable, bool &value, bool reportProblems) {
    const char *text = std::getenv(variable);
    if (!text || parseSwitch(text, value)) return;
    if (reportProblems)
        std::fprintf(stderr, "hdtracempi: warning: %s='%s' is not 0 or 1; using the default %d\n",
                     variable, text, value ? 1 : 0);
}

Config readConfig(bool reportProblems) {
    Config config;
    if (const char *directory = std::getenv("HDTRACE_DIR")) config.directory = directory;
    readSwitch("HDTRACE_FORCE_FLUSH", config.forceFlush, reportProblems);
    readSwitch("HDTRACE_NESTED", config.nested, reportProblems);
    readSwitch("HDTRACE_FILE_INFO", config.fileInfo, reportProblems);
    readSwitch("HDTRACE_ALL_FUNCTIONS", config.allFunctions, reportProblems);
    readSwitch("HDTRACE_VERBOSE", config.verbose, reportProblems);
    readWriterThread(config.writerThread, reportProblems);
    readClock(config.tscClock, reportProblems);
    readClockSync(config.clockSync, reportProblems);
    readFormat(config.compact, reportProblems);
    readCompactLevel(config.compactLevel, reportProblems);
    readSwitch("HDTRACE_POSIX", config.posix, reportProblems);
    if (const char *exclude = std::getenv("HDTRACE_POSIX_EXCLUDE")) config.posixExclude = exclude;
    if (const char *filter = std::getenv("HDTRACE_FILTER")) config.filter = filter;
    return config;
}

}  // namespace hdtracempi
