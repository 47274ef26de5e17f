// Frames of compact records held in memory, for the codec's tests and its
// fuzz target: a RecordSink that keeps each frame as a byte string, and the
// decoded elements of such frames as lines of text, one per start and end.
#pragma once

#include <errno.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/codec/RecordSink.hpp>

namespace hdtrace::test {

// A record goes into the last frame, or starts a new one when it does not
// fit, as a file's container does.
class MemorySink final : public RecordSink {
  public:
    explicit MemorySink(uint32_t frameBytes) : frameBytes_(frameBytes) { frames.emplace_back(); }
    int append(const void *record, size_t length, int64_t /*time*/) override {
        if (length == 0) return EINVAL;
        if (length > frameBytes_) return EMSGSIZE;
        if (frames.back().size() + length > frameBytes_) frames.emplace_back();
        const auto *bytes = static_cast<const unsigned char *>(record);
        frames.back().insert(frames.back().end(), bytes, bytes + length);
        return 0;
    }
    unsigned char *claim(size_t maxBytes) override {
        std::vector<unsigned char> &frame = frames.back();
        if (frame.empty() || frame.size() + maxBytes > frameBytes_) return nullptr;
        claimedAt_ = frame.size();
        claimedBytes_ = maxBytes;
        frame.resize(claimedAt_ + maxBytes);
        return frame.data() + claimedAt_;
    }
    // More than was claimed: the encoder wrote past its claim.
    int commit(size_t length, int64_t /*time*/) override {
        if (length > claimedBytes_) return EOVERFLOW;
        frames.back().resize(claimedAt_ + length);
        return 0;
    }
    size_t pendingBytes() const override { return frames.back().size(); }
    uint32_t frameBytes() const override { return frameBytes_; }
    int closeFrame() override {
        if (!frames.back().empty()) frames.emplace_back();
        return 0;
    }

    // Frames in order; the last may be empty (a file holds no empty frame).
    std::vector<std::vector<unsigned char>> frames;

  private:
    uint32_t frameBytes_;
    size_t claimedAt_ = 0;
    size_t claimedBytes_ = 0;
};

// What a decoder reports, a line per start and end: "<Name a=1 t=text"
// (integers and times as numbers, texts as given) and "</Name".
class DecodedLines final : public CompactHandler {
  public:
    void frameStart(int64_t timeAdjustmentSeconds) override {
        adjustments.push_back(timeAdjustmentSeconds);
    }
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        std::string line = "<" + std::string(name);
        for (int index = 0; index < attributes.size(); ++index) {
            line += " " + std::string(attributes.name(index)) + "=";
            line += attributes.kind(index) == CompactAttributes::Kind::Text
                        ? std::string(attributes.value(index))
                        : std::to_string(attributes.integer(index));
        }
        lines.push_back(line);
    }
    void endElement(std::string_view name) override { lines.push_back("</" + std::string(name)); }

    std::vector<std::string> lines;
    std::vector<int64_t> adjustments;  // each frame's timeAdjustment
};

// The lines of every non-empty frame, each decoded by a decoder of its
// own (a frame decodes without the ones before it), and each frame's
// timeAdjustment in *adjustments; on damage, what the decoder said, with
// the frame's number, in *problem.
inline std::vector<std::string> decodeFrames(const MemorySink &sink, std::string *problem,
                                             std::vector<int64_t> *adjustments = nullptr) {
    DecodedLines decoded;
    for (size_t frame = 0; frame < sink.frames.size() && problem->empty(); ++frame) {
        if (sink.frames[frame].empty()) continue;
        CompactFrameDecoder decoder;
        try {
            decoder.decode(sink.frames[frame].data(), sink.frames[frame].size(), decoded);
        } catch (const CompactRecordProblem &refused) {
            *problem = "frame " + std::to_string(frame) + ": record byte " +
                       std::to_string(refused.position) + ": " + refused.problem;
        }
    }
    if (adjustments) *adjustments = decoded.adjustments;
    return decoded.lines;
}

}  // namespace hdtrace::test
