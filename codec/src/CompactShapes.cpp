// The static shapes of compact records, generated from format/dialect.toml,
// and the fingerprint that ties a frame to this table (or to a table
// earlier writers used, each a beginning of this one).
#include <hdtrace/codec/CompactFormat.hpp>

#include <array>
#include <iterator>
#include <vector>

namespace hdtrace::compact {
namespace {

#include "CompactShapes.inc"

constexpr uint32_t kShapeCount = sizeof kStaticShapeTable / sizeof kStaticShapeTable[0];

// FNV-1a over every element name, attribute name and coding, with
// separators, so that a renamed, reordered or recoded attribute changes it.
uint32_t fingerprintOf(const StaticShape *shapes, uint32_t count) {
    uint32_t hash = 2166136261u;
    auto mix = [&hash](unsigned char byte) { hash = (hash ^ byte) * 16777619u; };
    auto mixText = [&mix](std::string_view text) {
        for (char c : text)
            mix(static_cast<unsigned char>(c));
        mix(0);
    };
    for (uint32_t shape = 0; shape < count; ++shape) {
        mixText(shapes[shape].element);
        for (uint32_t index = 0; index < shapes[shape].count; ++index) {
            mixText(shapes[shape].attributes[index].name);
            mix(shapes[shape].attributes[index].coding);
        }
        mix(0xff);
    }
    return hash;
}

}  // namespace

const StaticShape *staticShapes() {
    return kStaticShapeTable;
}

uint32_t staticShapeCount() {
    return kShapeCount;
}

namespace {

struct FieldOffsets {
    uint32_t offsets[kShapeCount + 1];
    constexpr FieldOffsets() : offsets() {
        for (uint32_t shape = 0; shape < kShapeCount; ++shape)
            offsets[shape + 1] = offsets[shape] + kStaticShapeTable[shape].count;
    }
};
constexpr FieldOffsets kFieldOffsets;

}  // namespace

uint32_t staticFieldOffset(uint32_t shape) {
    return kFieldOffsets.offsets[shape];
}

uint32_t staticFieldCount() {
    return kFieldOffsets.offsets[kShapeCount];
}

uint32_t staticShapesFingerprint() {
    static const uint32_t fingerprint = fingerprintOf(kStaticShapeTable, kShapeCount);
    return fingerprint;
}

uint32_t shapeTableFingerprint(uint32_t shapes) {
    return fingerprintOf(kStaticShapeTable, shapes < kShapeCount ? shapes : kShapeCount);
}

uint32_t staticShapeCountFor(uint32_t fingerprint) {
    if (fingerprint == staticShapesFingerprint()) return kShapeCount;
    constexpr size_t kEarlierTables = std::size(kEarlierTableShapes);
    static const std::array<uint32_t, kEarlierTables> earlier = [] {
        std::array<uint32_t, kEarlierTables> fingerprints{};
        for (size_t table = 0; table < kEarlierTables; ++table)
            fingerprints[table] = fingerprintOf(kStaticShapeTable, kEarlierTableShapes[table]);
        return fingerprints;
    }();
    for (size_t table = 0; table < kEarlierTables; ++table)
        if (fingerprint == earlier[table]) return kEarlierTableShapes[table];
    return 0;
}

std::vector<uint32_t> earlierShapeTables() {
    return std::vector<uint32_t>(std::begin(kEarlierTableShapes), std::end(kEarlierTableShapes));
}

}  // namespace hdtrace::compact
