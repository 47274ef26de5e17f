// The C API of hdTrace.h, a thin layer over TraceWriter that adds argument
// checks, printf-style formatting and errno reporting.
#include <errno.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <hdtrace/CrashHandlers.hpp>
#include <hdtrace/TraceFormatName.hpp>
#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/hdTrace.h>

struct hdTraceHandle {
    std::unique_ptr<hdtrace::TraceWriter> writer;  // null once finalized
};

namespace {

// Finalized handles are kept, so that a late call fails with EBADF instead
// of touching freed memory. They are a few bytes each.
std::mutex finalizedHandlesMutex;
std::vector<std::unique_ptr<hdTraceHandle>> finalizedHandles;

int fail(int error) {
    errno = error;
    return -1;
}

int result(int error) {
    return error == 0 ? 0 : fail(error);
}

// 0 when the handle is usable, else the errno value that describes why not.
int checkHandle(hdTrace trace) {
    if (!trace) return EINVAL;
    if (!trace->writer) return EBADF;
    return 0;
}

bool isXmlName(const char *name) {
    auto isNameStart = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    };
    if (!name || !isNameStart(*name)) return false;
    for (const char *c = name + 1; *c; ++c) {
        if (!isNameStart(*c) && !(*c >= '0' && *c <= '9') && *c != '-' && *c != '.') return false;
    }
    return true;
}

// (The attribute lets the compilers check the callers' format strings.)
__attribute__((format(printf, 1, 0))) std::string formatText(const char *format,
                                                             va_list arguments) {
    va_list copy;
    va_copy(copy, arguments);
    const int length = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    if (length <= 0) return std::string();
    std::string text(static_cast<size_t>(length), '\0');
    std::vsnprintf(text.data(), text.size() + 1, format, arguments);
    return text;
}

// A setting as the wrapper reads it: fallback when the variable is unset or
// parse refuses its text, the latter with one warning per process (warned).
template <typename Value, typename Parse>
Value settingFromEnvironment(const char *variable, Parse parse, Value fallback,
                             const char *expected, const char *fallbackText,
                             std::atomic<bool> &warned) {
    const char *text = std::getenv(variable);
    if (!text) return fallback;
    if (const auto value = parse(text)) return *value;
    if (!warned.exchange(true))
        std::fprintf(stderr, "hdtrace: warning: %s='%s' is not %s; using %s\n", variable, text,
                     expected, fallbackText);
    return fallback;
}

// HDTRACE_FORMAT: XML when unset or unknown.
hdtrace::TraceOptions::Format formatFromEnvironment() {
    static std::atomic<bool> warned{false};
    return settingFromEnvironment("HDTRACE_FORMAT", hdtrace::traceFormatNamed,
                                  hdtrace::TraceOptions::Format::Xml, "xml or compact", "xml",
                                  warned);
}

// HDTRACE_COMPACT_LEVEL: 1 when unset or not a level.
int compactLevelFromEnvironment() {
    static std::atomic<bool> warned{false};
    return settingFromEnvironment("HDTRACE_COMPACT_LEVEL", hdtrace::compactLevelNamed, 1,
                                  "a zstd level nor 0", "1", warned);
}

}  // namespace

extern "C" {

hdTrace hdT_createTrace(const char *directory, const char *program, int nlevels,
                        const char *const levels[]) {
    return hdT_createTraceInFormat(directory, program, nlevels, levels, HDT_FORMAT_DEFAULT);
}

hdTrace hdT_createTraceInFormat(const char *directory, const char *program, int nlevels,
                                const char *const levels[], hdT_Format format) {
    if (!program || nlevels < 0 || (nlevels > 0 && !levels)) {
        errno = EINVAL;
        return nullptr;
    }
    hdtrace::TraceOptions options;
    switch (format) {
        case HDT_FORMAT_DEFAULT:
            options.format = formatFromEnvironment();
            break;
        case HDT_FORMAT_XML:
            options.format = hdtrace::TraceOptions::Format::Xml;
            break;
        case HDT_FORMAT_COMPACT:
            options.format = hdtrace::TraceOptions::Format::Compact;
            break;
        default:
            errno = EINVAL;
            return nullptr;
    }
    if (options.format == hdtrace::TraceOptions::Format::Compact)
        options.compactLevel = compactLevelFromEnvironment();
    options.directory = directory ? directory : "";
    options.program = program;
    for (int i = 0; i < nlevels; ++i) {
        if (!levels[i]) {
            errno = EINVAL;
            return nullptr;
        }
        options.levels.emplace_back(levels[i]);
    }
    std::string error;
    auto writer = hdtrace::TraceWriter::create(options, &error);
    if (!writer) {
        const int createError = errno ? errno : EIO;
        std::fprintf(stderr, "hdtrace: %s\n", error.c_str());
        errno = createError;
        return nullptr;
    }
    auto *handle = new hdTraceHandle;
    handle->writer = std::move(writer);
    return handle;
}

int hdT_logStateStart(hdTrace trace, const char *stateName) {
    if (int error = checkHandle(trace)) return fail(error);
    if (!isXmlName(stateName)) return fail(EINVAL);
    return result(trace->writer->beginState(stateName));
}

int hdT_logStateEnd(hdTrace trace) {
    if (int error = checkHandle(trace)) return fail(error);
    return result(trace->writer->endState());
}

int hdT_logAttributes(hdTrace trace, const char *format, ...) {
    if (int error = checkHandle(trace)) return fail(error);
    if (!format) return fail(EINVAL);
    if (trace->writer->depth() == 0) return fail(EPERM);
    if (!trace->writer->isWriting()) return 0;
    va_list arguments;
    va_start(arguments, format);
    std::string text = " " + formatText(format, arguments);
    va_end(arguments);
    trace->writer->rawAttributes(text);
    return 0;
}

int hdT_logElement(hdTrace trace, const char *elementName, const char *format, ...) {
    if (int error = checkHandle(trace)) return fail(error);
    if (!isXmlName(elementName)) return fail(EINVAL);
    if (trace->writer->depth() == 0) return fail(EPERM);
    if (!trace->writer->isWriting()) return 0;
    trace->writer->beginElement(elementName);
    if (format) {
        va_list arguments;
        va_start(arguments, format);
        std::string text = " " + formatText(format, arguments);
        va_end(arguments);
        trace->writer->rawAttributes(text);
    }
    trace->writer->endElement();
    return 0;
}

int hdT_writeInfo(hdTrace trace, const char *format, ...) {
    if (int error = checkHandle(trace)) return fail(error);
    if (!format) return fail(EINVAL);
    va_list arguments;
    va_start(arguments, format);
    std::string text = formatText(format, arguments);
    va_end(arguments);
    return result(trace->writer->writeInfo(text));
}

int hdT_setNestedDepth(hdTrace trace, int depth) {
    if (int error = checkHandle(trace)) return fail(error);
    return result(trace->writer->setNestedDepth(depth));
}

int hdT_setForceFlush(hdTrace trace, int flush) {
    if (int error = checkHandle(trace)) return fail(error);
    trace->writer->setForceFlush(flush != 0);
    return 0;
}

int hdT_enableTrace(hdTrace trace) {
    if (int error = checkHandle(trace)) return fail(error);
    trace->writer->setEnabled(true);
    return 0;
}

int hdT_disableTrace(hdTrace trace) {
    if (int error = checkHandle(trace)) return fail(error);
    trace->writer->setEnabled(false);
    return 0;
}

int hdT_isEnabled(hdTrace trace) {
    if (int error = checkHandle(trace)) return fail(error);
    return trace->writer->enabled() ? 1 : 0;
}

int hdT_finalize(hdTrace trace) {
    if (int error = checkHandle(trace)) return fail(error);
    const int closeError = trace->writer->close();
    trace->writer.reset();
    {
        std::lock_guard<std::mutex> lock(finalizedHandlesMutex);
        finalizedHandles.emplace_back(trace);
    }
    return result(closeError);
}

int hdT_installCrashHandlers(void) {
    hdtrace::installCrashHandlers();
    return 0;
}

}  // extern "C"
