// HandleTable (mpiwrapper/src/HandleTable.hpp) against std::unordered_map:
// random inserts and erases over handles shaped like Open MPI's (pointers,
// aligned) and MPICH's (integers differing in their low bits), with every
// handle looked up after each step, through growth and backward shifts.
#include <cstdint>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "HandleTable.hpp"

namespace {

using Value = std::shared_ptr<int>;

template <typename Handle>
void compareWithUnorderedMap(const std::vector<Handle> &handles, unsigned seed, int steps) {
    hdtracempi::HandleTable<Handle, Value> table;
    std::unordered_map<Handle, int> expected;
    std::mt19937 random(seed);
    std::uniform_int_distribution<size_t> pick(0, handles.size() - 1);
    for (int step = 0; step < steps; ++step) {
        const Handle handle = handles[pick(random)];
        Value *found = table.find(handle);
        ASSERT_EQ(found != nullptr, expected.count(handle) == 1) << "step " << step;
        if (found) {
            ASSERT_EQ(**found, expected[handle]);
            // Erase more often than insert in the second half: the table
            // fills, then empties through backward shifts.
            if (step > steps / 2 || random() % 3 == 0) {
                Value removed = table.erase(found);
                ASSERT_TRUE(removed);
                ASSERT_EQ(*removed, expected[handle]);
                expected.erase(handle);
            }
        } else if (step < steps / 2 || random() % 3 == 0) {
            table.insert(handle, std::make_shared<int>(step));
            expected[handle] = step;
        }
        ASSERT_EQ(table.size(), expected.size());
        if (step % 97 == 0 || step > steps - 200) {
            for (Handle other : handles) {
                Value *entry = table.find(other);
                ASSERT_EQ(entry != nullptr, expected.count(other) == 1) << "step " << step;
                if (entry) {
                    ASSERT_EQ(**entry, expected[other]);
                }
            }
        }
    }
}

TEST(HandleTable, PointerHandles) {
    // 64-byte aligned addresses, 2,000 of them: the table grows past its
    // initial 64 slots many times.
    std::vector<const void *> handles;
    for (uintptr_t i = 0; i < 2000; ++i)
        handles.push_back(reinterpret_cast<const void *>(0x7f0000001000 + 64 * i));
    for (unsigned seed = 1; seed <= 3; ++seed)
        compareWithUnorderedMap(handles, seed, 40000);
}

TEST(HandleTable, IntegerHandles) {
    // MPICH-like: a kind in the top bits, an index in the low ones.
    std::vector<int> handles;
    for (int i = 0; i < 300; ++i)
        handles.push_back(static_cast<int>(0x8c000000u + static_cast<unsigned>(i)));
    for (unsigned seed = 1; seed <= 3; ++seed)
        compareWithUnorderedMap(handles, seed, 20000);
}

TEST(HandleTable, FewHandlesReusedManyTimes) {
    // What parallel HDF5 does: a dozen handles made and freed over and over.
    std::vector<int> handles;
    for (int i = 0; i < 12; ++i)
        handles.push_back(0x8c000000 + i);
    compareWithUnorderedMap(handles, 7, 50000);
}

}  // namespace
