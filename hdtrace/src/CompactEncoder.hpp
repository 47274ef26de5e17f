// CompactEncoder: turns the items of a finished top-level state or event
// (CompactItems.hpp) into one record of the record layer
// (hdtrace/CompactFormat.hpp, docs/format/compact.md "Records") and appends
// it to the trace's FrameWriter. It keeps the frame's tables (strings,
// dynamic shapes, previous times and ids) and starts them afresh whenever a
// record begins a new frame, so that every frame decodes on its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/TextBuffer.hpp>

namespace hdtrace {

class CompactEncoder {
  public:
    // Creates the file (see FrameWriter::create) and appends the first
    // frame's Program (time: the trace's creation, nanoseconds after
    // timeAdjustment), so that even an empty trace says its timeAdjustment.
    static std::unique_ptr<CompactEncoder> create(const std::string &path,
                                                  const FrameWriterOptions &options,
                                                  int64_t timeAdjustmentSeconds,
                                                  int64_t createdNanoseconds, std::string *error);

    // items: one top-level element with what precedes it (<Nested>) and
    // its children; time: its start. 0 or an errno value (FrameWriter's,
    // EMSGSIZE when the record exceeds a frame).
    int append(std::string_view items, int64_t time);
    FrameWriter &frames() { return *frames_; }

  private:
    CompactEncoder() = default;
    void startFrame();
    // Encodes items into record_; false when they are not well-formed
    // (a bug of the caller: nothing is appended).
    bool encode(std::string_view items);
    bool encodeElement(const char **in, const char *end, bool open);
    uint32_t stringIndex(std::string_view text);

    std::unique_ptr<FrameWriter> frames_;
    int64_t timeAdjustmentSeconds_ = 0;
    bool frameStarts_ = true;  // the next record is the first of its frame
    std::unordered_map<std::string, uint32_t> strings_;
    std::unordered_map<std::string, uint32_t> dynamicShapes_;
    int64_t previousTime_ = 0;
    int64_t previousIds_[6] = {};
    std::string key_;      // the element's shape key, reused
    TextBuffer record_;    // the record being encoded
    TextBuffer values_;    // the values of the element being encoded
    std::string scratch_;  // a looked-up string
};

}  // namespace hdtrace
