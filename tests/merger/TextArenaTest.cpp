// Texts kept in an arena read back as they were given, also once the arena
// has been cleared and its first block is used again, and for texts longer
// than a block.
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "TextArena.hpp"

namespace hdtrace::merger::testing {
namespace {

std::string textOf(int round, int i) {
    // Lengths from 0 up, so that texts end anywhere in a block.
    return "round " + std::to_string(round) + " text " + std::to_string(i) + " " +
           std::string(static_cast<size_t>(i % 97), static_cast<char>('a' + i % 26));
}

TEST(TextArena, TextsReadBackAfterEveryClear) {
    TextArena arena;
    for (int round = 0; round < 3; ++round) {
        std::vector<std::string> given;
        std::vector<std::string_view> kept;
        // Enough to need several blocks of 64 KiB, and one text larger
        // than a block.
        for (int i = 0; i < 3000; ++i) {
            given.push_back(i == 1500 ? std::string(200000, 'L') + std::to_string(round)
                                      : textOf(round, i));
            kept.push_back(arena.keep(given.back()));
        }
        kept.push_back(arena.keep(""));
        given.emplace_back();
        for (size_t i = 0; i < given.size(); ++i) {
            ASSERT_EQ(kept[i], given[i]) << round << " " << i;
            ASSERT_NE(kept[i].data(), given[i].data());
        }
        arena.clear();
    }
}

}  // namespace
}  // namespace hdtrace::merger::testing
