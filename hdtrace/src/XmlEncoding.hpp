// XmlEncoding: the states as the XML text of a .trc (docs/format/trace.md),
// through an OutputBuffer whose full halves a background thread writes.
// A typed call is written from its plan's names, precomputed once per
// process, so that its attributes are never copied by name.
#pragma once

#include <memory>
#include <string>

#include "StateEncoding.hpp"

namespace hdtrace {

class XmlCallTexts;

class XmlEncoding final : public StateEncoding {
  public:
    static std::unique_ptr<XmlEncoding> create(const TraceOptions &options, const Trace &trace,
                                               std::string *error);
    static size_t memoryBytes(const TraceOptions &options);
    ~XmlEncoding() override;

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
    void setForceFlush(bool on) override;

  private:
    explicit XmlEncoding(const Trace &trace) : StateEncoding(trace) {}
    // length bytes to the trace: through the buffer, or straight to the
    // file when they exceed it. 0 or EIO.
    int append(const char *text, size_t length);
    // A top-level state rendered by render(out) into at most maxBytes.
    template <class Render>
    int writeTopLevel(size_t maxBytes, Render render);
    void failOutput();  // fail() naming the file whose write failed

    const XmlCallTexts *texts_ = nullptr;  // every plan's names as XML text
    int fd_ = -1;
    OutputBuffer output_;
    TextBuffer oversized_;  // a state larger than the output buffer
};

}  // namespace hdtrace
