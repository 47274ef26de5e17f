// The I/O calls of call trees: rows of several traces written into one set
// of columns, the bytes each layer's meaning gives, the file each open
// names, and the refusals of trees and tables that do not fit.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/IoCalls.hpp>

namespace hdtrace::reader {
namespace {

struct Row {
    int32_t name;
    int8_t depth;
    int64_t parent;
    int32_t fid = -1;
    int64_t offset = -1;
    int64_t size = -1;
    int64_t asked = -1;
    uint8_t failed = 0;
};

// names: 0 File_open, 1 File_write_at, 2 pwrite, 3 Bcast, 4 fsync
CallTree treeOf(const std::vector<Row> &rows) {
    CallTree tree;
    tree.names = {"File_open", "File_write_at", "pwrite", "Bcast", "fsync"};
    int64_t time = 100;
    for (const Row &row : rows) {
        tree.nameCode.push_back(row.name);
        tree.depth.push_back(row.depth);
        tree.parent.push_back(row.parent);
        tree.topRow.push_back(0);
        tree.startNs.push_back(time);
        tree.endNs.push_back(time + 5);
        time += 10;
        tree.fid.push_back(row.fid);
        tree.offset.push_back(row.offset);
        tree.size.push_back(row.size);
        tree.asked.push_back(row.asked);
        tree.failed.push_back(row.failed);
        tree.dataSize.push_back(-1);
        tree.dataOffset.push_back(-1);
    }
    return tree;
}

IoCallKinds kindsWithCodes(std::vector<int32_t> callCode) {
    IoCallKinds kinds;
    kinds.layer = {1, 1, 2, -1, 2};
    kinds.kind = {IoKind::Meta, IoKind::Write, IoKind::Write, IoKind::Meta, IoKind::Meta};
    kinds.countsDone = {0, 0, 1, 0, 1};
    kinds.callCode = std::move(callCode);
    return kinds;
}

template <class T>
std::vector<T> rowsOf(const Column<T> &column) {
    return {column.begin(), column.end()};
}

TEST(IoCalls, TwoTracesShareOneSetOfColumns) {
    // First trace: a write under Bcast whose pwrite failed half-way, then an
    // fsync; its fid 7 is named by nobody.
    CallTree first = treeOf({
        {3, 0, -1},                   // Bcast
        {1, 1, 0, 7, 16, 32},         // File_write_at beneath it
        {2, 2, 1, 7, 16, 12, 32, 1},  // its pwrite: asked 32, wrote 12, errno
        {4, 0, -1, 7},                // fsync
    });
    // Second trace: File_open names fid 3, a write with its pwrite.
    CallTree second = treeOf({
        {0, 0, -1, 3},
        {1, 0, -1, 3, 0, 8},
        {2, 1, 1, 3, 0, 8, 8},
    });
    first.openRow = {};
    second.openRow = {0};
    second.openFid = {3};
    second.openName = {"data.bin"};
    const IoCallKinds firstKinds = kindsWithCodes({10, 11, 12, 13, 14});
    const IoCallKinds secondKinds = kindsWithCodes({20, 21, 22, 23, 24});
    const size_t firstCount = countIoCalls(first, firstKinds);
    const size_t secondCount = countIoCalls(second, secondKinds);
    ASSERT_EQ(firstCount, 3u);
    ASSERT_EQ(secondCount, 3u);
    IoCallColumns io;
    io.resize(firstCount + secondCount);
    EXPECT_EQ(selectIoCalls(first, firstKinds, 0, 0, io, 0), std::vector<int32_t>{7});
    EXPECT_EQ(selectIoCalls(second, secondKinds, 1, 2, io, firstCount), std::vector<int32_t>{});
    // First trace: no opens, fid 7 is the first unnamed id; second: its open.
    EXPECT_EQ(rowsOf(io.file), (std::vector<int32_t>{0, 0, 0, 0, 0, 0}));
    codeIoFiles(io, 0, firstCount, {5});
    codeIoFiles(io, firstCount, secondCount, {6});
    EXPECT_EQ(rowsOf(io.file), (std::vector<int32_t>{5, 5, 5, 6, 6, 6}));
    EXPECT_EQ(rowsOf(io.rank), (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(rowsOf(io.thread), (std::vector<int32_t>{0, 0, 0, 2, 2, 2}));
    EXPECT_EQ(rowsOf(io.call), (std::vector<int32_t>{11, 12, 14, 20, 21, 22}));
    EXPECT_EQ(rowsOf(io.parentCall), (std::vector<int32_t>{13, 11, -1, -1, -1, 21}));
    // The File_write_at's nearest I/O call above is none (Bcast is no I/O
    // call); parents in the second trace count from its first row.
    EXPECT_EQ(rowsOf(io.parent), (std::vector<int64_t>{-1, 0, -1, -1, -1, 4}));
    EXPECT_EQ(rowsOf(io.depth), (std::vector<int8_t>{1, 2, 0, 0, 0, 1}));
    EXPECT_EQ(rowsOf(io.offset), (std::vector<int64_t>{16, 16, -1, -1, 0, 0}));
    EXPECT_EQ(rowsOf(io.requested), (std::vector<int64_t>{32, 32, 0, 0, 8, 8}));
    EXPECT_EQ(rowsOf(io.done), (std::vector<int64_t>{32, 12, 0, 0, 8, 8}));
    EXPECT_EQ(rowsOf(io.failed), (std::vector<uint8_t>{0, 1, 0, 0, 0, 0}));
    EXPECT_EQ(rowsOf(io.startNs), (std::vector<int64_t>{110, 120, 130, 100, 110, 120}));
    EXPECT_EQ(rowsOf(io.kind), (std::vector<int8_t>{1, 1, 2, 2, 1, 1}));
    EXPECT_EQ(rowsOf(io.layer), (std::vector<int8_t>{1, 2, 2, 1, 1, 2}));
}

TEST(IoCalls, AFileIsNamedByTheLastOpenThatEndedBeforeTheCall) {
    // open(fid 1) nested in File_open(fid 1, "a"); a write; File_open(fid 1,
    // "b") holding a write made before it ended; a write; a write on fid 2.
    CallTree tree = treeOf({
        {0, 0, -1, 1},  // 0 File_open "a"
        {0, 1, 0, 1},   // 1 nested File_open "inner"
        {1, 0, -1, 1, 0, 4},
        {0, 0, -1, 1},  // 3 File_open "b"
        {1, 1, 3, 1, 0, 4},
        {1, 0, -1, 1, 0, 4},
        {1, 0, -1, 2, 0, 4},
        {1, 0, -1, 9, 0, 4},
    });
    tree.openRow = {0, 1, 3};
    tree.openFid = {1, 1, 1};
    tree.openName = {"a", "inner", "b"};
    const IoCallKinds kinds = kindsWithCodes({0, 1, 2, 3, 4});
    IoCallColumns io;
    io.resize(countIoCalls(tree, kinds));
    EXPECT_EQ(selectIoCalls(tree, kinds, 0, 0, io, 0), (std::vector<int32_t>{2, 9}));
    // The outer File_open ends after its nested one: its own name wins for
    // it and for what follows; the write inside "b"'s open still sees "a".
    EXPECT_EQ(rowsOf(io.file), (std::vector<int32_t>{0, 1, 0, 2, 0, 2, 3, 4}));
}

TEST(IoCalls, RefusesWhatDoesNotFit) {
    CallTree tree = treeOf({{1, 0, -1, 1, 0, 4}, {2, 1, 0, 1, 0, 4, 4}});
    IoCallKinds kinds = kindsWithCodes({0, 1, 2, 3, 4});
    IoCallColumns io;
    io.resize(1);
    EXPECT_THROW(selectIoCalls(tree, kinds, 0, 0, io, 0), std::invalid_argument);  // no room
    io.resize(2);
    EXPECT_THROW(selectIoCalls(tree, kinds, 0, 0, io, 1), std::invalid_argument);
    IoCallKinds shortKinds = kinds;
    shortKinds.callCode.pop_back();
    EXPECT_THROW(countIoCalls(tree, shortKinds), std::invalid_argument);
    CallTree unnamed = tree;
    unnamed.nameCode[1] = 5;
    EXPECT_THROW(countIoCalls(unnamed, kinds), std::invalid_argument);
    EXPECT_THROW(selectIoCalls(unnamed, kinds, 0, 0, io, 0), std::invalid_argument);
    unnamed.nameCode[1] = -1;
    EXPECT_THROW(countIoCalls(unnamed, kinds), std::invalid_argument);
    EXPECT_THROW(selectIoCalls(unnamed, kinds, 0, 0, io, 0), std::invalid_argument);
    // A nested row whose parent is not the row above it at its caller's depth.
    CallTree skewed = treeOf({{1, 0, -1}, {1, 0, -1}, {2, 1, 0}});
    io.resize(3);
    try {
        selectIoCalls(skewed, kinds, 0, 0, io, 0);
        FAIL() << "a row out of pre-order was taken";
    } catch (const std::invalid_argument &error) {
        EXPECT_NE(std::string(error.what()).find("row 2"), std::string::npos) << error.what();
    }
    io.resize(2);
    selectIoCalls(tree, kinds, 0, 0, io, 0);
    EXPECT_THROW(codeIoFiles(io, 0, 2, {}), std::invalid_argument);
    EXPECT_THROW(codeIoFiles(io, 1, 2, {7}), std::invalid_argument);
}

}  // namespace
}  // namespace hdtrace::reader
