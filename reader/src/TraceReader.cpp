#include <utility>

#include <hdtrace/reader/TraceReader.hpp>

#include "SliceLayout.hpp"

namespace hdtrace::reader {
namespace {

class DiscardingSink : public EventSink {
  public:
    void onEvent(const Event &) override {}
};

}  // namespace

TraceReader::TraceReader(const std::string &path, TraceOptions options) {
    parser_.emplace(path, sink(), std::move(options));
}

TraceReader::TraceReader(const std::string &path, TraceOptions options, uint64_t begin,
                         uint64_t end)
    : layout_(std::make_unique<SliceLayout>(path, begin, end)) {
    SliceLayout &layout = *layout_;
    if (!layout.inWritersLayout()) {
        // Read whole by the slice at 0; an unreadable file fails every slice
        // (the parser throws when it cannot open it).
        if (begin == 0 || !layout.readable()) parser_.emplace(path, sink(), std::move(options));
        return;
    }
    if (layout.empty()) return;
    // As readEventColumnsSlice: an error only at the slice's end, where the
    // file goes on, or in the closing tag added after the slice means the
    // slice does not end between top-level calls. The whole read gives its
    // error; without one, say why.
    auto checkError = [&layout, path](const ReadError &error) {
        if (!dynamic_cast<const InputEndError *>(&error) && !layout.errorInAddedClosingTag())
            return;
        DiscardingSink discard;
        TraceParser(path, discard).parseAll();
        throw layout.notInLayout();
    };
    parser_.emplace(
        path, sink(), std::move(options), layout.documentPieces(),
        [&layout](int line) { return layout.fileLine(line); }, std::move(checkError));
}

TraceReader::~TraceReader() = default;

const std::optional<std::string> &TraceReader::damage() const {
    static const std::optional<std::string> kNone;
    return parser_ ? parser_->damage() : kNone;
}

bool TraceReader::next(Event &event) {
    if (!parser_) return false;
    while (queue_.empty()) {
        if (!parser_->parseNextChunk() && queue_.empty()) return false;
    }
    event = std::move(queue_.front());
    queue_.pop_front();
    return true;
}

}  // namespace hdtrace::reader
