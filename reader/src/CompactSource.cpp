#include "CompactSource.hpp"

#include <algorithm>

namespace hdtrace::reader {
namespace {

// Passes one frame's elements on, but the Program's start after the first
// frame and its end: the frames of one read make one Program.
class OneProgram final : public CompactHandler {
  public:
    OneProgram(CompactHandler &handler, bool *programOpen)
        : handler_(handler), programOpen_(programOpen) {}
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        if (depth_++ == 0) {
            if (*programOpen_) return;
            *programOpen_ = true;
        }
        handler_.startElement(name, attributes);
    }
    void endElement(std::string_view name) override {
        if (--depth_ == 0) return;
        handler_.endElement(name);
    }

  private:
    CompactHandler &handler_;
    bool *programOpen_;
    int depth_ = 0;
};

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
    if (!file_.readFrame(first, records)) return;  // partial: the read reports it
    try {
        decoder.decode(records.data(), records.size(), nothing);
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

bool CompactSource::next(CompactHandler &handler) {
    if (done_) return false;
    OneProgram oneProgram(handler, &programOpen_);
    if (position_ < positions_.size()) {
        const size_t position = positions_[position_++];
        try {
            // A partial read keeps whole frames only: the frame is decoded
            // once without effect, so that damage inside it drops all of it.
            if (partial_) {
                bool checkedOpen = true;
                NoElements nothing;
                OneProgram checked(nothing, &checkedOpen);
                reader_.readFrames(checked, {position});
            }
            if (!file_.damage()) reader_.readFrames(oneProgram, {position});
        } catch (const FrameError &error) {
            if (!partial_) throw;
            damage_ = error.what();
            position_ = positions_.size();
            readsTheLastFrame_ = false;
        }
        if (file_.damage() && !damage_) {
            damage_ = file_.damage();
            position_ = positions_.size();
            readsTheLastFrame_ = false;
        }
        return true;
    }
    done_ = true;
    if (!programOpen_) reader_.readFrames(oneProgram, {});  // an empty Program
    handler.endElement("Program");
    finish();
    return false;
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
