// CompactFormat: the record layer of a compact trace, shared by the encoder
// (CompactEncoder.hpp) and the decoder (CompactDecoder.hpp).
// The records travel in the frames of FrameFormat.hpp; what their bytes
// mean is described in docs/format/compact.md ("Records"). This header holds
// the operation codes, the value codings, the variable-length integers and
// the table of shapes generated from format/dialect.toml, so that both sides
// agree by construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <hdtrace/codec/Varint.hpp>

namespace hdtrace::compact {

// Version of the record layer, written at the start of every frame. From
// version 2 on, an end becomes the previous time of the next time (a call's
// start is then coded as the gap since the previous call ended, a smaller
// and steadier number than the time between two starts). From version 3
// on, a <Nested> block first gives the start of the call it belongs to,
// its states' times follow from that start, and the call's own end is
// coded from the block's last end: the parts of a call with a nested one
// (the time before, inside, after) each appear once, not summed into
// three values. Readers still read versions 1 and 2.
constexpr uint32_t kRecordsVersion = 3;
constexpr uint32_t kFirstRecordsVersion = 1;

// --- Operations: every item of a frame starts with one as a varint. Codes
// from kFirstElementCode on are elements: 2 * shape + (1 when children follow).
enum Operation : uint32_t {
    kEndElement = 0,  // closes the element whose children were being listed
    // <Nested>; from version 3 on followed by a zigzag varint: the start of
    // the element the block belongs to minus the previous time
    kNestedOpen = 1,
    // </Nested>; from version 3 on, the previous time is the owner's start again
    kNestedClose = 2,
    kProgram = 3,  // frame start: version, shape table fingerprint, timeAdjustment
    kString = 4,   // defines the frame's next string: length, bytes
    kShape = 5,    // defines the frame's next dynamic shape
    kFirstElementCode = 8,
};

// --- How one attribute's value is coded, as a byte in a shape.
enum Coding : uint8_t {
    kInteger = 0,  // zigzag varint of the value (decimal text when written)
    kText = 1,     // varint index into the frame's strings (XML-escaped when written)
    kTime = 2,     // zigzag varint: nanoseconds minus the previous time or end
    // zigzag varint: nanoseconds minus this element's time; from version 3
    // on, the owner of a <Nested> block's minus the block's last time or end
    kEnd = 3,
    kRaw = 4,  // varint string index: attribute text written as it is, name empty
    // zigzag varint of the value minus the previous value of the same
    // attribute of the same static shape in this frame (static shapes only)
    kFieldDelta = 5,
    // kIdDelta + k: zigzag varint of the value minus the previous value of
    // id kind k (the order of kIdKinds) in this frame.
    kIdDelta = 8,
};
constexpr std::string_view kIdKinds[] = {"cid", "rid", "fid", "tid", "mid", "wid"};
constexpr int kIdKindCount = sizeof kIdKinds / sizeof kIdKinds[0];
constexpr bool isKnownCoding(uint8_t coding) {
    return coding <= kFieldDelta || (coding >= kIdDelta && coding < kIdDelta + kIdKindCount);
}
// Whether values of this coding are integers (text when written: decimal).
constexpr bool isIntegerCoding(uint8_t coding) {
    return coding == kInteger || coding == kFieldDelta || coding >= kIdDelta;
}

struct ShapeAttribute {
    std::string_view name;
    uint8_t coding;
};
// An element and its attributes in written order; for a call, time (kTime)
// and end (kEnd) come last, as every call ends with them.
struct StaticShape {
    std::string_view element;
    const ShapeAttribute *attributes;
    uint32_t count;
};
// The shapes every frame knows without a definition, generated from the
// dialect: numbers 0 .. staticShapeCount() - 1. Dynamic shapes of a frame
// are numbered after them, in the order the frame defines them.
const StaticShape *staticShapes();
uint32_t staticShapeCount();
// A checksum of the static table (names and codings, in order), written at
// the start of every frame: a decoder built from another definition refuses
// the frame instead of misreading it.
uint32_t staticShapesFingerprint();
// How many static shapes the frames of a table fingerprint number (their
// dynamic shapes are numbered from there): all for this table's; for a
// table earlier writers used, its count, the tables being beginnings of
// this one (the first lacked the shapes of successful calls, a call without
// the attribute it has only when it failed; later ones the calls added
// since, compact_table in the definition); 0 for any other table.
uint32_t staticShapeCountFor(uint32_t fingerprint);
// The shape counts of the tables earlier writers used, oldest first.
std::vector<uint32_t> earlierShapeTables();
// The fingerprint of the table's first `shapes` shapes (at most all of them).
uint32_t shapeTableFingerprint(uint32_t shapes);
// Where the attributes of static shape s start in one array of all static
// shapes' attributes (kFieldDelta keeps its previous values there), and
// that array's size.
uint32_t staticFieldOffset(uint32_t shape);
uint32_t staticFieldCount();

// --- Variable-length integers (Varint.hpp).
using hdtrace::getVarint;
using hdtrace::kMaxVarintBytes;
using hdtrace::putVarint;
using hdtrace::unzigzag;
using hdtrace::zigzag;

// Differences of 64-bit values wrap, so that any two values code exactly.
inline int64_t wrappingDifference(int64_t value, int64_t previous) {
    return static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(previous));
}
inline int64_t wrappingSum(int64_t previous, int64_t difference) {
    return static_cast<int64_t>(static_cast<uint64_t>(previous) +
                                static_cast<uint64_t>(difference));
}

}  // namespace hdtrace::compact
