// The previous time of the records, by version: hand-made records of the
// same bytes decode to different times under version 1 (only a time moves
// the previous time) and version 2 (an end moves it too); a call with a
// <Nested> block decodes to the same times from its version 2 coding and
// its version 3 coding (the block gives its owner's start, and the owner's
// end follows the block's last end); and a version the reader does not
// know is refused with its number.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/codec/CompactFormat.hpp>

namespace hdtrace {
namespace {

using namespace compact;

void varint(std::vector<unsigned char> &out, uint64_t value) {
    unsigned char bytes[kMaxVarintBytes];
    const unsigned char *end = compact::putVarint(bytes, value);
    out.insert(out.end(), static_cast<const unsigned char *>(bytes), end);
}
void signedVarint(std::vector<unsigned char> &out, int64_t value) {
    varint(out, zigzag(value));
}
void defineString(std::vector<unsigned char> &out, std::string_view text) {
    varint(out, kString);
    varint(out, text.size());
    out.insert(out.end(), text.begin(), text.end());
}

// The start of a frame of records version `version` with one dynamic
// shape, <Call time end>; returns the code of its elements.
uint64_t beginFrame(std::vector<unsigned char> &out, uint64_t version) {
    varint(out, kProgram);
    varint(out, version);
    varint(out, staticShapesFingerprint());
    signedVarint(out, 7);
    defineString(out, "Call");  // string 0
    defineString(out, "time");  // string 1
    defineString(out, "end");   // string 2
    varint(out, kShape);
    varint(out, 0);
    varint(out, 2);
    varint(out, 1);
    out.push_back(kTime);
    varint(out, 2);
    out.push_back(kEnd);
    return kFirstElementCode + 2 * uint64_t{staticShapeCount()};
}

// Two calls coded with the time deltas 100, 50, 200, 30.
std::vector<unsigned char> twoCalls(uint64_t version) {
    std::vector<unsigned char> out;
    const uint64_t element = beginFrame(out, version);
    for (const auto &[time, end] : {std::pair<int64_t, int64_t>{100, 50}, {200, 30}}) {
        varint(out, element);
        signedVarint(out, time);
        signedVarint(out, end);
    }
    return out;
}

// A call from 1000 to 1180 with one from 1100 to 1150 nested in it, then a
// call from 1200 to 1210, as version `version` codes them.
std::vector<unsigned char> nestedCall(uint64_t version) {
    std::vector<unsigned char> out;
    const uint64_t element = beginFrame(out, version);
    varint(out, kNestedOpen);
    if (version >= 3) signedVarint(out, 1000);  // the owner's start
    varint(out, element);
    signedVarint(out, version >= 3 ? 100 : 1100);  // from the owner's start, or from 0
    signedVarint(out, 50);
    varint(out, kNestedClose);
    varint(out, element);
    signedVarint(out, version >= 3 ? 0 : -150);  // from the block's start, or from its end
    signedVarint(out, version >= 3 ? 30 : 180);  // from the block's end, or from the time
    varint(out, element);
    signedVarint(out, 20);
    signedVarint(out, 10);
    return out;
}

struct Times final : CompactHandler {
    std::vector<int64_t> seen;  // time, end of each element
    void startElement(std::string_view, const CompactAttributes &attributes) override {
        for (int index = 0; index < attributes.size(); ++index)
            seen.push_back(attributes.slot(index).number);
    }
    void endElement(std::string_view) override {}
};

std::vector<int64_t> decodeTimes(const std::vector<unsigned char> &records) {
    CompactFrameDecoder decoder;
    Times times;
    decoder.decode(records.data(), records.size(), times);
    EXPECT_EQ(decoder.timeAdjustmentSeconds(), 7);
    return times.seen;
}

// The problem the decoder reports for records it must refuse; none when it
// reads them.
std::optional<CompactRecordProblem> refusal(const std::vector<unsigned char> &records,
                                            Times &times) {
    CompactFrameDecoder decoder;
    try {
        decoder.decode(records.data(), records.size(), times);
    } catch (const CompactRecordProblem &problem) {
        return problem;
    }
    return std::nullopt;
}

TEST(CompactRecordsVersion, VersionOneTimesFollowThePreviousTime) {
    EXPECT_EQ(decodeTimes(twoCalls(1)), (std::vector<int64_t>{100, 150, 300, 330}));
}

TEST(CompactRecordsVersion, VersionTwoTimesFollowThePreviousEnd) {
    EXPECT_EQ(decodeTimes(twoCalls(2)), (std::vector<int64_t>{100, 150, 350, 380}));
}

TEST(CompactRecordsVersion, VersionThreeBlocksGiveTheirOwnersStart) {
    EXPECT_EQ(kRecordsVersion, 3u);
    const std::vector<int64_t> times{1100, 1150, 1000, 1180, 1200, 1210};
    EXPECT_EQ(decodeTimes(nestedCall(2)), times);
    EXPECT_EQ(decodeTimes(nestedCall(3)), times);
    // Without nested blocks, version 3 codes as version 2.
    EXPECT_EQ(decodeTimes(twoCalls(3)), decodeTimes(twoCalls(2)));
}

TEST(CompactRecordsVersion, ABlockCutInsideItsStartIsRefusedWhereItIs) {
    std::vector<unsigned char> records = nestedCall(3);
    std::vector<unsigned char> frameStart;
    beginFrame(frameStart, 3);
    ASSERT_EQ(records[frameStart.size()], kNestedOpen);
    const size_t startAt = frameStart.size() + 1;
    // The start, 1000, is a two-byte varint: keep its first byte only.
    records.resize(startAt + 1);
    Times times;
    const std::optional<CompactRecordProblem> problem = refusal(records, times);
    ASSERT_TRUE(problem) << "a cut block start was read";
    EXPECT_EQ(problem->position, startAt);
    EXPECT_EQ(problem->problem, "a <Nested> block's start is cut or longer than 64 bits");
}

TEST(CompactRecordsVersion, AnUnknownVersionIsRefusedByNumber) {
    for (const uint64_t version : {uint64_t{0}, uint64_t{kRecordsVersion} + 1}) {
        Times times;
        const std::optional<CompactRecordProblem> problem = refusal(twoCalls(version), times);
        EXPECT_TRUE(problem) << "version " << version << " was read";
        if (problem) {
            EXPECT_EQ(problem->position, 1u);
            EXPECT_NE(problem->problem.find("records of version " + std::to_string(version)),
                      std::string::npos)
                << problem->problem;
        }
        EXPECT_TRUE(times.seen.empty());
    }
}

}  // namespace
}  // namespace hdtrace
