#include <utility>

#include <hdtrace/reader/TraceReader.hpp>

namespace hdtrace::reader {

TraceReader::TraceReader(const std::string &path, TraceOptions options)
    : parser_(path, *this, std::move(options)) {}

bool TraceReader::next(Event &event) {
    while (queue_.empty()) {
        if (!parser_.parseNextChunk() && queue_.empty()) return false;
    }
    event = std::move(queue_.front());
    queue_.pop_front();
    return true;
}

}  // namespace hdtrace::reader
