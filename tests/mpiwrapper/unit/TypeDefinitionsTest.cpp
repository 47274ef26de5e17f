// TypeDefinitions (mpiwrapper/src/TypeDefinitions.hpp): the ids and lines
// of datatype definitions seen before, in a bounded table, and the keys of
// definitions.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "TypeDefinitions.hpp"

namespace {

// The key of an HINDEXED type of one block at n * 64 KiB of type 16777217.
std::string keyNumber(int n) {
    const std::string arguments = "1;1;' addresses='" + std::to_string(int64_t{65536} * n) + ";";
    const int64_t typeIds[] = {16777217};
    std::string buffer;
    return std::string(hdtracempi::definitionKey(buffer, 3, "", arguments, typeIds, 1));
}

std::string lineNumber(int n) {
    return "Type id='" + std::to_string(16777216 + n) + "' ...\n";
}

// Keys written one after another into one buffer, as the registry writes
// them: a key after a longer one must not keep any of the longer one's bytes.
std::string key(int combiner, std::string_view name, std::string_view arguments,
                const int64_t *typeIds, size_t typeCount) {
    static std::string buffer;
    return std::string(
        hdtracempi::definitionKey(buffer, combiner, name, arguments, typeIds, typeCount));
}

TEST(TypeDefinitions, KeysTellEveryPartApart) {
    const int64_t one[] = {1}, two[] = {2}, both[] = {1, 2};
    std::vector<std::string> keys(9);
    keys[0] = key(3, "", "1;1;' addresses='0;", one, 1);
    keys[1] = key(4, "", "1;1;' addresses='0;", one, 1);   // combiner
    keys[2] = key(3, "v", "1;1;' addresses='0;", one, 1);  // name
    keys[3] = key(3, "", "1;1;' addresses='8;", one, 1);   // an address
    keys[4] = key(3, "", "1;1;' addresses='0;", two, 1);   // a child
    keys[5] = key(3, "", "1;1;' addresses='0;", both, 2);
    // Where the name ends and the arguments begin.
    keys[6] = key(3, "ab", "c", nullptr, 0);
    keys[7] = key(3, "a", "bc", nullptr, 0);
    keys[8] = key(3, "", "1;1;' addresses='0;", one, 1);
    for (size_t i = 0; i < 8; ++i)
        for (size_t j = i + 1; j < 8; ++j)
            EXPECT_NE(keys[i], keys[j]) << "keys " << i << " and " << j;
    EXPECT_EQ(keys[0], keys[8]);
    // The same key in a buffer of its own.
    std::string fresh;
    EXPECT_EQ(keys[6], std::string(hdtracempi::definitionKey(fresh, 3, "ab", "c", nullptr, 0)));
}

TEST(TypeDefinitions, PackedArgumentsComeBackAndTellIntegersFromAddresses) {
    const int64_t integers[] = {3, -1, INT64_MAX, INT64_MIN}, addresses[] = {0, 524288};
    std::string packed;
    hdtracempi::packTypeArguments(packed, integers, 4, addresses, 2);
    std::vector<int64_t> integersBack, addressesBack;
    hdtracempi::unpackTypeArguments(packed, integersBack, addressesBack);
    EXPECT_EQ(integersBack, std::vector<int64_t>(integers, integers + 4));
    EXPECT_EQ(addressesBack, std::vector<int64_t>(addresses, addresses + 2));
    // The same values split otherwise between the two arrays.
    const int64_t all[] = {3, -1, INT64_MAX, INT64_MIN, 0, 524288};
    std::string shifted;
    hdtracempi::packTypeArguments(shifted, all, 5, all + 5, 1);
    EXPECT_NE(packed, shifted);
    // None at all, and the memory of a longer packing reused.
    hdtracempi::packTypeArguments(packed, nullptr, 0, nullptr, 0);
    hdtracempi::unpackTypeArguments(packed, integersBack, addressesBack);
    EXPECT_TRUE(integersBack.empty());
    EXPECT_TRUE(addressesBack.empty());
}

TEST(TypeDefinitions, AKnownDefinitionGivesItsIdAndLineAndNoOtherDoes) {
    hdtracempi::TypeDefinitions definitions;
    EXPECT_EQ(definitions.find(keyNumber(0)).id, -1);
    definitions.remember(keyNumber(0), 16777216, lineNumber(0), 24);
    definitions.remember(keyNumber(1), 16777218, lineNumber(2), 0);
    const hdtracempi::TypeDefinitions::Known first = definitions.find(keyNumber(0));
    ASSERT_EQ(first.id, 16777216);
    EXPECT_EQ(*first.line, lineNumber(0));
    EXPECT_EQ(first.size, 24);
    EXPECT_EQ(definitions.find(keyNumber(1)).id, 16777218);
    EXPECT_EQ(definitions.find(keyNumber(1)).size, 0);
    EXPECT_EQ(*definitions.find(keyNumber(1)).line, lineNumber(2));
    EXPECT_EQ(definitions.find(keyNumber(0) + " ").id, -1);
    EXPECT_EQ(definitions.find(keyNumber(0).substr(1)).id, -1);
    EXPECT_EQ(definitions.find(keyNumber(2)).id, -1);
}

TEST(TypeDefinitions, ManyDefinitionsAreRememberedWhileTheyFitAndTheTableStaysBounded) {
    hdtracempi::TypeDefinitions definitions;
    const int slots =
        static_cast<int>(hdtracempi::TypeDefinitions::kSets * hdtracempi::TypeDefinitions::kWays);
    // A quarter of the slots: one definition a set on average, so sets of
    // four keep nearly all (the few sets given five or more lose some).
    const int fitting = slots / 4;
    for (int n = 0; n < fitting; ++n)
        definitions.remember(keyNumber(n), 16777216 + n, lineNumber(n), n);
    int found = 0;
    for (int n = 0; n < fitting; ++n) {
        const hdtracempi::TypeDefinitions::Known known = definitions.find(keyNumber(n));
        if (known.id >= 0) {
            ASSERT_EQ(known.id, 16777216 + n) << "definition " << n << " has another's id";
            ASSERT_EQ(*known.line, lineNumber(n));
            ASSERT_EQ(known.size, n);
            ++found;
        }
    }
    EXPECT_GE(found, fitting * 95 / 100);
    // Ten times the slots: the table holds at most its slots, each with the
    // id it was given, and the definition met last is there.
    const int many = 10 * slots;
    for (int n = fitting; n < fitting + many; ++n)
        definitions.remember(keyNumber(n), 16777216 + n, lineNumber(n), n);
    int kept = 0;
    for (int n = 0; n < fitting + many; ++n) {
        const int64_t id = definitions.find(keyNumber(n)).id;
        if (id >= 0) {
            ASSERT_EQ(id, 16777216 + n) << "definition " << n << " has another's id";
            ++kept;
        }
    }
    EXPECT_LE(kept, slots);
    EXPECT_EQ(definitions.find(keyNumber(fitting + many - 1)).id, 16777216 + fitting + many - 1);
}

TEST(TypeDefinitions, DisplacementsOfWholeBlocksSpreadOverTheSets) {
    // Keys as a program like parallel HDF5 makes them: one hindexed block
    // per transfer, at a multiple of 64 KiB (binary values whose low bits
    // are all zero). One definition a set on average keeps nearly all.
    hdtracempi::TypeDefinitions definitions;
    const int count = static_cast<int>(hdtracempi::TypeDefinitions::kSets);
    const int64_t inputId[] = {16777216};
    std::vector<std::string> keys(static_cast<size_t>(count));
    std::string packed;
    for (int n = 0; n < count; ++n) {
        const int64_t integers[] = {1, 1};
        const int64_t displacement[] = {int64_t{65536} * n + 2048};
        hdtracempi::packTypeArguments(packed, integers, 2, displacement, 1);
        std::string buffer;
        keys[static_cast<size_t>(n)] =
            std::string(hdtracempi::definitionKey(buffer, 8, "", packed, inputId, 1));
        definitions.remember(keys[static_cast<size_t>(n)], 16777216 + n, "line", 65536);
    }
    int kept = 0;
    for (int n = 0; n < count; ++n)
        if (definitions.find(keys[static_cast<size_t>(n)]).id == 16777216 + n) ++kept;
    EXPECT_GE(kept, count * 97 / 100);
}

TEST(TypeDefinitions, TheDefinitionsUsedLastStayWhenTheirSetIsFull) {
    hdtracempi::TypeDefinitions definitions;
    // Definitions of one set, found by trying.
    const size_t kWays = hdtracempi::TypeDefinitions::kWays;
    const size_t set = hdtracempi::TypeDefinitions::setOf(keyNumber(0));
    std::vector<std::string> sameSet;
    for (int n = 0; sameSet.size() < kWays + 2; ++n) {
        const std::string key = keyNumber(n);
        if (hdtracempi::TypeDefinitions::setOf(key) == set) sameSet.push_back(key);
    }
    for (size_t i = 0; i < kWays; ++i)
        definitions.remember(sameSet[i], static_cast<int64_t>(i), "line", 1);
    // Used in turn, a full set's definitions all stay found.
    for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < kWays; ++i)
            EXPECT_EQ(definitions.find(sameSet[i]).id, static_cast<int64_t>(i));
    EXPECT_EQ(definitions.find(sameSet[0]).id, 0);        // the first is used last now
    definitions.remember(sameSet[kWays], 10, "line", 1);  // in place of the second
    EXPECT_EQ(definitions.find(sameSet[1]).id, -1);
    EXPECT_EQ(definitions.find(sameSet[0]).id, 0);
    EXPECT_EQ(definitions.find(sameSet[kWays]).id, 10);
    for (size_t i = 2; i < kWays; ++i)
        EXPECT_EQ(definitions.find(sameSet[i]).id, static_cast<int64_t>(i));
    definitions.remember(sameSet[kWays + 1], 11, "line", 1);  // in place of the first
    EXPECT_EQ(definitions.find(sameSet[0]).id, -1);
    EXPECT_EQ(definitions.find(sameSet[kWays + 1]).id, 11);
}

}  // namespace
