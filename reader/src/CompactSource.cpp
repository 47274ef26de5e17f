#include "CompactSource.hpp"

#include <algorithm>

namespace hdtrace::reader {
namespace {

class NoElements final : public CompactHandler {
  public:
    void startElement(std::string_view, const CompactAttributes &) override {}
    void endElement(std::string_view) override {}
};

}  // namespace

CompactSource::CompactSource(const std::string &path, bool partial)
    : file_(path, FrameFileOptions{partial}), reader_(file_), partial_(partial) {
    positions_.resize(file_.frames().size());
    for (size_t position = 0; position < positions_.size(); ++position)
        positions_[position] = position;
}

void CompactSource::selectByteRange(uint64_t begin, uint64_t end) {
    const std::vector<FrameInfo> &frames = file_.frames();
    positions_.erase(std::remove_if(positions_.begin(), positions_.end(),
                                    [&](size_t position) {
                                        const uint64_t offset = frames[position].offset;
                                        return offset < begin || offset >= end;
                                    }),
                     positions_.end());
    // The slice that holds the end of the last complete frame reports a cut there.
    readsTheLastFrame_ = begin <= file_.cutAt() && file_.cutAt() < end;
}

void CompactSource::selectUntil(int64_t toNs) {
    // Frame times are nanoseconds after the timeAdjustment, which only a
    // frame says: the first frame is read for it.
    if (positions_.empty()) return;
    std::vector<unsigned char> records;
    CompactFrameDecoder decoder;
    NoElements nothing;
    const size_t first = positions_.front();
    try {
        if (!decodeFileFrame(file_, first, records, decoder, nothing))
            return;  // partial: the read reports it
    } catch (const CompactRecordProblem &) {
        return;  // the read decodes it again and reports it
    }
    const int64_t adjustmentNs = decoder.timeAdjustmentSeconds() * 1000000000;
    const std::vector<FrameInfo> &frames = file_.frames();
    const auto after = std::find_if(positions_.begin(), positions_.end(), [&](size_t position) {
        return position < frames.size() && frames[position].earliest > toNs - adjustmentNs;
    });
    if (after != positions_.end()) {
        positions_.erase(after, positions_.end());
        readsTheLastFrame_ = false;
    }
}

void CompactSource::checkWholeFrame(size_t position) {
    bool checkedOpen = true;
    int depth = 0;
    NoElements nothing;
    OneProgram<CompactHandler> checked(nothing, &checkedOpen, &depth);
    reader_.readFrames(static_cast<CompactHandler &>(checked), {position});
}

void CompactSource::afterFrame(const FrameError *error) {
    if (error) {
        damage_ = error->what();
        position_ = positions_.size();
        readsTheLastFrame_ = false;
    }
    if (file_.damage() && !damage_) {
        damage_ = file_.damage();
        position_ = positions_.size();
        readsTheLastFrame_ = false;
    }
}

void CompactSource::finish() {
    if (damage_) return;
    if (file_.damage()) {
        damage_ = file_.damage();
        return;
    }
    if (file_.indexed() || !readsTheLastFrame_) return;
    const size_t frames = file_.frames().size();
    const std::string cut = frames == 0
                                ? "cut before its first frame: its writer did not close it"
                                : "cut after its last complete frame (frame " +
                                      std::to_string(frames - 1) + "): its writer did not close it";
    if (!partial_) throw FrameError(file_.path(), file_.cutAt(), cut);
    damage_ = FrameError(file_.path(), file_.cutAt(), cut).what();
}

std::unique_ptr<CompactSource> openCompactSource(const std::string &path,
                                                 const TraceOptions &options,
                                                 const std::optional<CompactByteRange> &range) {
    auto source = std::make_unique<CompactSource>(path, options.partial);
    if (range) source->selectByteRange(range->begin, range->end);
    if (options.filter.hasTimeWindow()) source->selectUntil(options.filter.toNs);
    return source;
}

}  // namespace hdtrace::reader
