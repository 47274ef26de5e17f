#include "XmlEncoding.hpp"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <utility>
#include <vector>

#include <hdtrace/TraceOptions.hpp>
#include <hdtrace/codec/Format.hpp>
#include <hdtrace/codec/Inlining.hpp>
#include <hdtrace/hdTrace.h>

namespace hdtrace {
namespace {

// The end of every trace. Static: the output buffer keeps a pointer to it.
constexpr std::string_view kEpilog = "</Program>\n";
constexpr std::string_view kIndentSpaces = "                                  ";
static_assert(kIndentSpaces.size() >= 2 * HD_LOG_MAX_DEPTH, "indent for every depth");
// " time='' end=''" with both times, and "'/>\n".
constexpr size_t kTimesBytes = sizeof(" time='' end=''") + 2 * kMaxNumberChars + 4;

char *writeText(char *out, std::string_view text) {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

HDTRACE_CALL_PATH char *writeIndent(char *out, int depth) {
    return writeText(out, kIndentSpaces.substr(0, static_cast<size_t>(2 * depth)));
}

char *writeNumber(char *out, int64_t value) {
    if (static_cast<uint64_t>(value) < 10) {  // ranks, tags, ids: often one digit
        *out = static_cast<char>('0' + value);
        return out + 1;
    }
    return formatInteger(out, value);
}

// " time='T' end='E'"
__attribute__((always_inline)) inline char *writeTimes(char *out, int64_t start, int64_t end) {
    std::memcpy(out, " time='", 7);
    out = formatRelativeTime(out + 7, start);
    std::memcpy(out, "' end='", 7);
    out = formatRelativeTime(out + 7, end);
    *out = '\'';
    return out + 1;
}

// A piece of a typed element's text. The block that holds the pieces ends
// in 16 bytes of padding, so that 16 bytes can be read from any piece and
// a piece of up to 16 bytes is copied by one fixed-size move.
struct Piece {
    const char *text;
    size_t length;
};

// The copy may write up to 16 bytes at out: the room reserved for what
// follows a piece (a value, the times) is always that large.
__attribute__((always_inline)) inline char *copyPiece(char *out, Piece piece) {
    if (piece.length <= 16) {
        std::memcpy(out, piece.text, 16);
        return out + piece.length;
    }
    return copyText(out, std::string_view(piece.text, piece.length));
}

// A typed element's text but its values: "<Name", then " name='" before
// each value; made once per process for every plan.
struct CallText {
    const Piece *pieces;  // "<Name", then " name='" before each own attribute
    // The most its text takes at an indent of one level, with every value a
    // number at its longest, with the times and the element's end.
    size_t maxBytes;
};

// "<Name a='1' b='x'" of a typed element.
__attribute__((always_inline)) inline char *writeTypedElement(char *out, const CallText &text,
                                                              const CallPlan &plan,
                                                              const int64_t *values,
                                                              std::string_view texts) {
    out = copyPiece(out, text.pieces[0]);
    const Piece *before = text.pieces + 1;
    const compact::ShapeAttribute *attributes = plan.attributes;
    const uint32_t own = plan.own;
    for (uint32_t index = 0; index < own; ++index) {
        out = copyPiece(out, before[index]);
        if (attributes[index].coding == compact::kText)
            out = escapeXml(out, typedText(texts, values[index]));
        else
            out = writeNumber(out, values[index]);
        *out++ = '\'';
    }
    return out;
}

// The XML text of a state's general parts at depth, as renderState writes it.
size_t maxRenderedSize(const StateParts &parts, int depth) {
    constexpr size_t kFixedText = sizeof("<Nested>\n</Nested>\n>\n</>\n");
    return kFixedText + kTimesBytes + 3 * 2 * static_cast<size_t>(depth) + parts.nested.size() +
           parts.head.size() + parts.children.size() + parts.nameLength;
}

char *renderState(char *out, const StateParts &parts, int depth, int64_t start, int64_t end) {
    if (!parts.nested.empty()) {
        out = writeIndent(out, depth);
        out = writeText(out, "<Nested>\n");
        out = writeText(out, parts.nested.view());
        out = writeIndent(out, depth);
        out = writeText(out, "</Nested>\n");
    }
    if (depth > 0) out = writeIndent(out, depth);
    out = copyText(out, parts.head.view());
    out = writeTimes(out, start, end);
    if (parts.children.empty()) return writeText(out, "/>\n");
    out = writeText(out, ">\n");
    out = writeText(out, parts.children.view());
    out = writeIndent(out, depth);
    out = writeText(out, "</");
    out = writeText(out, parts.name());
    return writeText(out, ">\n");
}

}  // namespace

class XmlCallTexts {
  public:
    // Every text in one block and every piece in one array, each call's
    // next to each other, so that writing a call touches few cache lines.
    XmlCallTexts() {
        uint32_t count = 0;
        const CallPlan *plans = callPlans(&count);
        std::vector<std::pair<size_t, size_t>> places;          // of each piece in bytes_
        std::vector<std::pair<uint32_t, size_t>> calls(count);  // first piece, maxBytes
        const auto add = [&](const std::string &text) {
            places.emplace_back(bytes_.size(), text.size());
            bytes_ += text;
            return text.size();
        };
        for (uint32_t index = 0; index < count; ++index) {
            const CallPlan &plan = plans[index];
            calls[index].first = static_cast<uint32_t>(places.size());
            size_t maxBytes = 2 + kTimesBytes + add("<" + std::string(plan.element));
            for (uint32_t attribute = 0; attribute < plan.own; ++attribute)
                maxBytes += add(" " + std::string(plan.attributes[attribute].name) + "='") +
                            kMaxNumberChars + 1;
            calls[index].second = maxBytes;
        }
        bytes_.append(16, '\0');  // a piece is copied 16 bytes at a time
        pieces_.reserve(places.size());
        for (const auto &[offset, length] : places)
            pieces_.push_back(Piece{bytes_.data() + offset, length});
        for (uint32_t index = 0; index < count; ++index) {
            const CallPlan &plan = plans[index];
            if (plan.shape >= byShape_.size()) byShape_.resize(plan.shape + 1);
            byShape_[plan.shape] =
                CallText{pieces_.data() + calls[index].first, calls[index].second};
        }
    }
    const CallText &of(const CallPlan &plan) const { return byShape_[plan.shape]; }

  private:
    std::string bytes_;
    std::vector<Piece> pieces_;
    std::vector<CallText> byShape_;
};

const XmlCallTexts &xmlCallTexts() {
    static const XmlCallTexts texts;
    return texts;
}

size_t XmlEncoding::memoryBytes(const TraceOptions &options) {
    return options.bufferBytes < 4096 ? 4096 : options.bufferBytes;
}

std::unique_ptr<XmlEncoding> XmlEncoding::create(const TraceOptions &options, const Trace &trace,
                                                 std::string *error) {
    std::unique_ptr<XmlEncoding> encoding(new XmlEncoding(trace));
    encoding->texts_ = &xmlCallTexts();  // built now rather than in the first traced call
    encoding->fd_ = ::open(trace.tracePath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (encoding->fd_ < 0) {
        if (error) *error = "cannot create '" + trace.tracePath + "': " + std::strerror(errno);
        return nullptr;
    }
    OutputBuffer &output = encoding->output_;
    output.attach(encoding->fd_, memoryBytes(options), options.backgroundWrites);
    std::string prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='";
    appendInteger(prolog, trace.timeAdjustmentSeconds);
    prolog += "'>\n";
    // Straight to the file, so that even a trace of a killed process has its
    // prolog. When every call is flushed, the file also ends in the epilog
    // from the start until close, so that a process killed by SIGKILL (as
    // MPICH's Hydra ends every rank after a fatal error) leaves a
    // well-formed trace of every call. Otherwise a killed process leaves a
    // visibly cut trace: what was buffered is lost anyway.
    if (options.forceFlush) output.keepFileEndingWith(kEpilog.data(), kEpilog.size());
    if (!output.writeThrough(prolog.data(), prolog.size())) {
        if (error)
            *error = "cannot write '" + trace.tracePath + "': " + std::strerror(output.lastError());
        return nullptr;  // the destructor closes the file
    }
    if (trace.info) output.writeFirst(trace.info);
    return encoding;
}

XmlEncoding::~XmlEncoding() {
    if (fd_ >= 0) ::close(fd_);
}

template <class Render>
__attribute__((always_inline)) inline int XmlEncoding::writeTopLevel(size_t maxBytes,
                                                                     Render render) {
    char *space = output_.claimWithoutFlush(maxBytes);
    if (!space) space = output_.claim(maxBytes);
    if (space) {
        output_.commit(static_cast<size_t>(render(space) - space));
        return 0;
    }
    oversized_.clear();
    oversized_.commit(render(oversized_.reserve(maxBytes)));
    return append(oversized_.data(), oversized_.size());
}

HDTRACE_CALL_PATH int XmlEncoding::writeLeafCall(const CallPlan &plan, const int64_t *values,
                                                 int64_t start, int64_t end,
                                                 std::string_view texts) {
    const CallText &text = texts_->of(plan);
    return writeTopLevel(text.maxBytes + kMaxEscapedBytesPerByte * texts.size(),
                         [&](char *out) HDTRACE_CALL_PATH {
                             out = writeTypedElement(out, text, plan, values, texts);
                             out = writeTimes(out, start, end);
                             return writeText(out, "/>\n");
                         });
}

HDTRACE_CALL_PATH int XmlEncoding::writeCall(const CallPlan &plan, const int64_t *values,
                                             int64_t start, int64_t end,
                                             const TypedChildren &children,
                                             const TypedNested &nested, std::string_view texts) {
    // As the general way renders the same call (renderState): its nested
    // states in a <Nested> block before it, its children inside it, each
    // of those one level in.
    const CallText &text = texts_->of(plan);
    size_t maxBytes = text.maxBytes + kMaxEscapedBytesPerByte * texts.size() +
                      sizeof("<Nested>\n</Nested>\n") + text.pieces[0].length + sizeof("</>\n");
    for (uint32_t state = 0; state < nested.count; ++state)
        maxBytes += texts_->of(*nested.plans[state]).maxBytes;
    for (uint32_t child = 0; child < children.count; ++child)
        maxBytes += texts_->of(*children.plans[child]).maxBytes;
    return writeTopLevel(maxBytes, [&](char *out) HDTRACE_CALL_PATH {
        // A nested call or a child: one level in, its times only if it has
        // them (a nested call), "/>" after.
        const auto writePart = [&](char *at, const CallPlan &partPlan, const int64_t *partValues,
                                   const int64_t *times) HDTRACE_CALL_PATH {
            at = writeIndent(at, 1);
            at = writeTypedElement(at, texts_->of(partPlan), partPlan, partValues, texts);
            if (times) at = writeTimes(at, times[0], times[1]);
            return writeText(at, "/>\n");
        };
        if (nested.count != 0) {
            out = writeText(out, "<Nested>\n");
            const int64_t *nestedValues = nested.values;
            for (uint32_t state = 0; state < nested.count; ++state) {
                const CallPlan &statePlan = *nested.plans[state];
                out = writePart(out, statePlan, nestedValues, nested.times + 2 * state);
                nestedValues += statePlan.own;
            }
            out = writeText(out, "</Nested>\n");
        }
        out = writeTypedElement(out, text, plan, values, texts);
        out = writeTimes(out, start, end);
        if (children.count == 0) return writeText(out, "/>\n");
        out = writeText(out, ">\n");
        const int64_t *childValues = children.values;
        for (uint32_t child = 0; child < children.count; ++child) {
            const CallPlan &childPlan = *children.plans[child];
            out = writePart(out, childPlan, childValues, nullptr);
            childValues += childPlan.own;
        }
        out = writeText(out, "</");
        out = writeText(out, std::string_view(text.pieces[0].text + 1, text.pieces[0].length - 1));
        return writeText(out, ">\n");
    });
}

void XmlEncoding::putNumber(TextBuffer &out, std::string_view name, int64_t value) {
    char *p = out.reserve(name.size() + 4 + kMaxNumberChars);
    *p++ = ' ';
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    *p++ = '=';
    *p++ = '\'';
    p = writeNumber(p, value);
    *p++ = '\'';
    out.commit(p);
}

void XmlEncoding::putText(TextBuffer &out, std::string_view name, std::string_view text) {
    char *p = out.reserve(name.size() + 4 + kMaxEscapedBytesPerByte * text.size());
    *p++ = ' ';
    p = writeText(p, name);
    *p++ = '=';
    *p++ = '\'';
    p = escapeXml(p, text);
    *p++ = '\'';
    out.commit(p);
}

void XmlEncoding::putRawAttributes(TextBuffer &out, std::string_view text) {
    out.append(text);
}

size_t XmlEncoding::beginChild(TextBuffer &children, std::string_view name, int depth) {
    const size_t indent = static_cast<size_t>(2 * depth);
    char *p = children.reserve(indent + 1 + name.size());
    std::memcpy(p, kIndentSpaces.data(), indent);
    p[indent] = '<';
    std::memcpy(p + indent + 1, name.data(), name.size());
    children.commit(p + indent + 1 + name.size());
    return 0;
}

void XmlEncoding::endChild(TextBuffer &children, size_t) {
    children.append("/>\n");
}

void XmlEncoding::putEvent(TextBuffer &children, std::string_view name, int64_t time, int depth) {
    char *p =
        children.reserve(2 * static_cast<size_t>(depth) + sizeof("<Event name='' time=''/>\n") +
                         kMaxEscapedBytesPerByte * name.size() + kMaxNumberChars);
    p = writeIndent(p, depth);
    p = writeText(p, "<Event name='");
    p = escapeXml(p, name);
    p = writeText(p, "' time='");
    p = formatRelativeTime(p, time);
    children.commit(writeText(p, "'/>\n"));
}

int XmlEncoding::writeState(StateParts &parts, int depth, int64_t start, int64_t end,
                            TextBuffer *parentNested) {
    const size_t maxBytes = maxRenderedSize(parts, depth);
    if (parentNested) {
        parentNested->commit(
            renderState(parentNested->reserve(maxBytes), parts, depth, start, end));
        return 0;
    }
    return writeTopLevel(maxBytes,
                         [&](char *out) { return renderState(out, parts, 0, start, end); });
}

int XmlEncoding::writeEvent(std::string_view name, int64_t time) {
    oversized_.clear();
    putEvent(oversized_, name, time, 0);
    return append(oversized_.data(), oversized_.size());
}

int XmlEncoding::append(const char *text, size_t length) {
    if (failed()) return EIO;
    if (char *space = output_.claim(length)) {
        std::memcpy(space, text, length);
        output_.commit(length);
        return 0;
    }
    if (output_.lastError() == 0 && !output_.failedInBefore() && output_.writeThrough(text, length))
        return 0;
    failOutput();
    return EIO;
}

int XmlEncoding::flush() {
    if (output_.flush()) return 0;
    failOutput();
    return EIO;
}

int XmlEncoding::close() {
    output_.keepFileEndingWith(nullptr, 0);
    append(kEpilog.data(), kEpilog.size());
    if (!failed() && !output_.flush()) failOutput();  // the .info's lines first
    // Even after a failure: the background writer must be done with the
    // descriptor before its number can be given to another file.
    output_.waitForBackgroundWrites();
    ::close(fd_);
    fd_ = -1;
    return failed() ? EIO : 0;
}

void XmlEncoding::closeForCrash() {
    output_.closeForCrash(kEpilog.data(), kEpilog.size());
}

void XmlEncoding::abandonAfterFork() {
    output_.abandon();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

void XmlEncoding::setForceFlush(bool on) {
    output_.keepFileEndingWith(on ? kEpilog.data() : nullptr, kEpilog.size());
}

void XmlEncoding::failOutput() {
    if (output_.failedInBefore())
        fail(trace_->infoPath, trace_->info ? trace_->info->lastError() : EIO);
    else
        fail(trace_->tracePath, output_.lastError());
}

}  // namespace hdtrace
