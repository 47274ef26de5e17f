// The codec on its own: records coded into frames held in memory (no file,
// no writer thread) decode to the elements and values they were given,
// frame by frame, through both of the encoder's paths.
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

#include "MemoryFrames.hpp"
#include "SampleRecords.hpp"

namespace hdtrace {
namespace {

using test::callLine;
using test::decodeFrames;
using test::MemorySink;

// Every decoded line of sink's frames; a frame the decoder refuses fails
// the test.
std::vector<std::string> decodeAll(const MemorySink &sink,
                                   std::vector<int64_t> *adjustments = nullptr) {
    std::string problem;
    std::vector<std::string> lines = decodeFrames(sink, &problem, adjustments);
    EXPECT_EQ(problem, "");
    return lines;
}

class Codec : public ::testing::Test, public test::SampleRecords {};

TEST_F(Codec, RecordsInMemoryFramesDecodeToWhatWasGiven) {
    MemorySink sink(2048);
    int error = 0;
    const auto encoder = CompactEncoder::create(sink, 1700000000, 0, &error);
    ASSERT_NE(encoder, nullptr) << error;
    std::vector<std::string> expected;
    for (int record = 0; record < 3000; ++record) {
        if (record % 3 == 2)
            ASSERT_EQ(userState(*encoder, expected, "phase-" + std::to_string(record % 7)), 0);
        else
            ASSERT_EQ(writeAtWithPwrite(*encoder, expected), 0);
    }
    ASSERT_GT(sink.frames.size(), 20u);
    std::vector<int64_t> adjustments;
    const std::vector<std::string> decoded = decodeAll(sink, &adjustments);
    EXPECT_EQ(adjustments, std::vector<int64_t>(sink.frames.size(), 1700000000));
    ASSERT_EQ(decoded.size(), expected.size());
    for (size_t line = 0; line < expected.size(); ++line)
        ASSERT_EQ(decoded[line], expected[line]) << "line " << line;
}

TEST_F(Codec, EveryFrameDecodesOnItsOwn) {
    MemorySink sink(1024);
    int error = 0;
    const auto encoder = CompactEncoder::create(sink, 0, 0, &error);
    ASSERT_NE(encoder, nullptr) << error;
    std::vector<std::string> expected;
    for (int record = 0; record < 400; ++record)
        ASSERT_EQ(record % 2 ? writeAtWithPwrite(*encoder, expected)
                             : userState(*encoder, expected, "p" + std::to_string(record % 5)),
                  0);
    // Read from the last frame to the first: the lines of all, put back in
    // order, are the whole.
    std::vector<std::vector<std::string>> byFrame(sink.frames.size());
    for (size_t frame = sink.frames.size(); frame-- > 0;) {
        MemorySink alone(1024);
        alone.frames = {sink.frames[frame]};
        byFrame[frame] = decodeAll(alone);
        EXPECT_FALSE(byFrame[frame].empty()) << "frame " << frame;
    }
    std::vector<std::string> joined;
    for (const std::vector<std::string> &lines : byFrame)
        joined.insert(joined.end(), lines.begin(), lines.end());
    EXPECT_EQ(joined, expected);
}

TEST_F(Codec, ARecordLargerThanAFrameIsRefusedAndTheNextOnesStillDecode) {
    MemorySink sink(512);
    int error = 0;
    const auto encoder = CompactEncoder::create(sink, 0, 0, &error);
    ASSERT_NE(encoder, nullptr) << error;
    std::vector<std::string> expected;
    for (int record = 0; record < 6; ++record)
        ASSERT_EQ(writeAtWithPwrite(*encoder, expected), 0);
    ASSERT_EQ(userState(*encoder, expected, "early"), 0);
    // A state whose text alone exceeds a frame: refused, nothing kept.
    EXPECT_EQ(userState(*encoder, expected, std::string(600, 'x')), EMSGSIZE);
    // The states after it go on in the same frame.
    for (int record = 0; record < 3; ++record)
        ASSERT_EQ(writeAtWithPwrite(*encoder, expected), 0);
    ASSERT_EQ(userState(*encoder, expected, "late"), 0);
    EXPECT_EQ(decodeAll(sink), expected);
}

TEST_F(Codec, ARecordShorterFromFreshTablesStillOpensTheNextFrame) {
    // Calls whose values and times swing between far apart numbers: one
    // that does not fit the frame's room when coded against the previous
    // values may fit once coded afresh (from zero) for the next frame. It
    // must still open that frame. Frame sizes vary so that the room before
    // such a call takes every size.
    const CallPlan *writeAt = nullptr;
    for (uint32_t frameBytes = 256; frameBytes < 384; ++frameBytes) {
        SCOPED_TRACE("frames of " + std::to_string(frameBytes) + " bytes");
        MemorySink sink(frameBytes);
        int error = 0;
        const auto encoder = CompactEncoder::create(sink, 0, 0, &error);
        ASSERT_NE(encoder, nullptr) << error;
        writeAt = plans_.planOf("File_write_at", true);
        ASSERT_NE(writeAt, nullptr);
        std::vector<std::string> expected;
        for (int call = 0; call < 40; ++call) {
            const int64_t far = call % 3 == 0 ? int64_t{1} << 62 : 0;
            std::vector<int64_t> values(writeAt->own, far + call);
            const int64_t start = far + 10 * call, end = start + 5;
            ASSERT_EQ(encoder->appendCall(*writeAt, values.data(), start, end, {}, {},
                                          std::string_view()),
                      0);
            expected.push_back(callLine(*writeAt, values.data(), start, end));
            expected.push_back("</File_write_at");
        }
        ASSERT_EQ(decodeAll(sink), expected);
    }
}

// The same calls coded by appendCall and by appendLeafCall, each encoder
// into frames of its own.
struct EitherWay {
    explicit EitherWay(uint32_t frameBytes) : byAppendCall(frameBytes), byLeaf(frameBytes) {
        int error = 0;
        general = CompactEncoder::create(byAppendCall, 0, 0, &error);
        leaf = CompactEncoder::create(byLeaf, 0, 0, &error);
    }
    // The errors of both ways for one call: 0 and 0 when all is well.
    std::pair<int, int> append(const CallPlan &plan, const int64_t *values, int64_t start,
                               int64_t end, std::string_view texts = {}) {
        return {general->appendCall(plan, values, start, end, {}, {}, texts),
                leaf->appendLeafCall(plan, values, start, end, texts)};
    }
    MemorySink byAppendCall, byLeaf;
    std::unique_ptr<CompactEncoder> general, leaf;
};

TEST_F(Codec, ALeafCallCodesTheSameFramesByEitherWay) {
    // appendLeafCall is appendCall without children or nested states, by a
    // shorter way: the same records into the same frames, including where
    // a call opens a frame and where values swing far apart. Iprobe has ids
    // and field deltas; File_write_at integers as well.
    for (uint32_t frameBytes : {96u, 200u, 1024u}) {
        SCOPED_TRACE("frames of " + std::to_string(frameBytes) + " bytes");
        EitherWay both(frameBytes);
        ASSERT_NE(both.general, nullptr);
        ASSERT_NE(both.leaf, nullptr);
        std::vector<std::string> expected;
        for (int call = 0; call < 500; ++call) {
            const CallPlan *plan = plans_.planOf(call % 2 ? "Iprobe" : "File_write_at", true);
            ASSERT_NE(plan, nullptr);
            ASSERT_FALSE(plan->hasText);
            const int64_t far = call % 7 == 0 ? int64_t{1} << 61 : 0;
            std::vector<int64_t> values(plan->own);
            for (uint32_t index = 0; index < plan->own; ++index)
                values[index] = far + call * int64_t(index + 1) - 3;
            const int64_t start = far + 100 * call, end = start + call % 13;
            ASSERT_EQ(both.append(*plan, values.data(), start, end), std::make_pair(0, 0));
            expected.push_back(callLine(*plan, values.data(), start, end));
            expected.push_back("</" + std::string(compact::staticShapes()[plan->shape].element));
        }
        EXPECT_GT(both.byLeaf.frames.size(), 1u);
        EXPECT_EQ(both.byLeaf.frames, both.byAppendCall.frames);
        EXPECT_EQ(decodeAll(both.byLeaf), expected);
    }
}

TEST_F(Codec, ALeafCallWithTextsCodesTheSameFramesByEitherWay) {
    // H5Dwrite's transfer mode is a text: a text the frame lacks is
    // defined before the call, a repeated one is found again, and a frame
    // that starts defines its texts afresh.
    const char *const modes[] = {"independent", "collective", "independent", "<&'\">"};
    for (uint32_t frameBytes : {128u, 1024u}) {
        SCOPED_TRACE("frames of " + std::to_string(frameBytes) + " bytes");
        EitherWay both(frameBytes);
        ASSERT_NE(both.general, nullptr);
        ASSERT_NE(both.leaf, nullptr);
        const CallPlan *plan = plans_.planOf("H5Dwrite", true);
        ASSERT_NE(plan, nullptr);
        ASSERT_TRUE(plan->hasText);
        std::vector<std::string> expected;
        for (int call = 0; call < 300; ++call) {
            std::string texts;
            std::vector<int64_t> values(plan->own);
            std::string line = "<H5Dwrite";
            for (uint32_t index = 0; index < plan->own; ++index) {
                line += " " + std::string(plan->attributes[index].name) + "=";
                if (plan->attributes[index].coding == compact::kText) {
                    const std::string text =
                        (call / 7) % 5 == 4 ? "d" + std::to_string(call) : modes[(call / 3) % 4];
                    values[index] = typedTextHandle(texts.size(), text.size());
                    texts += text;
                    line += text;
                } else {
                    values[index] = call * 3 + index;
                    line += std::to_string(values[index]);
                }
            }
            const int64_t start = 50 * call, end = start + 7;
            ASSERT_EQ(both.append(*plan, values.data(), start, end, texts), std::make_pair(0, 0));
            expected.push_back(line + " time=" + std::to_string(start) +
                               " end=" + std::to_string(end));
            expected.push_back("</H5Dwrite");
        }
        EXPECT_GT(both.byLeaf.frames.size(), 1u);
        EXPECT_EQ(both.byLeaf.frames, both.byAppendCall.frames);
        EXPECT_EQ(decodeAll(both.byLeaf), expected);
    }
}

// Values for a plan's attributes, texts among them as handles into texts,
// and the line the decoder gives for the element.
std::string valuesFor(const CallPlan &plan, int64_t base, std::vector<int64_t> &values,
                      std::string &texts, int64_t start, int64_t end) {
    const char *const modes[] = {"independent", "collective", "<&'\">"};
    values.assign(plan.own, 0);
    std::string line = "<" + std::string(compact::staticShapes()[plan.shape].element);
    for (uint32_t index = 0; index < plan.own; ++index) {
        line += " " + std::string(plan.attributes[index].name) + "=";
        if (plan.attributes[index].coding == compact::kText) {
            const std::string text = modes[static_cast<uint64_t>(base) % 3];
            values[index] = typedTextHandle(texts.size(), text.size());
            texts += text;
            line += text;
        } else {
            values[index] = base + 7 * int64_t(index) - 3;
            line += std::to_string(values[index]);
        }
    }
    return line + " time=" + std::to_string(start) + " end=" + std::to_string(end);
}

// Calls with nested states coded by appendCall and by appendNestedCall,
// each encoder into frames of its own: the same frames, and the elements
// given. Each call nests one to three states; frames are small enough
// that calls open frames, and values and times swing far apart.
void expectNestedCallsByEitherWay(CallPlanCache &plans, const char *const parents[2],
                                  const char *const leaves[3]) {
    for (uint32_t frameBytes : {384u, 640u, 4096u}) {
        SCOPED_TRACE("frames of " + std::to_string(frameBytes) + " bytes");
        MemorySink byAppendCall(frameBytes), byNested(frameBytes);
        int error = 0;
        const auto general = CompactEncoder::create(byAppendCall, 0, 0, &error);
        const auto nestedWay = CompactEncoder::create(byNested, 0, 0, &error);
        ASSERT_NE(general, nullptr);
        ASSERT_NE(nestedWay, nullptr);
        std::vector<std::string> expected;
        for (int call = 0; call < 400; ++call) {
            const CallPlan *plan = plans.planOf(parents[call % 2], true);
            ASSERT_NE(plan, nullptr);
            // Now and then values and times as far apart as 64 bits go, each
            // coded in the most bytes a varint takes, which the claim must
            // hold.
            const int64_t far = call % 7 == 0 ? int64_t{1} << 61 : 0;
            const int64_t extreme = call % 10 == 4   ? std::numeric_limits<int64_t>::min() + 100
                                    : call % 10 == 9 ? std::numeric_limits<int64_t>::max() - 100
                                                     : far;
            // A value near extreme, room left for valuesFor's additions.
            const auto near = [extreme](int64_t offset) {
                return extreme > (int64_t{1} << 62) ? extreme - offset : extreme + offset;
            };
            const int64_t start = extreme == far ? far + 1000 * call : near(5000);
            const uint32_t count = 1 + call % 3;
            std::string texts;
            std::vector<const CallPlan *> nestedPlans;
            std::vector<int64_t> nestedValues, nestedTimes;
            std::vector<std::string> block = {"<Nested"};
            for (uint32_t state = 0; state < count; ++state) {
                const CallPlan *leaf = plans.planOf(leaves[(call + state) % 3], true);
                ASSERT_NE(leaf, nullptr);
                const int64_t leafStart = start + 10 + 100 * state + call % 11;
                const int64_t leafEnd = leafStart + 50 + call % 17;
                std::vector<int64_t> values;
                block.push_back(
                    valuesFor(*leaf, near(call + state), values, texts, leafStart, leafEnd));
                block.push_back("</" + std::string(compact::staticShapes()[leaf->shape].element));
                nestedPlans.push_back(leaf);
                nestedValues.insert(nestedValues.end(), values.begin(), values.end());
                nestedTimes.push_back(leafStart);
                nestedTimes.push_back(leafEnd);
            }
            block.push_back("</Nested");
            const int64_t end = start + 400 + call % 5;
            std::vector<int64_t> values;
            block.push_back(valuesFor(*plan, near(3 * call), values, texts, start, end));
            block.push_back("</" + std::string(compact::staticShapes()[plan->shape].element));
            CompactEncoder::Nested nested;
            nested.plans = nestedPlans.data();
            nested.count = count;
            nested.values = nestedValues.data();
            nested.times = nestedTimes.data();
            ASSERT_EQ(general->appendCall(*plan, values.data(), start, end, {}, nested, texts), 0);
            ASSERT_EQ(nestedWay->appendNestedCall(*plan, values.data(), start, end, nested, texts),
                      0);
            expected.insert(expected.end(), block.begin(), block.end());
        }
        EXPECT_GT(byNested.frames.size(), 1u);
        EXPECT_EQ(byNested.frames, byAppendCall.frames);
        EXPECT_EQ(decodeAll(byNested), expected);
    }
}

TEST_F(Codec, ANestedCallCodesTheSameFramesByEitherWay) {
    // The C library calls beneath MPI-IO calls: numbers only, which
    // appendNestedCall codes by its shorter way.
    const char *const parents[] = {"File_write_at", "File_read_at"};
    const char *const leaves[] = {"pwrite", "pread", "lseek"};
    expectNestedCallsByEitherWay(plans_, parents, leaves);
}

TEST_F(Codec, ANestedCallWithTextsCodesTheSameFramesByEitherWay) {
    // A text in the call or in a nested state (H5Dwrite's transfer mode)
    // sends appendNestedCall the general way: still the same frames.
    const char *const parents[] = {"H5Dwrite", "File_write_at"};
    const char *const leaves[] = {"pwrite", "H5Dwrite", "pwrite"};
    expectNestedCallsByEitherWay(plans_, parents, leaves);
}

}  // namespace
}  // namespace hdtrace
