// CompactEncoding: the states as the records of a .ctrc
// (docs/format/compact.md): CompactEncoder codes them into the frames of a
// FrameWriter. A typed call, with its typed children and nested states, is
// coded from its values; a state of the general way from the items
// (CompactItems.hpp) its parts were gathered as.
#pragma once

#include <memory>
#include <string>

#include "StateEncoding.hpp"

namespace hdtrace {

class CompactEncoder;
class FrameWriter;

class CompactEncoding final : public StateEncoding {
  public:
    static std::unique_ptr<CompactEncoding> create(const TraceOptions &options, const Trace &trace,
                                                   std::string *error);
    static size_t memoryBytes(const TraceOptions &options);
    ~CompactEncoding() override;

    int writeLeafCall(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                      std::string_view texts) override;
    int writeCall(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                  const TypedChildren &children, const TypedNested &nested,
                  std::string_view texts) override;

    void putNumber(TextBuffer &out, std::string_view name, int64_t value) override;
    void putText(TextBuffer &out, std::string_view name, std::string_view text) override;
    void putRawAttributes(TextBuffer &out, std::string_view text) override;
    size_t beginChild(TextBuffer &children, std::string_view name, int depth) override;
    void endChild(TextBuffer &children, size_t beganAt) override;
    void putEvent(TextBuffer &children, std::string_view name, int64_t time, int depth) override;
    int writeState(StateParts &parts, int depth, int64_t start, int64_t end,
                   TextBuffer *parentNested) override;
    int writeEvent(std::string_view name, int64_t time) override;

    int flush() override;
    int close() override;
    void closeForCrash() override;
    void abandonAfterFork() override;
    void setForceFlush(bool) override {}  // every flush() ends a frame

  private:
    explicit CompactEncoding(const Trace &trace);
    // What the encoder's error means: 0 (one state left out, said on
    // stderr) or EIO (the trace stops).
    int appendFailed(int error);
    bool flushInfo();

    // The encoder codes into the frames: destroyed first.
    std::unique_ptr<FrameWriter> frames_;
    std::unique_ptr<CompactEncoder> encoder_;
    TextBuffer items_;  // a finished top-level state or event
};

}  // namespace hdtrace
