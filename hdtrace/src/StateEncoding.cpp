#include "StateEncoding.hpp"

#include <cstdio>
#include <cstring>

#include <hdtrace/TraceOptions.hpp>

#include "CompactEncoding.hpp"
#include "XmlEncoding.hpp"

namespace hdtrace {

std::unique_ptr<StateEncoding> StateEncoding::create(const TraceOptions &options,
                                                     const Trace &trace, std::string *error) {
    if (options.format == TraceOptions::Format::Compact)
        return CompactEncoding::create(options, trace, error);
    return XmlEncoding::create(options, trace, error);
}

size_t StateEncoding::memoryBytes(const TraceOptions &options) {
    if (options.format == TraceOptions::Format::Compact)
        return CompactEncoding::memoryBytes(options);
    return XmlEncoding::memoryBytes(options);
}

void StateEncoding::fail(const std::string &path, int error) const {
    failTrace(*trace_->failed, path.c_str(), error);
}

void failTrace(std::atomic<bool> &failed, const char *path, int error) {
    if (failed.exchange(true)) return;
    std::fprintf(stderr,
                 "hdtrace: cannot write '%s': %s; this trace stops here, the program goes on\n",
                 path, std::strerror(error));
}

}  // namespace hdtrace
