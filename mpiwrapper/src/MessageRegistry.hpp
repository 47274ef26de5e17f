// MessageRegistry: matched probes (MPI_Mprobe, MPI_Improbe) give each
// message they match an id `mid` from a per-process counter, never reused.
// MPI_Mrecv and MPI_Imrecv consume the message handle (it becomes
// MPI_MESSAGE_NULL), so what the receive writes is kept here, by handle,
// from the probe until the receive takes it. Process-wide: a message may be
// probed in one thread and received in another. Probes are rare next to
// sends and receives, so one mutex is enough.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include <mpi.h>

namespace hdtracempi {

struct MessageRecord {
    int64_t mid = -1;  // -1: no message (MPI_MESSAGE_NO_PROC, unknown handle)
    int64_t cid = -1;
    int64_t fromRank = -2;  // world rank, portable
    int64_t fromTag = -1;   // portable
    int64_t size = 0;       // bytes of the matched message
};

class MessageRegistry {
  public:
    // After a probe that matched: a new mid for *message, remembered with
    // what the probe learnt. MPI_MESSAGE_NO_PROC gets no mid (-1) and is
    // not remembered: it is one shared handle that names no message.
    int64_t probed(MPI_Message message, const MessageRecord &record);
    // Before MPI_Mrecv / MPI_Imrecv: the record of message, forgotten now
    // (the call consumes the handle); mid -1 when the handle is unknown.
    MessageRecord take(MPI_Message message);

  private:
    std::atomic<int64_t> nextId_{0};
    std::mutex mutex_;
    std::unordered_map<MPI_Message, MessageRecord> byHandle_;
};

}  // namespace hdtracempi
