// The scanner's loop over tags, templated on the handler: DialectScanner.cpp
// compiles it for the virtual DialectHandler (run, runSlice), and a caller
// with a final handler class includes this file and calls runWith or
// runSliceWith, so that the handler's calls are direct and can be inlined
// into the loop (DialectColumns.cpp: one call less per tag and per end).
#pragma once

#include <hdtrace/reader/DialectScanner.hpp>

#include "DialectBytes.hpp"

namespace hdtrace::reader {

template <class Handler>
DialectScanner::Outcome DialectScanner::runWith(Handler &handler) {
    const char *position = nullptr;
    if (!startFile(position)) return Outcome::Unrecognised;
    return scan(position, handler);
}

template <class Handler>
DialectScanner::Outcome DialectScanner::runSliceWith(Handler &handler, uint64_t from, uint64_t to,
                                                     bool toIsEndOfFile) {
    if (!startSlice(from, to, toIsEndOfFile)) return Outcome::Unrecognised;
    return scan(begin_, handler);
}

template <class Handler>
DialectScanner::Outcome DialectScanner::scan(const char *position, Handler &handler) {
    for (;;) {
        while (dialect::kTables.space[dialect::byteAt(position)])
            ++position;
        if (position == end_) {
            if (endOfFile_) break;
            if (!refill(position)) {
                reason_ = "read failed";
                return Outcome::Unrecognised;
            }
            position = begin_;
            continue;
        }
        if (*position != '<') {
            reason_ = "text or a character outside the dialect between tags";
            return Outcome::Unrecognised;
        }
        const char *tag = position;
        if (slice_ && position[1] != '/') {
            // The writer's layout: a line starts with a call's start tag
            // (depth 2) and with no other start tag.
            const bool lineStart = (position > begin_ ? position[-1] : byteBeforeChunk_) == '\n';
            if (lineStart != (depth_ == 1)) {
                reason_ = "a start tag that does not follow the writer's layout of lines";
                return Outcome::Unrecognised;
            }
        }
        switch (scanTag(position, handler)) {
            case TagResult::Done:
                continue;
            case TagResult::Stopped:
                return Outcome::Stopped;
            case TagResult::Unrecognised:
                return Outcome::Unrecognised;
            case TagResult::NeedMore:
                if (endOfFile_) {
                    reason_ = "the file ends inside a tag";
                    return Outcome::Unrecognised;
                }
                if (!refill(tag)) {
                    reason_ = "a tag longer than the chunk, or a failed read";
                    return Outcome::Unrecognised;
                }
                position = begin_;
                continue;
        }
    }
    if (slice_ && !sliceEndsFile_) {
        if (depth_ == 1) return Outcome::Complete;
        reason_ = "a slice that ends inside a call, or after the root";
        return Outcome::Unrecognised;
    }
    if (!rootSeen_) {
        reason_ = "no root element";
        return Outcome::Unrecognised;
    }
    if (depth_ > 0) {
        reason_ = "the file ends inside the root element";
        return Outcome::Unrecognised;
    }
    return Outcome::Complete;
}

template <class Handler>
inline DialectScanner::TagResult DialectScanner::scanTag(const char *&position, Handler &handler) {
    const char next = position[1];
    if (next == '/') return scanEndTag(position, handler);
    if (next == '?' || next == '!') return unrecognised("a comment, CDATA, DTD or PI");
    if (position + 1 == end_) return TagResult::NeedMore;
    return scanStartTag(position, handler);
}

template <class Handler>
inline DialectScanner::TagResult DialectScanner::scanEndTag(const char *&position,
                                                            Handler &handler) {
    const char *cursor = position + 2;
    const char *nameStart = cursor;
    cursor = dialect::skipName(cursor);
    const size_t nameLength = static_cast<size_t>(cursor - nameStart);
    while (dialect::kTables.space[dialect::byteAt(cursor)])
        ++cursor;
    if (cursor == end_) return TagResult::NeedMore;
    if (*cursor != '>') return unrecognised("a malformed end tag");
    if (depth_ == 0) return unrecognised("an end tag outside the root");
    const OpenName &open = openNames_[static_cast<size_t>(depth_)];
    const char *openText = open.length <= kShortName ? open.text : open.long_.data();
    bool matches = open.length == nameLength;
    for (size_t i = 0; matches && i < nameLength; ++i)
        matches = openText[i] == nameStart[i];
    if (!matches) return unrecognised("an end tag that does not match its start tag");
    handler.endElement(depth_);
    if (--depth_ == 0) rootClosed_ = true;
    position = cursor + 1;
    return TagResult::Done;
}

template <class Handler>
inline DialectScanner::TagResult DialectScanner::scanStartTag(const char *&position,
                                                              Handler &handler) {
    StartTag tag;
    const TagResult read = readStartTag(position, &tag);
    if (read != TagResult::Done) return read;
    switch (handler.startElement(depth_, tag.name, tag.attributes, tag.count, tag.shape)) {
        case DialectHandler::Verdict::Continue:
            break;
        case DialectHandler::Verdict::Stop:
            return TagResult::Stopped;
        case DialectHandler::Verdict::Unrecognised:
            return unrecognised("a value the column reader refuses");
    }
    if (tag.selfClosing) {
        handler.endElement(depth_);
        if (--depth_ == 0) rootClosed_ = true;
    }
    return TagResult::Done;
}

}  // namespace hdtrace::reader
