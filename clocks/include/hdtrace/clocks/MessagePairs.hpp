// Pairs every point-to-point send of a run with its receive, by MPI's rules
// (the Python package's match_messages pairs through pairPosts too):
// between two ranks on one communicator with one tag, messages arrive in the
// order they were sent; a wildcard receive takes the earliest pending send it
// can match; persistent requests post a message each time Start or Startall
// starts them; Mrecv/Imrecv take their place in the matching order at the
// start of the probe that matched their message.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <hdtrace/clocks/RunTable.hpp>

namespace hdtrace::clocks {

struct MessagePair {
    int64_t sendRow = 0;  // the call that posted the send (Send, Isend, Start, ...)
    int64_t recvRow = 0;  // the call that posted the receive (Recv, Irecv, Start, Startall, ...)
    // The request that completes the receive in a Wait/Test (Irecv, Imrecv, a
    // started Recv_init), -1 when the receive completes at its own end.
    int64_t recvRid = -1;
};

// One message a call posted, as the pairing sees it.
struct MessagePost {
    int32_t rank = 0;  // the rank that posted it (world)
    int32_t peer = 0;  // the other side (world rank), a wildcard, or MPI_PROC_NULL
    int32_t tag = 0;
    // Equal for posts on the same communicator: its index in the project,
    // or unknownCommunicatorKey(cid) where the project does not list it.
    int64_t communicator = 0;
    int64_t startNs = 0;  // start of the posting call: the earlier of two candidates wins
};

constexpr int64_t unknownCommunicatorKey(int32_t cid) {
    return (int64_t{1} << 40) + cid;
}

struct PostPairing {
    // (index in sends, index in receives), in the order the receives matched.
    std::vector<std::pair<size_t, size_t>> pairs;
    // Posts nothing matched; those to or from MPI_PROC_NULL or with no peer
    // carry no message and are in neither list.
    std::vector<size_t> unmatchedSends, unmatchedReceives;
};

// The matching itself: sends in the order they were sent, receives in the
// order they take their message (a matched receive at its probe's start).
PostPairing pairPosts(const std::vector<MessagePost> &sends,
                      const std::vector<MessagePost> &receives);

// Turns a time of a rank's clock into the time the table holds (the table's
// times may be corrected already): used for the probes' start times.
using TableTime = std::function<int64_t(int32_t rank, int64_t ns)>;

std::vector<MessagePair> matchMessages(const RunTable &table,
                                       const CommunicatorIndex &communicators,
                                       const std::vector<RunTrace> &traces,
                                       const TableTime &tableTime, bool partial);

}  // namespace hdtrace::clocks
