// What the order repair must restore (in the spirit of the controlled logical
// clock): the end of a call that waits for other calls may not come before
// their starts.
// - A receive (Recv, Sendrecv, Mrecv, or the Wait/Test completing an Irecv,
//   Imrecv, or a Recv_init started by Start or Startall) waits for its send.
// - A member of a blocking collective waits for any member (Barrier, Allreduce,
//   Allgather(v), Alltoall(v,w), Reduce_scatter(_block)), for the root (Bcast,
//   Scatter(v)), or, as the root of Reduce and Gather(v), for every member.
#pragma once

#include <cstdint>
#include <vector>

#include <hdtrace/clocks/MessagePairs.hpp>
#include <hdtrace/clocks/RunTable.hpp>

namespace hdtrace::clocks {

struct OrderConstraints {
    // Messages: the row doneRows[k] may not end before sendRows[k] starts.
    std::vector<int64_t> sendRows, doneRows;
    // Collectives: a sink may not end before the latest start of the sources
    // of its instance (one call of every member of a communicator).
    std::vector<int64_t> sources, sourceInstance, sinks, sinkInstance;
    int64_t instances = 0;
};

OrderConstraints orderConstraints(const RunTable &table, const std::vector<MessagePair> &pairs,
                                  const CommunicatorIndex &communicators);

}  // namespace hdtrace::clocks
