#include "WinRegistry.hpp"

#include "HandleGeneration.hpp"
#include "InfoLines.hpp"
#include "PortableValues.hpp"

namespace hdtracempi {

int64_t WinRecord::worldRankOfTarget(int rank) const {
    return comm ? comm->worldRankOfPeer(rank) : portableRank(rank);
}

const WinRecord *WinRegistry::created(MPI_Win win, const CommRecord *comm, int64_t size,
                                      int64_t dispUnit, WinKind kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    WinRecord &record = records_.emplace_back();
    record.id = static_cast<int64_t>(records_.size()) - 1;
    record.comm = comm;
    record.infoLine = winLine(record.id, comm ? comm->id : -1, size, dispUnit, winKindName(kind));
    byHandle_[win] = &record;
    return &record;
}

const WinRecord *WinRegistry::find(MPI_Win win) {
    if (win == MPI_WIN_NULL) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byHandle_.find(win);
    return found != byHandle_.end() ? found->second : nullptr;
}

void WinRegistry::forget(MPI_Win win) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (byHandle_.erase(win)) bumpGeneration(generation_);
}

const char *winKindName(WinKind kind) {
    switch (kind) {
        case WinKind::Create:
            return "create";
        case WinKind::Allocate:
            return "allocate";
        case WinKind::Shared:
            return "shared";
        case WinKind::Dynamic:
            return "dynamic";
    }
    return "unknown";
}

const char *opName(MPI_Op op) {
    static const struct {
        MPI_Op op;
        const char *name;
    } predefined[] = {
        {MPI_SUM, "MPI_SUM"},         {MPI_PROD, "MPI_PROD"},     {MPI_MAX, "MPI_MAX"},
        {MPI_MIN, "MPI_MIN"},         {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
        {MPI_LOR, "MPI_LOR"},         {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
        {MPI_BXOR, "MPI_BXOR"},       {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
        {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
    };
    for (const auto &entry : predefined)
        if (entry.op == op) return entry.name;
    return "user";
}

}  // namespace hdtracempi
