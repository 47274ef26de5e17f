// Records for the codec's tests, coded by a CompactEncoder into memory
// frames, with the lines DecodedLines (MemoryFrames.hpp) must give for
// them: a File_write_at with the pwrite it made (the typed path, a static
// shape, a <Nested> block) and a state of the C API (the general path, a
// shape the frame defines, a text), at times that move by random amounts.
#pragma once

#include <errno.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/codec/CallPlans.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

namespace hdtrace::test {

// The line DecodedLines gives for a call's start with these values.
inline std::string callLine(const CallPlan &plan, const int64_t *values, int64_t start,
                            int64_t end) {
    const compact::StaticShape &shape = compact::staticShapes()[plan.shape];
    std::string line = "<" + std::string(shape.element);
    for (uint32_t index = 0; index < plan.own; ++index)
        line +=
            " " + std::string(plan.attributes[index].name) + "=" + std::to_string(values[index]);
    return line + " time=" + std::to_string(start) + " end=" + std::to_string(end);
}

class SampleRecords {
  public:
    // A File_write_at and the pwrite it made, through the typed path; the
    // expected lines are appended to expected.
    int writeAtWithPwrite(CompactEncoder &encoder, std::vector<std::string> &expected) {
        const CallPlan *writeAt = plans_.planOf("File_write_at", true);
        const CallPlan *pwrite = plans_.planOf("pwrite", true);
        EXPECT_NE(writeAt, nullptr);
        EXPECT_NE(pwrite, nullptr);
        if (!writeAt || !pwrite) return EINVAL;
        std::vector<int64_t> callValues(writeAt->own), nestedValues(pwrite->own);
        for (int64_t &value : callValues)
            value = static_cast<int64_t>(random_() % 100000);
        for (int64_t &value : nestedValues)
            value = static_cast<int64_t>(random_() % 100000);
        const int64_t start = clock_ += 100 + random_() % 900;
        const int64_t nestedStart = start + 10 + random_() % 50;
        const int64_t nestedEnd = nestedStart + 200 + random_() % 5000;
        const int64_t end = nestedEnd + 5 + random_() % 40;
        clock_ = end;
        return writeAtWithPwrite(encoder, expected, callValues, nestedValues,
                                 {start, nestedStart, nestedEnd, end});
    }

    // The call's start and end, and its pwrite's.
    struct WriteAtTimes {
        int64_t start, nestedStart, nestedEnd, end;
    };
    // The same with these values and times.
    int writeAtWithPwrite(CompactEncoder &encoder, std::vector<std::string> &expected,
                          const std::vector<int64_t> &callValues,
                          const std::vector<int64_t> &nestedValues, const WriteAtTimes &times) {
        const CallPlan *writeAt = plans_.planOf("File_write_at", true);
        const CallPlan *pwrite = plans_.planOf("pwrite", true);
        EXPECT_NE(writeAt, nullptr);
        EXPECT_NE(pwrite, nullptr);
        if (!writeAt || !pwrite || callValues.size() != writeAt->own ||
            nestedValues.size() != pwrite->own)
            return EINVAL;
        const int64_t nestedTimes[] = {times.nestedStart, times.nestedEnd};
        const CallPlan *nestedPlans[] = {pwrite};
        CompactEncoder::Nested nested;
        nested.plans = nestedPlans;
        nested.count = 1;
        nested.values = nestedValues.data();
        nested.times = nestedTimes;
        const int error = encoder.appendCall(*writeAt, callValues.data(), times.start, times.end,
                                             {}, nested, std::string_view());
        if (error == 0) {
            expected.push_back("<Nested");
            expected.push_back(
                callLine(*pwrite, nestedValues.data(), times.nestedStart, times.nestedEnd));
            expected.push_back("</pwrite");
            expected.push_back("</Nested");
            expected.push_back(callLine(*writeAt, callValues.data(), times.start, times.end));
            expected.push_back("</File_write_at");
        }
        return error;
    }

    // A state of the writer's C API, whose shape the frame defines, through
    // the general path.
    int userState(CompactEncoder &encoder, std::vector<std::string> &expected,
                  const std::string &phase) {
        TextBuffer items;
        const int64_t start = clock_ += 50 + random_() % 500;
        const int64_t end = clock_ += 1 + random_() % 3000;
        const auto step = static_cast<int64_t>(random_() % 1000) - 500;
        const size_t lengthAt =
            compact_items::beginElement(items, compact_items::kLeaf, "UserState");
        compact_items::putText(items, compact::kText, "phase", phase);
        compact_items::putNumber(items, compact::kInteger, "step", step);
        compact_items::putNumber(items, compact::kTime, "time", start);
        compact_items::putNumber(items, compact::kEnd, "end", end);
        compact_items::endElement(items, lengthAt);
        const int error = encoder.append(items.view(), start);
        if (error == 0) {
            expected.push_back("<UserState phase=" + phase + " step=" + std::to_string(step) +
                               " time=" + std::to_string(start) + " end=" + std::to_string(end));
            expected.push_back("</UserState");
        }
        return error;
    }

  protected:
    std::mt19937_64 random_{20261125};
    int64_t clock_ = 1000;
    CallPlanCache plans_;
};

}  // namespace hdtrace::test
