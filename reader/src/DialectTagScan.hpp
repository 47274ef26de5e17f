// The scanner's loop over tags, templated on the handler: DialectScanner.cpp
// compiles it for the virtual DialectHandler (run, runSlice), and a caller
// with a final handler class includes this file and calls runWith or
// runSliceWith, so that the handler's calls are direct and can be inlined
// into the loop (DialectColumns.cpp: one call less per tag and per end).
// The matching of a start tag against its shape is here too, inlined into
// the loop; the rest of the scanner (reading, the index, the full scan of a
// tag of a new shape) is in DialectScanner.cpp.
#pragma once

#include <hdtrace/codec/Inlining.hpp>

#include "DialectBytes.hpp"
#include "DialectScanner.hpp"

namespace hdtrace::reader {

// Whether bytes [from, to) of the chunk hold a special byte (see specialBits_).
inline bool DialectScanner::anySpecial(size_t from, size_t to) const {
    if (from >= to) return false;
    size_t word = from / 64;
    const size_t last = (to - 1) / 64;
    uint64_t bits = specialBits_[word] & (~uint64_t{0} << (from % 64));
    while (word < last) {
        if (bits != 0) return true;
        bits = specialBits_[++word];
    }
    return (bits & (~uint64_t{0} >> (63 - (to - 1) % 64))) != 0;  // the bits up to to - 1
}

// The first word of the index after word that holds a quote, and its
// quotes; none (0) up to the end of the data. Apart from matchShape's loop:
// rarely needed, and its state is returned, not kept in memory.
inline DialectScanner::QuoteWord DialectScanner::nextQuoteWordAfter(size_t word) const {
    while (++word < indexWords_)
        if (quoteBits_[word] != 0) return {word, quoteBits_[word]};
    return {word, 0};
}

// Matches the attributes and the end of the start tag at cursor (just after
// its name) against the shape in slot. On success, sets the values of the
// shape's attributes and moves cursor past the '>'. false sends the tag to
// the full scan, which decides (and words) everything: a mismatch, a value
// that is not plain text (references, non-ASCII), or the end of the data.
HDTRACE_HOT_INLINE bool DialectScanner::matchShape(int slot, const char *&cursor) {
    TagShape &shape = shapes_[static_cast<size_t>(slot)];
    const char *const base = begin_;
    const char *at = cursor;
    // The quotes from the tag's name on, one word of the index at a time
    // (wordStart: the text of its bit 0): the opening and closing quote of
    // each value in turn. Taking them one after the other, by clearing the
    // lowest bit, keeps each value's end independent of the previous one's
    // (no chain of loads and compares from value to value).
    const uint64_t *const quoteWords = quoteBits_.data();
    size_t word = static_cast<size_t>(at - base) / 64;
    const char *wordStart = base + word * 64;
    uint64_t quotes = quoteWords[word] & (~uint64_t{0} << static_cast<size_t>(at - wordStart));
    // Moves to the next word with a quote; false at the end of the data.
    const auto nextQuoteWord = [&]() {
        const QuoteWord next = nextQuoteWordAfter(word);
        if (next.quotes == 0) return false;
        word = next.word;
        quotes = next.quotes;
        wordStart = base + word * 64;
        return true;
    };
    const TagShape::Gap *gap = shape.gaps;
    ScannedAttribute *attribute = shape.attributes;
    ScannedAttribute *const attributesEnd = attribute + shape.count;
    size_t lengths = 0;  // of the values, or'ed
    for (; attribute != attributesEnd; ++attribute, ++gap) {
        if (!dialect::sameGap(at, gap->bytes, gap->mask)) return false;
        const char *value = at + gap->length;
        // The gap ends in the opening quote and holds no other one: dropped.
        if (quotes == 0 && !nextQuoteWord()) return false;
        quotes &= quotes - 1;
        if (quotes == 0 && !nextQuoteWord()) return false;
        const char *close = wordStart + static_cast<unsigned>(__builtin_ctzll(quotes));
        quotes &= quotes - 1;
        const auto length = static_cast<size_t>(close - value);
        attribute->value = std::string_view(value, length);
        lengths |= length;
        at = close + 1;
    }
    shape.shortValues = lengths < 16;
    if (!dialect::sameGap(at, gap->bytes, gap->mask)) return false;
    // References, non-ASCII text, or a tab or newline in a gap: the full scan.
    if (anySpecial(static_cast<size_t>(cursor - base), static_cast<size_t>(at - base)))
        return false;
    cursor = at + gap->length;
    recentWay_[static_cast<size_t>(slot / 2)] = slot & 1;
    return true;
}

// The start tag at position, up to the handler (scanStartTag calls it).
HDTRACE_HOT_INLINE DialectScanner::TagResult DialectScanner::readStartTag(const char *&position,
                                                                          StartTag *tag) {
    const char *cursor = position + 1;
    int count = 0;
    bool selfClosing = false;
    TagShapeId shape;
    bool matched = false;  // by a shape: its attributes, count and end
    std::string_view name;
    // The shape that last began with the 8 bytes after '<' (its name and the
    // start of its first gap), taken if name and gaps match byte for byte.
    uint64_t head;
    std::memcpy(&head, cursor, 8);
    int16_t &guess = shapeByHead_[(head * 0x9e3779b97f4a7c15u) >> 56];
    if (guess >= 0) {
        const TagShape &candidate = shapes_[static_cast<size_t>(guess)];
        const char *afterName = cursor + candidate.nameLength;
        // Names of 16 bytes or fewer (all of a trace's calls): one compare.
        const bool sameName =
            candidate.nameLength <= 16
                ? dialect::sameGap(cursor, candidate.name, candidate.nameMask)
                : dialect::sameShortBytes(candidate.name, cursor, candidate.nameLength);
        if (candidate.generation != 0 && sameName && matchShape(guess, afterName)) {
            name = std::string_view(cursor, candidate.nameLength);
            shape = {guess, candidate.generation, candidate.shortValues};
            matched = true;
            cursor = afterName;
        }
    }
    if (shape.slot < 0) {
        if (cursor == end_) return TagResult::NeedMore;
        if (*cursor == '?' || *cursor == '!') return unrecognised("a comment, CDATA, DTD or PI");
        if (!dialect::kTables.nameStart[dialect::byteAt(cursor)])
            return unrecognised("a name outside the dialect");
        const char *nameStart = cursor;
        cursor = dialect::skipName(cursor);
        name = std::string_view(nameStart, static_cast<size_t>(cursor - nameStart));
        if (name.size() > kMaxNameBytes) return unrecognised("a very long name");
        const int known = name.size() <= kShortName ? findShape(name) : -1;
        if (known >= 0 && matchShape(known, cursor)) {
            const TagShape &matchedShape = shapes_[static_cast<size_t>(known)];
            shape = {known, matchedShape.generation, matchedShape.shortValues};
            matched = true;
        } else {
            const char *gapStarts[kMaxAttributes + 1], *gapEnds[kMaxAttributes + 1];
            const char *attributeNames[kMaxAttributes];
            const TagResult result =
                scanAttributes(cursor, &count, &selfClosing, gapStarts, gapEnds, attributeNames);
            if (result != TagResult::Done) return result;
            const int learned =
                learnShape(name, gapStarts, gapEnds, count, selfClosing, attributeNames);
            if (learned >= 0) shape = {learned, shapes_[static_cast<size_t>(learned)].generation};
        }
        if (shape.slot >= 0) guess = static_cast<int16_t>(shape.slot);
    }
    if (rootClosed_) return unrecognised("an element after the root");
    if (depth_ == kMaxDepth) return unrecognised("nesting deeper than the readers' limit");
    ++depth_;
    rootSeen_ = true;
    position = cursor;
    tag->name = name;
    tag->shape = shape;
    if (matched) {
        const TagShape &known = shapes_[static_cast<size_t>(shape.slot)];
        tag->attributes = known.attributes;
        tag->count = known.count;
        tag->selfClosing = known.selfClosing;
    } else {
        tag->attributes = attributes_.data();
        tag->count = count;
        tag->selfClosing = selfClosing;
    }
    // Only an end tag reads the open name: a self-closing tag (most calls)
    // closes before the next tag, so its name is not kept.
    if (!tag->selfClosing) {
        OpenName &open = openNames_[static_cast<size_t>(depth_)];
        open.length = name.size();
        if (name.size() <= kShortName)
            std::memcpy(open.text, name.data(), kShortName);  // the padding makes this safe
        else
            open.long_.assign(name);
    }
    return TagResult::Done;
}

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
HDTRACE_HOT_INLINE DialectScanner::TagResult DialectScanner::scanTag(const char *&position,
                                                                     Handler &handler) {
    // What else '<' may start (the end of the data, a comment...) is told
    // apart by readStartTag where the tag is not a known shape's.
    if (position[1] == '/') return scanEndTag(position, handler);
    return scanStartTag(position, handler);
}

template <class Handler>
HDTRACE_HOT_INLINE DialectScanner::TagResult DialectScanner::scanEndTag(const char *&position,
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
    closeElement(handler);
    position = cursor + 1;
    return TagResult::Done;
}

template <class Handler>
HDTRACE_HOT_INLINE DialectScanner::TagResult DialectScanner::scanStartTag(const char *&position,
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
    if (tag.selfClosing) closeElement(handler);
    return TagResult::Done;
}

// The open element ends (its end tag, or a self-closing tag's own end).
template <class Handler>
HDTRACE_HOT_INLINE void DialectScanner::closeElement(Handler &handler) {
    handler.endElement(depth_);
    if (--depth_ == 0) rootClosed_ = true;
}

}  // namespace hdtrace::reader
