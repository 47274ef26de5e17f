// Pairs every point-to-point send of a run with its receive, by MPI's rules
// (the same as the Python package's match_messages, python/hdtrace/messages.py):
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

// Turns a time of a rank's clock into the time the table holds (the table's
// times may be corrected already): used for the probes' start times.
using TableTime = std::function<int64_t(int32_t rank, int64_t ns)>;

std::vector<MessagePair> matchMessages(const RunTable &table,
                                       const CommunicatorIndex &communicators,
                                       const std::vector<RunTrace> &traces,
                                       const TableTime &tableTime, bool partial);

}  // namespace hdtrace::clocks
