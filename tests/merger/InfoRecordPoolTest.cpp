// The pool of distinct Comm and Type lines as reading threads see it
// through their RecentRecords: every line gives the record kept for its
// text, whichever thread kept it and whatever else shares its slot.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "InfoRecordPool.hpp"

namespace hdtrace::merger::testing {
namespace {

std::string lineOf(int i) {
    return "Type id='" + std::to_string(i) + "' combiner='MPI_COMBINER_NAMED' name='T" +
           std::to_string(i) + "'";
}

TEST(InfoRecordPool, EveryLineFindsItsOwnRecordThroughAnyThreadsTable) {
    InfoRecordPool pool;
    RecentRecords<TypeRecord> first(pool.types);
    RecentRecords<TypeRecord> second(pool.types);
    // Far more lines than a table has slots: most slots are shared.
    constexpr int kLines = 20000;
    std::vector<std::string> texts;
    for (int i = 0; i < kLines; ++i)
        texts.push_back(lineOf(i));
    std::vector<const TypeRecord *> kept(kLines);
    for (int i = 0; i < kLines; ++i) {
        const HashedText line(texts[i]);
        ASSERT_EQ(first.find(line), nullptr) << i;
        TypeRecord record;
        record.id = i;
        kept[i] = &first.add(line, std::move(record));
        EXPECT_EQ(kept[i]->id, i);
        EXPECT_EQ(kept[i]->ordinal, static_cast<uint32_t>(i));
    }
    EXPECT_EQ(pool.types.size(), size_t(kLines));
    // Found again, in another order, from a copy of the text: by both
    // threads' tables, the one that kept the lines and one that never saw them.
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = kLines - 1; i >= 0; --i) {
            const std::string copy = lineOf(i);
            const HashedText line(copy);
            EXPECT_EQ(first.find(line), kept[i]) << i;
            EXPECT_EQ(second.find(line), kept[i]) << i;
        }
    }
    // A line the other thread adds again keeps the first record and ordinal.
    TypeRecord again;
    again.id = -1;
    const std::string copy = lineOf(7);
    EXPECT_EQ(&second.add(HashedText(copy), std::move(again)), kept[7]);
    EXPECT_EQ(kept[7]->id, 7);
    EXPECT_EQ(pool.types.size(), size_t(kLines));
    // A text that differs from a kept one only in its last byte is not it.
    std::string near = texts[3];
    near.back() = '!';
    EXPECT_EQ(first.find(HashedText(near)), nullptr);
}

}  // namespace
}  // namespace hdtrace::merger::testing
