#include <deque>
#include <utility>

#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "SliceLayout.hpp"
#include "TraceParser.hpp"

namespace hdtrace::reader {
namespace {

class DiscardingSink : public EventSink {
  public:
    void onEvent(const Event &) override {}
};

}  // namespace

// The parser of one read and the calls it handed over, not yet taken.
class TraceReader::Parsing : public EventSink {
  public:
    void onEvent(const Event &event) override { queue.push_back(event); }

    std::deque<Event> queue;
    std::unique_ptr<SliceLayout> layout;  // of a slice read
    std::optional<TraceParser> parser;    // none: an empty slice
};

TraceReader::TraceReader(const std::string &path, TraceOptions options)
    : parsing_(std::make_unique<Parsing>()) {
    parsing_->parser.emplace(path, *parsing_, std::move(options));
}

TraceReader::TraceReader(const std::string &path, TraceOptions options, uint64_t begin,
                         uint64_t end)
    : parsing_(std::make_unique<Parsing>()) {
    if (traceFormOf(path) == TraceForm::Compact) {
        // The frames whose header starts in the range.
        auto source = openCompactSource(path, options, CompactByteRange{begin, end});
        parsing_->parser.emplace(path, *parsing_, std::move(options), std::move(source));
        return;
    }
    parsing_->layout = std::make_unique<SliceLayout>(path, begin, end);
    SliceLayout &layout = *parsing_->layout;
    std::optional<TraceParser> &parser = parsing_->parser;
    if (!layout.inWritersLayout()) {
        // Read whole by the slice that holds byte 0; an unreadable file
        // fails every slice (the parser throws when it cannot open it).
        if (layout.readsWhole()) parser.emplace(path, *parsing_, std::move(options));
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
    parser.emplace(
        path, *parsing_, std::move(options), layout.documentPieces(),
        [&layout](int line) { return layout.fileLine(line); }, std::move(checkError));
}

TraceReader::~TraceReader() = default;
TraceReader::TraceReader(TraceReader &&) noexcept = default;
TraceReader &TraceReader::operator=(TraceReader &&) noexcept = default;

const std::optional<std::string> &TraceReader::damage() const {
    static const std::optional<std::string> kNone;
    return parsing_ && parsing_->parser ? parsing_->parser->damage() : kNone;
}

int64_t TraceReader::timeAdjustmentNs() const {
    return parsing_ && parsing_->parser ? parsing_->parser->timeAdjustmentNs() : 0;
}

int TraceReader::timeFractionDigits() const {
    return parsing_ && parsing_->parser ? parsing_->parser->timeFractionDigits() : -1;
}

bool TraceReader::next(Event &event) {
    if (!parsing_ || !parsing_->parser) return false;
    std::deque<Event> &queue = parsing_->queue;
    while (queue.empty()) {
        if (!parsing_->parser->parseNextChunk() && queue.empty()) return false;
    }
    event = std::move(queue.front());
    queue.pop_front();
    return true;
}

}  // namespace hdtrace::reader
