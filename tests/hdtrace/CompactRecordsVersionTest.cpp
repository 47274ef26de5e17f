// The previous time of the records, by version: hand-made records of the
// same bytes decode to different times under version 1 (only a time moves
// the previous time) and version 2 (an end moves it too), and a version
// the reader does not know is refused with its number.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/CompactFormat.hpp>

#include "CompactRecords.hpp"

namespace hdtrace::reader {
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

// A frame of records version `version`: one dynamic shape <Call time end>
// and two calls coded with the time deltas 100, 50, 200, 30.
std::vector<unsigned char> twoCalls(uint64_t version) {
    std::vector<unsigned char> out;
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
    const uint64_t element = kFirstElementCode + 2 * uint64_t{staticShapeCount()};
    for (const auto &[time, end] : {std::pair<int64_t, int64_t>{100, 50}, {200, 30}}) {
        varint(out, element);
        signedVarint(out, time);
        signedVarint(out, end);
    }
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

TEST(CompactRecordsVersion, VersionOneTimesFollowThePreviousTime) {
    EXPECT_EQ(decodeTimes(twoCalls(1)), (std::vector<int64_t>{100, 150, 300, 330}));
}

TEST(CompactRecordsVersion, VersionTwoTimesFollowThePreviousEnd) {
    EXPECT_EQ(kRecordsVersion, 2u);
    EXPECT_EQ(decodeTimes(twoCalls(2)), (std::vector<int64_t>{100, 150, 350, 380}));
}

TEST(CompactRecordsVersion, AnUnknownVersionIsRefusedByNumber) {
    for (const uint64_t version : {uint64_t{0}, uint64_t{kRecordsVersion} + 1}) {
        const std::vector<unsigned char> records = twoCalls(version);
        CompactFrameDecoder decoder;
        Times times;
        try {
            decoder.decode(records.data(), records.size(), times);
            ADD_FAILURE() << "version " << version << " was read";
        } catch (const CompactRecordProblem &problem) {
            EXPECT_EQ(problem.position, 1u);
            EXPECT_NE(problem.problem.find("records of version " + std::to_string(version)),
                      std::string::npos)
                << problem.problem;
        }
        EXPECT_TRUE(times.seen.empty());
    }
}

}  // namespace
}  // namespace hdtrace::reader
