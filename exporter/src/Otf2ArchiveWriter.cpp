// Encodes an Otf2Run with the OTF2 library: events per location first, then
// the local and global definitions, as OTF2 requires.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <otf2/otf2.h>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include <hdtrace/exporter/Otf2Run.hpp>

namespace hdtrace::exporter {
namespace {

namespace fs = std::filesystem;

constexpr const char *kArchiveName = "traces";

void check(OTF2_ErrorCode code, const char *what) {
    if (code != OTF2_SUCCESS)
        throw std::runtime_error(std::string("OTF2: ") + what + ": " + OTF2_Error_GetName(code) +
                                 ": " + OTF2_Error_GetDescription(code));
}

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
    return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void *, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}
OTF2_FlushCallbacks flushCallbacks = {preFlush, postFlush};

OTF2_RegionRole otf2Role(RegionRole role) {
    switch (role) {
        case RegionRole::PointToPoint:
            return OTF2_REGION_ROLE_POINT2POINT;
        case RegionRole::CollectiveOneToAll:
            return OTF2_REGION_ROLE_COLL_ONE2ALL;
        case RegionRole::CollectiveAllToOne:
            return OTF2_REGION_ROLE_COLL_ALL2ONE;
        case RegionRole::CollectiveAllToAll:
            return OTF2_REGION_ROLE_COLL_ALL2ALL;
        case RegionRole::FileIo:
            return OTF2_REGION_ROLE_FILE_IO;
        case RegionRole::Rma:
            return OTF2_REGION_ROLE_RMA;
        case RegionRole::Function:
            break;
    }
    return OTF2_REGION_ROLE_FUNCTION;
}

// Owns the archive handle; closes it on every path out.
class Archive {
  public:
    explicit Archive(const std::string &path) {
        archive_ = OTF2_Archive_Open(path.c_str(), kArchiveName, OTF2_FILEMODE_WRITE, 1024 * 1024,
                                     4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
        if (archive_ == nullptr)
            throw std::runtime_error("OTF2: cannot create an archive in " + path);
    }
    ~Archive() {
        if (archive_ != nullptr) OTF2_Archive_Close(archive_);
    }
    Archive(const Archive &) = delete;
    Archive &operator=(const Archive &) = delete;
    OTF2_Archive *get() { return archive_; }
    void close() {
        OTF2_Archive *archive = archive_;
        archive_ = nullptr;
        check(OTF2_Archive_Close(archive), "closing the archive");
    }

  private:
    OTF2_Archive *archive_ = nullptr;
};

// Location ids as Score-P numbers them: the thread in the upper half.
uint64_t locationId(const Location &location) {
    return (location.thread << 32) | location.rank;
}

uint32_t narrow32(int64_t value, const char *what) {
    if (value < 0 || value > INT64_C(0xFFFFFFFF))
        throw std::runtime_error(std::string("OTF2 export: ") + what + " " + std::to_string(value) +
                                 " does not fit in 32 bits");
    return static_cast<uint32_t>(value);
}

void checkRun(const Otf2Run &run) {
    const Records &records = run.records;
    const size_t count = records.location.size();
    for (const auto *column : {&records.a, &records.b, &records.c, &records.d, &records.e})
        if (column->size() != count)
            throw std::runtime_error("OTF2 export: record columns differ in length");
    if (records.kind.size() != count || records.time.size() != count)
        throw std::runtime_error("OTF2 export: record columns differ in length");
    for (size_t i = 0; i < count; ++i) {
        if (records.location[i] >= run.locations.size())
            throw std::runtime_error("OTF2 export: record " + std::to_string(i) +
                                     " names location " + std::to_string(records.location[i]) +
                                     ", there are " + std::to_string(run.locations.size()));
        if (records.kind[i] < 0 || records.kind[i] >= kRecordKinds)
            throw std::runtime_error("OTF2 export: record " + std::to_string(i) +
                                     " has unknown kind " + std::to_string(records.kind[i]));
        if (records.kind[i] >= static_cast<int32_t>(RecordKind::RmaWinCreate) &&
            (records.a[i] < 0 || static_cast<uint64_t>(records.a[i]) >= run.windows.size()))
            throw std::runtime_error("OTF2 export: record " + std::to_string(i) + " names window " +
                                     std::to_string(records.a[i]) + ", there are " +
                                     std::to_string(run.windows.size()));
        if (i > 0 && records.location[i] == records.location[i - 1] &&
            records.time[i] < records.time[i - 1])
            throw std::runtime_error("OTF2 export: record " + std::to_string(i) +
                                     " goes back in time on its location");
    }
}

void writeEvents(OTF2_Archive *archive, const Otf2Run &run, std::vector<uint64_t> &perLocation,
                 std::vector<uint64_t> &byKind) {
    const Records &records = run.records;
    const size_t count = records.location.size();
    size_t i = 0;
    while (i < count) {
        const uint32_t location = records.location[i];
        OTF2_EvtWriter *writer =
            OTF2_Archive_GetEvtWriter(archive, locationId(run.locations[location]));
        if (writer == nullptr) throw std::runtime_error("OTF2: no event writer for a location");
        for (; i < count && records.location[i] == location; ++i) {
            const OTF2_TimeStamp time = run.originNs + records.time[i];
            const int64_t a = records.a[i], b = records.b[i], c = records.c[i], d = records.d[i],
                          e = records.e[i];
            const auto kind = static_cast<RecordKind>(records.kind[i]);
            OTF2_ErrorCode code = OTF2_SUCCESS;
            switch (kind) {
                case RecordKind::Enter:
                    code = OTF2_EvtWriter_Enter(writer, nullptr, time, narrow32(a, "region"));
                    break;
                case RecordKind::Leave:
                    code = OTF2_EvtWriter_Leave(writer, nullptr, time, narrow32(a, "region"));
                    break;
                case RecordKind::MpiSend:
                    code = OTF2_EvtWriter_MpiSend(writer, nullptr, time, narrow32(a, "receiver"),
                                                  narrow32(b, "communicator"), narrow32(c, "tag"),
                                                  static_cast<uint64_t>(d));
                    break;
                case RecordKind::MpiRecv:
                    code = OTF2_EvtWriter_MpiRecv(writer, nullptr, time, narrow32(a, "sender"),
                                                  narrow32(b, "communicator"), narrow32(c, "tag"),
                                                  static_cast<uint64_t>(d));
                    break;
                case RecordKind::MpiIsend:
                    code = OTF2_EvtWriter_MpiIsend(
                        writer, nullptr, time, narrow32(a, "receiver"), narrow32(b, "communicator"),
                        narrow32(c, "tag"), static_cast<uint64_t>(d), static_cast<uint64_t>(e));
                    break;
                case RecordKind::MpiIsendComplete:
                    code = OTF2_EvtWriter_MpiIsendComplete(writer, nullptr, time,
                                                           static_cast<uint64_t>(e));
                    break;
                case RecordKind::MpiIrecvRequest:
                    code = OTF2_EvtWriter_MpiIrecvRequest(writer, nullptr, time,
                                                          static_cast<uint64_t>(e));
                    break;
                case RecordKind::MpiIrecv:
                    code = OTF2_EvtWriter_MpiIrecv(
                        writer, nullptr, time, narrow32(a, "sender"), narrow32(b, "communicator"),
                        narrow32(c, "tag"), static_cast<uint64_t>(d), static_cast<uint64_t>(e));
                    break;
                case RecordKind::CollectiveBegin:
                    code = OTF2_EvtWriter_MpiCollectiveBegin(writer, nullptr, time);
                    break;
                case RecordKind::CollectiveEnd:
                    code = OTF2_EvtWriter_MpiCollectiveEnd(
                        writer, nullptr, time, static_cast<OTF2_CollectiveOp>(a),
                        narrow32(b, "communicator"),
                        c < 0 ? OTF2_UNDEFINED_UINT32 : narrow32(c, "root"),
                        static_cast<uint64_t>(d), static_cast<uint64_t>(e));
                    break;
                case RecordKind::IoBegin:
                    code = OTF2_EvtWriter_IoOperationBegin(
                        writer, nullptr, time, narrow32(a, "I/O handle"),
                        b == 1 ? OTF2_IO_OPERATION_MODE_WRITE : OTF2_IO_OPERATION_MODE_READ,
                        OTF2_IO_OPERATION_FLAG_NONE, static_cast<uint64_t>(c),
                        static_cast<uint64_t>(d));
                    break;
                case RecordKind::IoComplete:
                    code = OTF2_EvtWriter_IoOperationComplete(
                        writer, nullptr, time, narrow32(a, "I/O handle"), static_cast<uint64_t>(c),
                        static_cast<uint64_t>(d));
                    break;
                case RecordKind::RmaWinCreate:
                    code =
                        OTF2_EvtWriter_RmaWinCreate(writer, nullptr, time, narrow32(a, "window"));
                    break;
                case RecordKind::RmaWinDestroy:
                    code =
                        OTF2_EvtWriter_RmaWinDestroy(writer, nullptr, time, narrow32(a, "window"));
                    break;
                case RecordKind::RmaPut:
                    code = OTF2_EvtWriter_RmaPut(writer, nullptr, time, narrow32(a, "window"),
                                                 narrow32(b, "target"), static_cast<uint64_t>(d),
                                                 static_cast<uint64_t>(e));
                    break;
                case RecordKind::RmaGet:
                    code = OTF2_EvtWriter_RmaGet(writer, nullptr, time, narrow32(a, "window"),
                                                 narrow32(b, "target"), static_cast<uint64_t>(d),
                                                 static_cast<uint64_t>(e));
                    break;
                case RecordKind::RmaAtomic: {
                    // A plain accumulate sends only; the fetching kinds also receive.
                    const auto type = static_cast<OTF2_RmaAtomicType>(c);
                    const uint64_t bytes = static_cast<uint64_t>(d);
                    code = OTF2_EvtWriter_RmaAtomic(
                        writer, nullptr, time, narrow32(a, "window"), narrow32(b, "target"), type,
                        bytes, type == OTF2_RMA_ATOMIC_TYPE_ACCUMULATE ? 0 : bytes,
                        static_cast<uint64_t>(e));
                    break;
                }
                case RecordKind::RmaOpComplete:
                    code = OTF2_EvtWriter_RmaOpCompleteNonBlocking(
                        writer, nullptr, time, narrow32(a, "window"), static_cast<uint64_t>(e));
                    break;
            }
            check(code, "writing an event");
            ++perLocation[location];
            ++byKind[static_cast<size_t>(records.kind[i])];
        }
        check(OTF2_Archive_CloseEvtWriter(archive, writer), "closing an event writer");
    }
    // A location without events (a trace cut before its first call, a rank
    // left out of the export) still gets its event file: readers open one
    // for every location defined.
    for (size_t location = 0; location < run.locations.size(); ++location) {
        if (perLocation[location] != 0) continue;
        OTF2_EvtWriter *writer =
            OTF2_Archive_GetEvtWriter(archive, locationId(run.locations[location]));
        if (writer == nullptr) throw std::runtime_error("OTF2: no event writer for a location");
        check(OTF2_Archive_CloseEvtWriter(archive, writer), "closing an event writer");
    }
}

class Strings {
  public:
    explicit Strings(OTF2_GlobalDefWriter *writer) : writer_(writer) {}
    OTF2_StringRef operator()(const std::string &text) {
        auto found = ids_.find(text);
        if (found != ids_.end()) return found->second;
        const auto id = static_cast<OTF2_StringRef>(ids_.size());
        check(OTF2_GlobalDefWriter_WriteString(writer_, id, text.c_str()), "writing a string");
        ids_.emplace(text, id);
        return id;
    }

  private:
    OTF2_GlobalDefWriter *writer_;
    std::unordered_map<std::string, OTF2_StringRef> ids_;
};

void writeDefinitions(OTF2_Archive *archive, const Otf2Run &run,
                      const std::vector<uint64_t> &perLocation) {
    check(OTF2_Archive_OpenDefFiles(archive), "opening the definition files");
    for (const Location &location : run.locations) {
        OTF2_DefWriter *local = OTF2_Archive_GetDefWriter(archive, locationId(location));
        if (local == nullptr) throw std::runtime_error("OTF2: no definition writer for a location");
        check(OTF2_Archive_CloseDefWriter(archive, local), "closing a definition writer");
    }
    check(OTF2_Archive_CloseDefFiles(archive), "closing the definition files");

    OTF2_GlobalDefWriter *global = OTF2_Archive_GetGlobalDefWriter(archive);
    if (global == nullptr) throw std::runtime_error("OTF2: no global definition writer");
    uint64_t length = 1;
    for (uint64_t time : run.records.time)
        length = std::max(length, time + 1);
    check(OTF2_GlobalDefWriter_WriteClockProperties(global, 1000000000, run.originNs, length,
                                                    run.originNs),
          "writing the clock properties");
    Strings strings(global);
    const OTF2_StringRef empty = strings("");

    for (size_t i = 0; i < run.regions.size(); ++i) {
        const Region &region = run.regions[i];
        check(OTF2_GlobalDefWriter_WriteRegion(global, static_cast<OTF2_RegionRef>(i),
                                               strings(region.name), strings("MPI_" + region.name),
                                               empty, otf2Role(region.role), OTF2_PARADIGM_MPI,
                                               OTF2_REGION_FLAG_NONE, empty, 0, 0),
              "writing a region");
    }

    // System tree: the machine, one node per host; one process per rank.
    const OTF2_SystemTreeNodeRef machine = 0;
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(global, machine, strings(run.name),
                                                   strings("machine"),
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "writing the system tree");
    std::map<std::string, OTF2_SystemTreeNodeRef> hosts;
    std::map<uint64_t, const Location *> ranks;  // rank -> its first location
    for (const Location &location : run.locations) {
        if (hosts.emplace(location.host, static_cast<OTF2_SystemTreeNodeRef>(hosts.size() + 1))
                .second)
            check(
                OTF2_GlobalDefWriter_WriteSystemTreeNode(
                    global, hosts[location.host], strings(location.host), strings("node"), machine),
                "writing a system tree node");
        auto &first = ranks[location.rank];
        if (first == nullptr || location.thread < first->thread) first = &location;
    }
    for (const auto &[rank, location] : ranks)
        check(OTF2_GlobalDefWriter_WriteLocationGroup(
                  global, narrow32(static_cast<int64_t>(rank), "rank"),
                  strings("MPI Rank " + std::to_string(rank)), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                  hosts[location->host], OTF2_UNDEFINED_LOCATION_GROUP),
              "writing a location group");
    for (size_t i = 0; i < run.locations.size(); ++i) {
        const Location &location = run.locations[i];
        check(OTF2_GlobalDefWriter_WriteLocation(
                  global, locationId(location),
                  strings("rank " + std::to_string(location.rank) + " thread " +
                          std::to_string(location.thread)),
                  OTF2_LOCATION_TYPE_CPU_THREAD, perLocation[i],
                  narrow32(static_cast<int64_t>(location.rank), "rank")),
              "writing a location");
    }

    // Communicators: group 0 lists one location per rank (the MPI ranks, in
    // order); each communicator's group holds indices into it.
    std::vector<uint64_t> worldLocations;
    std::unordered_map<uint64_t, uint64_t> indexOfRank;
    for (const auto &[rank, location] : ranks) {
        indexOfRank[rank] = worldLocations.size();
        worldLocations.push_back(locationId(*location));
    }
    check(OTF2_GlobalDefWriter_WriteGroup(
              global, 0, strings("MPI ranks"), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
              OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(worldLocations.size()),
              worldLocations.data()),
          "writing the MPI location group");
    for (size_t i = 0; i < run.communicators.size(); ++i) {
        const Communicator &communicator = run.communicators[i];
        std::vector<uint64_t> members;
        for (uint64_t world : communicator.worldRanks) {
            auto found = indexOfRank.find(world);
            if (found == indexOfRank.end())
                throw std::runtime_error("OTF2 export: communicator " + communicator.name +
                                         " has world rank " + std::to_string(world) +
                                         ", which has no trace");
            members.push_back(found->second);
        }
        const auto group = static_cast<OTF2_GroupRef>(i + 1);
        check(OTF2_GlobalDefWriter_WriteGroup(
                  global, group, strings(communicator.name), OTF2_GROUP_TYPE_COMM_GROUP,
                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(members.size()),
                  members.data()),
              "writing a communicator group");
        check(OTF2_GlobalDefWriter_WriteComm(global, static_cast<OTF2_CommRef>(i),
                                             strings(communicator.name), group, OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE),
              "writing a communicator");
    }

    for (size_t i = 0; i < run.windows.size(); ++i) {
        const RmaWindow &window = run.windows[i];
        if (window.communicator >= run.communicators.size())
            throw std::runtime_error("OTF2 export: window " + window.name +
                                     " names no communicator");
        check(OTF2_GlobalDefWriter_WriteRmaWin(global, static_cast<OTF2_RmaWinRef>(i),
                                               strings(window.name), window.communicator,
                                               OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS),
              "writing an RMA window");
    }

    if (!run.ioHandles.empty()) {
        check(OTF2_GlobalDefWriter_WriteIoParadigm(
                  global, 0, strings("MPI-IO"), strings("MPI-IO"), OTF2_IO_PARADIGM_CLASS_PARALLEL,
                  OTF2_IO_PARADIGM_FLAG_NONE, 0, nullptr, nullptr, nullptr),
              "writing the I/O paradigm");
        for (size_t i = 0; i < run.files.size(); ++i)
            check(OTF2_GlobalDefWriter_WriteIoRegularFile(global, static_cast<OTF2_IoFileRef>(i),
                                                          strings(run.files[i]), machine),
                  "writing a file");
        for (size_t i = 0; i < run.ioHandles.size(); ++i) {
            const IoHandle &handle = run.ioHandles[i];
            if (handle.file >= run.files.size())
                throw std::runtime_error("OTF2 export: I/O handle " + handle.name +
                                         " names no file");
            check(OTF2_GlobalDefWriter_WriteIoHandle(
                      global, static_cast<OTF2_IoHandleRef>(i), strings(handle.name), handle.file,
                      0, OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE),
                  "writing an I/O handle");
        }
    }
}

// A fresh directory beside `target`, removed again unless released.
class StagingDirectory {
  public:
    explicit StagingDirectory(const fs::path &target) {
        fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
        std::string pattern = (parent / ("." + target.filename().string() + ".XXXXXX")).string();
        if (mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("cannot create a temporary directory in " + parent.string() +
                                     ": " + std::strerror(errno));
        path_ = pattern;
    }
    ~StagingDirectory() {
        std::error_code ignored;
        if (!path_.empty()) fs::remove_all(path_, ignored);
    }
    StagingDirectory(const StagingDirectory &) = delete;
    StagingDirectory &operator=(const StagingDirectory &) = delete;
    const fs::path &path() const { return path_; }

  private:
    fs::path path_;
};

}  // namespace

WriteSummary writeOtf2Archive(const std::string &directory, const Otf2Run &run) {
    checkRun(run);
    const fs::path target(directory);
    std::error_code error;
    if (fs::exists(target, error)) {
        if (!fs::is_directory(target) || !fs::is_empty(target))
            throw std::runtime_error(directory +
                                     ": exists and is not an empty directory; "
                                     "refusing to write an OTF2 archive into it");
    }
    StagingDirectory staging(target);
    const fs::path archivePath = staging.path() / "archive";

    WriteSummary summary;
    summary.eventsByKind.assign(kRecordKinds, 0);
    std::vector<uint64_t> perLocation(run.locations.size(), 0);
    {
        Archive archive(archivePath.string());
        check(OTF2_Archive_SetFlushCallbacks(archive.get(), &flushCallbacks, nullptr),
              "setting the flush callbacks");
        check(OTF2_Archive_SetSerialCollectiveCallbacks(archive.get()),
              "setting the collective callbacks");
        check(OTF2_Archive_SetCreator(archive.get(), "hdtrace export --otf2"),
              "setting the creator");
        check(OTF2_Archive_SetDescription(archive.get(), run.name.c_str()),
              "setting the description");
        check(OTF2_Archive_OpenEvtFiles(archive.get()), "opening the event files");
        writeEvents(archive.get(), run, perLocation, summary.eventsByKind);
        check(OTF2_Archive_CloseEvtFiles(archive.get()), "closing the event files");
        writeDefinitions(archive.get(), run, perLocation);
        archive.close();
    }
    if (fs::exists(target, error)) fs::remove(target);  // empty, checked above
    fs::rename(archivePath, target);
    summary.anchor = (target / (std::string(kArchiveName) + ".otf2")).string();
    return summary;
}

}  // namespace hdtrace::exporter
