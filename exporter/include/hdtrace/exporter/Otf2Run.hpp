// What hdtrace export --otf2 hands to the OTF2 writer: a run already reduced
// to OTF2's vocabulary (locations, regions, communicators, I/O handles and one
// time-ordered record list per location). Deciding *what* to record (message
// matching, rank translation) stays in the Python package; this layer only
// encodes it with the OTF2 library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hdtrace::exporter {

// The region's role as OTF2 knows it.
enum class RegionRole : int32_t {
    Function = 0,
    PointToPoint,
    CollectiveOneToAll,
    CollectiveAllToOne,
    CollectiveAllToAll,
    FileIo,
    Rma  // one-sided communication
};

struct Region {
    std::string name;
    RegionRole role = RegionRole::Function;
};

struct Location {
    uint64_t rank = 0;
    uint64_t thread = 0;
    std::string host;
};

struct Communicator {
    std::string name;
    std::vector<uint64_t> worldRanks;  // by local rank
};

// An RMA window: one definition for all ranks that made it collectively.
struct RmaWindow {
    std::string name;
    uint32_t communicator = 0;  // index into Otf2Run::communicators
};

struct IoHandle {
    std::string name;   // e.g. "out.dat (rank 2, fid 0)"
    uint32_t file = 0;  // index into Otf2Run::files
};

// The record kinds and the meaning of their arguments a..e.
enum class RecordKind : int32_t {
    Enter = 0,         // a: region
    Leave,             // a: region
    MpiSend,           // a: receiver (rank in the communicator), b: communicator, c: tag, d: bytes
    MpiRecv,           // a: sender, b: communicator, c: tag, d: bytes
    MpiIsend,          // as MpiSend, e: request id
    MpiIsendComplete,  // e: request id
    MpiIrecvRequest,   // e: request id
    MpiIrecv,          // as MpiRecv, e: request id
    CollectiveBegin,   // no arguments
    CollectiveEnd,     // a: OTF2_CollectiveOp, b: communicator, c: root (-1: none), d: sent, e:
                       // received
    IoBegin,           // a: I/O handle, b: 0 read / 1 write, c: bytes, d: matching id
    IoComplete,        // a: I/O handle, c: bytes, d: matching id
    // One-sided communication; a: window (index into Otf2Run::windows).
    RmaWinCreate,   // a: window
    RmaWinDestroy,  // a: window
    RmaPut,         // a: window, b: target (rank in the window's communicator), d: bytes,
                    // e: matching id
    RmaGet,         // as RmaPut
    RmaAtomic,      // as RmaPut, c: OTF2_RmaAtomicType
    RmaOpComplete,  // a: window, e: matching id (RmaOpCompleteNonBlocking)
};
constexpr int32_t kRecordKinds = 18;

// Columns over every record, grouped by location, in time order within each.
struct Records {
    std::vector<uint32_t> location;  // index into Otf2Run::locations
    std::vector<int32_t> kind;       // RecordKind
    std::vector<uint64_t> time;      // ns since Otf2Run::originNs
    std::vector<int64_t> a, b, c, d, e;
};

struct Otf2Run {
    std::string name;
    uint64_t originNs = 0;  // absolute start (ns since the epoch) of time 0
    std::vector<Region> regions;
    std::vector<Location> locations;
    std::vector<Communicator> communicators;
    std::vector<std::string> files;
    std::vector<IoHandle> ioHandles;
    std::vector<RmaWindow> windows;
    Records records;
};

struct WriteSummary {
    std::string anchor;                  // <directory>/traces.otf2
    std::vector<uint64_t> eventsByKind;  // indexed by RecordKind
};

// Writes the archive into `directory`, which must not exist or be empty.
// The archive is built in a temporary directory beside it and renamed into
// place, so a failure leaves nothing behind. Throws std::runtime_error with
// what went wrong.
WriteSummary writeOtf2Archive(const std::string &directory, const Otf2Run &run);

}  // namespace hdtrace::exporter
