#include "CallRecord.hpp"

#include <algorithm>

namespace hdtrace::reader {

int64_t lookUpWorldRank(const LocalToWorldTable &localToWorld, int64_t cid, int64_t rank,
                        EventColumns &columns) {
    auto found = localToWorld.find(cid);
    if (found == localToWorld.end() || rank >= static_cast<int64_t>(found->second.size()) ||
        found->second[static_cast<size_t>(rank)] < 0) {
        ++columns.untranslatedPeers;
        return rank;
    }
    return found->second[static_cast<size_t>(rank)];
}

void CallRowWriter::grow() {
    // Room the columns already have (EventColumns::reserve, from the
    // file's size, or an earlier move) is taken whole, and alone: its pages
    // cost nothing until written. Past it the rows double, as the columns'
    // memory does when they move. A small trace's room is a few rows: a
    // fixed block of thousands (272 KB) was faulted in and zeroed again for
    // each of a run's many small traces.
    const size_t reserved = reservedRows();
    allocatedRows_ = reserved > allocatedRows_
                         ? reserved
                         : allocatedRows_ + std::max(allocatedRows_, kFewestRowsAdded);
    resizeColumns(allocatedRows_);
    nameCodeAt_ = columns_.nameCode.data(), peerAt_ = columns_.peer.data();
    tagAt_ = columns_.tag.data(), cidAt_ = columns_.cid.data(), fidAt_ = columns_.fid.data();
    recvPeerAt_ = columns_.recvPeer.data(), recvTagAt_ = columns_.recvTag.data();
    startNsAt_ = columns_.startNs.data(), endNsAt_ = columns_.endNs.data();
    sizeAt_ = columns_.size.data(), offsetAt_ = columns_.offset.data();
    ridAt_ = columns_.rid.data();
}

size_t CallRowWriter::reservedRows() const {
    size_t rows = columns_.nameCode.capacity();
    for (size_t capacity :
         {columns_.startNs.capacity(), columns_.endNs.capacity(), columns_.size.capacity(),
          columns_.offset.capacity(), columns_.rid.capacity(), columns_.peer.capacity(),
          columns_.tag.capacity(), columns_.cid.capacity(), columns_.fid.capacity(),
          columns_.recvPeer.capacity(), columns_.recvTag.capacity()})
        rows = std::min(rows, capacity);
    return rows;
}

void CallRowWriter::trim() {
    resizeColumns(rows_);
}

void CallRowWriter::resizeColumns(size_t rows) {
    for (auto *column :
         {&columns_.startNs, &columns_.endNs, &columns_.size, &columns_.offset, &columns_.rid})
        column->resize(rows);
    for (auto *column : {&columns_.nameCode, &columns_.peer, &columns_.tag, &columns_.cid,
                         &columns_.fid, &columns_.recvPeer, &columns_.recvTag})
        column->resize(rows);
}

}  // namespace hdtrace::reader
