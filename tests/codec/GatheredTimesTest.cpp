// Frames with their times gathered (GatheredTimes.hpp): every frame the
// encoder codes gathers smaller and scatters back byte for byte, and a
// frame may gather larger by at most an eighth; the decoder reads a
// gathered frame in place to the same elements as the frame itself;
// records the gathering does not know stay as they are; and damaged
// gathered frames are refused at the byte where they are wrong.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>

#include "MemoryFrames.hpp"
#include "SampleRecords.hpp"

namespace hdtrace {
namespace {

using compact::GatheredTimesProblem;
using compact::kGatheredTrailerBytes;
using compact::TimeGathering;
using test::DecodedLines;
using test::MemorySink;

using Bytes = std::vector<unsigned char>;

class GatheredTimes : public ::testing::Test, public test::SampleRecords {
  protected:
    // Frames of calls with nested calls and C API states; their expected
    // lines in expected_.
    std::vector<Bytes> sampleFrames(int records) {
        MemorySink sink(4096);
        int error = 0;
        const auto encoder = CompactEncoder::create(sink, 1700000000, 0, &error);
        EXPECT_NE(encoder, nullptr) << error;
        if (!encoder) return {};
        for (int record = 0; record < records; ++record) {
            const int added = record % 4 == 3 ? userState(*encoder, expected_,
                                                          "phase-" + std::to_string(record % 5))
                                              : writeAtWithPwrite(*encoder, expected_);
            EXPECT_EQ(added, 0);
        }
        std::vector<Bytes> frames;
        for (const Bytes &frame : sink.frames)
            if (!frame.empty()) frames.push_back(frame);
        return frames;
    }
    std::vector<std::string> expected_;
};

// The lines of one frame decoded as it is.
std::vector<std::string> decoded(const Bytes &records) {
    DecodedLines lines;
    CompactFrameDecoder decoder;
    decoder.decode(records.data(), records.size(), lines);
    return lines.lines;
}

// The lines of one gathered frame, its times read in place; or the problem.
std::vector<std::string> decodedGathered(const Bytes &gathered,
                                         std::optional<CompactRecordProblem> *problem = nullptr) {
    DecodedLines lines;
    CompactFrameDecoder decoder;
    try {
        decoder.decodeGatheredFrame(gathered.data(), gathered.size(), lines);
    } catch (const CompactRecordProblem &refused) {
        if (!problem) throw;
        *problem = refused;
    }
    return lines.lines;
}

// The problem scatter() finds in gathered, if any.
std::optional<GatheredTimesProblem> scatterProblem(const Bytes &gathered, size_t recordsSize) {
    TimeGathering gathering;
    Bytes records;
    try {
        gathering.scatter(gathered.data(), gathered.size(), records, recordsSize);
    } catch (const GatheredTimesProblem &problem) {
        return problem;
    }
    return std::nullopt;
}

// A gathered frame's parts, and the same put together again.
struct Parts {
    Bytes records, times;
};
Parts split(const Bytes &gathered) {
    size_t recordsBytes = 0;
    EXPECT_TRUE(compact::gatheredParts(gathered.data(), gathered.size(), &recordsBytes));
    const auto timesEnd = gathered.end() - static_cast<ptrdiff_t>(kGatheredTrailerBytes);
    return {Bytes(gathered.begin(), gathered.begin() + static_cast<ptrdiff_t>(recordsBytes)),
            Bytes(gathered.begin() + static_cast<ptrdiff_t>(recordsBytes), timesEnd)};
}
Bytes join(const Parts &parts) {
    Bytes gathered = parts.records;
    gathered.insert(gathered.end(), parts.times.begin(), parts.times.end());
    for (size_t byte = 0; byte < kGatheredTrailerBytes; ++byte)
        gathered.push_back(static_cast<unsigned char>(parts.records.size() >> (8 * byte)));
    return gathered;
}

TEST_F(GatheredTimes, EveryFrameGathersSmallerAndScattersBackByteForByte) {
    const std::vector<Bytes> frames = sampleFrames(4000);
    ASSERT_GT(frames.size(), 30u);
    TimeGathering gathering, scattering;  // one of each for all frames, as a writer and a reader
    std::vector<std::string> lines;
    for (size_t index = 0; index < frames.size(); ++index) {
        const Bytes &frame = frames[index];
        Bytes gathered, records;
        ASSERT_TRUE(gathering.gather(frame.data(), frame.size(), gathered)) << "frame " << index;
        EXPECT_LT(gathered.size(), frame.size());
        scattering.scatter(gathered.data(), gathered.size(), records, frame.size());
        ASSERT_EQ(records, frame) << "frame " << index;
        const std::vector<std::string> inPlace = decodedGathered(gathered);
        ASSERT_EQ(inPlace, decoded(frame)) << "frame " << index;
        lines.insert(lines.end(), inPlace.begin(), inPlace.end());
    }
    EXPECT_EQ(lines, expected_);
}

TEST_F(GatheredTimes, RecordsItDoesNotKnowStayAsTheyAre) {
    const Bytes frame = sampleFrames(200).front();
    TimeGathering gathering;
    Bytes gathered;
    // Not records at all.
    const Bytes text = {'n', 'o', 't', ' ', 'r', 'e', 'c', 'o', 'r', 'd', 's'};
    EXPECT_FALSE(gathering.gather(text.data(), text.size(), gathered));
    // Records of an earlier version: the frame's version is its second byte.
    ASSERT_EQ(frame[0], compact::kProgram);
    ASSERT_EQ(frame[1], compact::kRecordsVersion);
    Bytes older = frame;
    older[1] = 2;
    EXPECT_FALSE(gathering.gather(older.data(), older.size(), gathered));
    // Cut inside a record.
    EXPECT_FALSE(gathering.gather(frame.data(), frame.size() - 1, gathered));
    // A time not in its shortest form would not come back byte for byte:
    // a hand-made frame of one C API state whose start is 0 written in two bytes.
    Bytes padded = {compact::kProgram, compact::kRecordsVersion};
    unsigned char bytes[compact::kMaxVarintBytes];
    const uint32_t fingerprint = compact::staticShapesFingerprint();
    padded.insert(padded.end(), bytes, compact::putVarint(bytes, fingerprint));
    padded.push_back(0);  // timeAdjustment
    for (const char *name : {"State", "time", "end"}) {
        padded.push_back(compact::kString);
        padded.push_back(static_cast<unsigned char>(std::string(name).size()));
        padded.insert(padded.end(), name, name + std::string(name).size());
    }
    for (const int byte :
         {int{compact::kShape}, 0, 2, 1, int{compact::kTime}, 2, int{compact::kEnd}})
        padded.push_back(static_cast<unsigned char>(byte));
    const uint64_t element = compact::kFirstElementCode + 2 * uint64_t{compact::staticShapeCount()};
    padded.insert(padded.end(), bytes, compact::putVarint(bytes, element));
    const Bytes shortest = [&] {
        Bytes records = padded;
        records.push_back(0);   // time: 0
        records.push_back(10);  // end: 5 after it
        return records;
    }();
    EXPECT_EQ(decoded(shortest).size(), 2u);  // the frame is good
    Bytes longer = padded;
    longer.push_back(0x80);
    longer.push_back(0x00);
    longer.push_back(10);
    EXPECT_EQ(decoded(longer), decoded(shortest));
    EXPECT_FALSE(gathering.gather(longer.data(), longer.size(), gathered));
    // Times whose changes take far more bytes than they do: each start
    // alternates between 63 before the previous end and 63 after it, one
    // byte as it is and two as a change; three bytes a record gather to four.
    Bytes jittery = padded;
    for (int record = 0; record < 64; ++record) {
        if (record > 0) jittery.insert(jittery.end(), bytes, compact::putVarint(bytes, element));
        jittery.push_back(record % 2 == 0 ? 125 : 126);  // -63, +63
        jittery.push_back(10);
    }
    EXPECT_EQ(decoded(jittery).size(), 2u * 64);  // the frame is good
    EXPECT_FALSE(gathering.gather(jittery.data(), jittery.size(), gathered));
}

TEST_F(GatheredTimes, AFrameMayGatherLargerByAtMostAnEighth) {
    const Bytes frame = sampleFrames(300).front();
    TimeGathering gathering;
    Bytes gathered;
    ASSERT_TRUE(gathering.gather(frame.data(), frame.size(), gathered));
    EXPECT_LT(gathered.size(), frame.size());  // the sample records gather smaller
    // Every prefix of it that ends on a record is a frame. The short ones
    // (the Program and the frame's tables, then a call or two) have few
    // times, so their trailer makes them gather larger: within the bound,
    // and back byte for byte.
    bool sawLarger = false;
    for (size_t end = 1; end <= frame.size(); ++end) {
        Bytes prefix(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(end));
        if (!gathering.gather(prefix.data(), prefix.size(), gathered)) continue;
        EXPECT_LE(gathered.size(), compact::maxGatheredBytes(prefix.size()));
        Bytes back;
        gathering.scatter(gathered.data(), gathered.size(), back, prefix.size());
        EXPECT_EQ(back, prefix) << "the first " << end << " bytes";
        if (gathered.size() >= prefix.size()) sawLarger = true;
    }
    EXPECT_TRUE(sawLarger);
}

TEST_F(GatheredTimes, DamagedGatheredFramesAreRefusedWhereTheyAre) {
    const Bytes frame = sampleFrames(300).front();
    TimeGathering gathering;
    Bytes gathered;
    ASSERT_TRUE(gathering.gather(frame.data(), frame.size(), gathered));
    const Parts parts = split(gathered);
    ASSERT_GT(parts.times.size(), 2u);

    // The last time missing: both ways stop at the end of the times.
    size_t lastTime = 0;
    for (const unsigned char *at = parts.times.data(), *end = at + parts.times.size(); at != end;) {
        lastTime = static_cast<size_t>(at - parts.times.data());
        uint64_t value;
        ASSERT_TRUE(compact::getVarint(&at, end, &value));
    }
    Parts cut = parts;
    cut.times.resize(lastTime);
    const Bytes cutFrame = join(cut);
    const size_t timesEnd = cut.records.size() + cut.times.size();
    const std::optional<GatheredTimesProblem> scattered = scatterProblem(cutFrame, frame.size());
    ASSERT_TRUE(scattered);
    EXPECT_EQ(scattered->position, timesEnd);
    std::optional<CompactRecordProblem> inPlace;
    decodedGathered(cutFrame, &inPlace);
    ASSERT_TRUE(inPlace);
    EXPECT_EQ(inPlace->position, timesEnd);
    EXPECT_NE(inPlace->problem.find("gathered times end"), std::string::npos) << inPlace->problem;

    // A time too many: refused after the records' last one.
    Parts extra = parts;
    extra.times.push_back(4);
    const Bytes extraFrame = join(extra);
    const size_t lastTimeEnd = parts.records.size() + parts.times.size();
    const std::optional<GatheredTimesProblem> leftOver = scatterProblem(extraFrame, frame.size());
    ASSERT_TRUE(leftOver);
    EXPECT_EQ(leftOver->position, lastTimeEnd);
    EXPECT_NE(leftOver->problem.find("left over"), std::string::npos) << leftOver->problem;
    decodedGathered(extraFrame, &inPlace);
    ASSERT_TRUE(inPlace);
    EXPECT_EQ(inPlace->position, lastTimeEnd);
    EXPECT_NE(inPlace->problem.find("left over"), std::string::npos) << inPlace->problem;

    // A trailer that points past the frame, and a frame shorter than one.
    Bytes pastEnd = gathered;
    pastEnd[pastEnd.size() - 1] = 0x7f;
    size_t recordsBytes = 0;
    EXPECT_FALSE(compact::gatheredParts(pastEnd.data(), pastEnd.size(), &recordsBytes));
    const std::optional<GatheredTimesProblem> pointsPast = scatterProblem(pastEnd, frame.size());
    ASSERT_TRUE(pointsPast);
    EXPECT_EQ(pointsPast->position, pastEnd.size() - kGatheredTrailerBytes);
    EXPECT_TRUE(scatterProblem(Bytes{1, 2}, frame.size()));
    inPlace.reset();
    decodedGathered(pastEnd, &inPlace);
    ASSERT_TRUE(inPlace);
    EXPECT_EQ(inPlace->position, pastEnd.size() - kGatheredTrailerBytes);
    EXPECT_NE(inPlace->problem.find("trailer"), std::string::npos) << inPlace->problem;
    inPlace.reset();
    decodedGathered(Bytes{1, 2}, &inPlace);
    ASSERT_TRUE(inPlace);
    EXPECT_EQ(inPlace->position, 0u);

    // Records that scatter to another size than the frame's header says.
    const std::optional<GatheredTimesProblem> shorter = scatterProblem(gathered, frame.size() + 1);
    ASSERT_TRUE(shorter);
    EXPECT_NE(shorter->problem.find("the frame's header says"), std::string::npos)
        << shorter->problem;
    const std::optional<GatheredTimesProblem> longer = scatterProblem(gathered, frame.size() - 1);
    ASSERT_TRUE(longer);
    EXPECT_NE(longer->problem.find("longer than the frame's decoded size"), std::string::npos)
        << longer->problem;
}

}  // namespace
}  // namespace hdtrace
