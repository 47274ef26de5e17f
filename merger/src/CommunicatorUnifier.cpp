#include "CommunicatorUnifier.hpp"

#include <algorithm>

#include "FlatMap.hpp"
#include "InternedSequences.hpp"
#include "Span.hpp"
#include "TextKey.hpp"

namespace hdtrace::merger {
namespace {

// A member set as sorted runs of world ranks (first, count).
using MemberRange = std::pair<int64_t, int64_t>;

struct MemberRangeHash {
    uint64_t operator()(const MemberRange &range) const {
        return (static_cast<uint64_t>(range.first) * 0x9e3779b97f4a7c15ull) ^
               static_cast<uint64_t>(range.second);
    }
};

struct RankRunHash {
    uint64_t operator()(const RankRun &run) const {
        uint64_t hash = static_cast<uint64_t>(run.world) * 0x9e3779b97f4a7c15ull;
        hash = (hash ^ static_cast<uint64_t>(run.local)) * 0x100000001b3ull;
        hash = (hash ^ static_cast<uint64_t>(run.length)) * 0x100000001b3ull;
        return hash ^ static_cast<uint64_t>(run.stride);
    }
};

// (kind, member set(s), position among this rank's communicators with them)
struct CommKey {
    bool inter = false;
    uint32_t first = 0;   // interned member set (the lower one for an intercommunicator)
    uint32_t second = 0;  // the other group of an intercommunicator
    uint32_t position = 0;
    bool operator==(const CommKey &other) const {
        return inter == other.inter && first == other.first && second == other.second &&
               position == other.position;
    }
};

struct CommKeyHash {
    size_t operator()(const CommKey &key) const {
        uint64_t hash = key.inter ? 0x9e3779b97f4a7c15ull : 0;
        hash = (hash ^ key.first) * 0x100000001b3ull;
        hash = (hash ^ key.second) * 0x100000001b3ull;
        hash = (hash ^ key.position) * 0x100000001b3ull;
        return static_cast<size_t>(hash ^ (hash >> 29));
    }
};

// Gives each member of a strided run a run of its own, as if the map had
// been written entry by entry. Returns what is wrong, or "".
std::string expandStridedRuns(RankMap &map, int64_t worldSize) {
    int64_t members = 0;
    bool strided = false;
    for (const RankRun &run : map) {
        members += run.length;
        strided = strided || run.stride != 1;
    }
    if (!strided) return "";
    // More members than ranks means a rank named twice or one outside the
    // run; caught here, before a bad line could make the map huge.
    if (members > worldSize)
        return "the map names " + std::to_string(members) + " members, but the run has ranks 0.." +
               std::to_string(worldSize - 1);
    RankMap expanded;
    expanded.reserve(static_cast<size_t>(members));
    for (const RankRun &run : map) {
        if (run.stride == 1) {
            expanded.push_back(run);
            continue;
        }
        for (int64_t i = 0; i < run.length; ++i)
            expanded.push_back({run.world + i * run.stride, run.local + i, 1});
    }
    map.swap(expanded);
    return "";
}

// Sorts by world rank and merges runs that continue in both world and local
// rank, so that the one-entry-per-member maps, the compact runs and the
// strided runs give the same canonical map. Returns what is wrong, or "".
// The scratch vectors are kept from map to map, for their room.
struct CanonicalScratch {
    RankMap merged;
    std::vector<std::pair<int64_t, int64_t>> locals;
};

std::string canonicalize(RankMap &map, int64_t worldSize, CanonicalScratch &scratch) {
    if (map.empty()) return "the map is empty";
    if (std::string wrong = expandStridedRuns(map, worldSize); !wrong.empty()) return wrong;
    if (!std::is_sorted(map.begin(), map.end(),
                        [](const RankRun &a, const RankRun &b) { return a.world < b.world; }))
        std::sort(map.begin(), map.end(),
                  [](const RankRun &a, const RankRun &b) { return a.world < b.world; });
    RankMap &merged = scratch.merged;
    merged.clear();
    for (const RankRun &run : map) {
        if (run.world + run.length > worldSize)
            return "the map names world rank " + std::to_string(run.world + run.length - 1) +
                   ", but the run has ranks 0.." + std::to_string(worldSize - 1);
        if (!merged.empty()) {
            RankRun &last = merged.back();
            if (run.world < last.world + last.length)
                return "the map names world rank " + std::to_string(run.world) + " twice";
            if (run.world == last.world + last.length && run.local == last.local + last.length) {
                last.length += run.length;
                continue;
            }
        }
        merged.push_back(run);
    }
    map.swap(merged);
    // The local ranks must be exactly 0..size-1.
    std::vector<std::pair<int64_t, int64_t>> &locals = scratch.locals;
    locals.clear();
    for (const RankRun &run : map)
        locals.emplace_back(run.local, run.length);
    std::sort(locals.begin(), locals.end());
    int64_t next = 0;
    for (const auto &[local, length] : locals) {
        if (local != next)
            return local < next ? "the map gives local rank " + std::to_string(local) + " twice"
                                : "the map has no member with local rank " + std::to_string(next);
        next += length;
    }
    return "";
}

template <class Map>
void memberSetOf(const Map &map, std::vector<MemberRange> &set) {
    set.clear();
    for (const RankRun &run : map) {
        if (!set.empty() && set.back().first + set.back().second == run.world)
            set.back().second += run.length;
        else
            set.emplace_back(run.world, run.length);
    }
}

template <class Map>
bool contains(const Map &map, int64_t world) {
    auto after =
        std::upper_bound(map.begin(), map.end(), world,
                         [](int64_t rank, const RankRun &run) { return rank < run.world; });
    if (after == map.begin()) return false;
    --after;
    return world < after->world + after->length;
}

// The lowest world rank in both sorted maps, or -1; linear in their runs.
template <class MapA, class MapB>
int64_t firstSharedRank(const MapA &a, const MapB &b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t low = std::max(a[i].world, b[j].world);
        const int64_t aEnd = a[i].world + a[i].length;
        const int64_t bEnd = b[j].world + b[j].length;
        if (low < std::min(aEnd, bEnd)) return low;
        if (aEnd < bEnd)
            ++i;
        else
            ++j;
    }
    return -1;
}

// What a Comm record's maps give, the same for every rank whose line it is:
// worked out once per distinct record, and kept by the record's ordinal.
struct RecordShape {
    bool known = false;
    uint32_t groupWrong = 0;   // what is wrong with the map: 0, or 1 + index into problems_
    uint32_t remoteWrong = 0;  // the same for the remote group
    int64_t sharedRank = -1;   // a world rank in both groups, or -1
    uint32_t ownGroup = 0;     // canonical map of the record's (local) group
    CommKey key;               // position not set
    uint32_t firstGroup = 0;   // canonical maps in the order of key.first, key.second
    uint32_t secondGroup = 0;
};

constexpr uint32_t kNoMap = 0;  // the canonical map id of the empty map

struct Entry {
    UnifiedCommunicator communicator;
    uint32_t firstGroup = kNoMap;   // canonical; the whole map of an intracommunicator
    uint32_t secondGroup = kNoMap;  // intercommunicators only
    std::vector<int64_t> prefix;    // members before each run of communicator.members
    SourceLine definedAt;
    int64_t definedBy = 0;
    bool world = false;
};

class Unifier {
  public:
    Unifier(const RunModel &run, Diagnostics &diagnostics)
        : run_(run),
          diagnostics_(diagnostics),
          worldSize_(run.worldSize),
          shapes_(run.records ? run.records->comms.size() : 0),
          // Most runs have about as many communicators as distinct Comm lines.
          index_(shapes_.size()) {
        internMap(RankMap());  // kNoMap: the remote group of an intracommunicator
        entries_.reserve(shapes_.size());
    }

    void addRank(const RankModel &rank) {
        std::vector<const LocatedComm *> &comms = rankComms_;
        comms.clear();
        for (const LocatedComm &comm : rank.comms)
            comms.push_back(&comm);
        // By id, then in line order: the rank's lines lie in order in one
        // array. std::stable_sort would allocate a buffer for every rank.
        std::sort(comms.begin(), comms.end(), [](const auto *a, const auto *b) {
            return a->record.id != b->record.id ? a->record.id < b->record.id : a < b;
        });
        positions_.clear(comms.size());
        const LocatedComm *previous = nullptr;
        for (const LocatedComm *comm : comms) {
            if (previous && previous->record.id == comm->record.id) {
                // Another thread's line for the same communicator.
                if (!sameRaw(previous->record, comm->record))
                    problem(*comm, "communicator id=" + std::to_string(comm->record.id) +
                                       " is defined differently at " + place(previous->source));
                continue;
            }
            previous = comm;
            addEntry(rank, *comm);
        }
    }

    std::vector<UnifiedCommunicator> finish() {
        std::vector<UnifiedCommunicator> result;
        std::vector<bool> world;
        result.reserve(entries_.size());
        for (Entry &entry : entries_) {
            if (entry.world) entry.communicator.name = "WORLD";
            world.push_back(entry.world);
            result.push_back(std::move(entry.communicator));
        }
        makeNamesUnique(result, world);
        return result;
    }

    // The Java reader keys communicators by name and keeps one per name
    // (docs/format/project.md): each rank's MPI_COMM_SELF becomes "SELF <world rank>", and
    // any other non-empty name that would repeat gets " #2", " #3", ... in
    // list order. WORLD keeps its name; empty names may repeat.
    static void makeNamesUnique(std::vector<UnifiedCommunicator> &communicators,
                                const std::vector<bool> &world) {
        // name -> last suffix given; the names are views of the communicators'
        // names, each changed only before it is added.
        FlatMap<TextKey, int64_t, TextKeyHash, TextKeyEqual> used(communicators.size());
        // WORLD and the SELF names first: they are the tools' names for those
        // communicators, and a program's own communicator must not take them.
        std::vector<bool> reserved(communicators.size(), false);
        for (size_t i = 0; i < communicators.size(); ++i) {
            UnifiedCommunicator &communicator = communicators[i];
            if (world[i]) {
                reserved[i] = used.tryEmplace(TextKey::of("WORLD"), 1).second;
            } else if (communicator.name == "SELF" && !communicator.intercommunicator &&
                       communicator.members.size() == 1 && communicator.members[0].length == 1) {
                communicator.name += " " + std::to_string(communicator.members[0].world);
                reserved[i] = used.tryEmplace(TextKey::of(communicator.name), 1).second;
            }
        }
        for (size_t i = 0; i < communicators.size(); ++i) {
            std::string &name = communicators[i].name;
            if (name.empty() || reserved[i]) continue;
            const auto [found, added] = used.tryEmplace(TextKey::of(name), 1);
            if (added) continue;
            int64_t &lastSuffix = *found;
            const std::string base = name;
            do {
                name = base + " #" + std::to_string(++lastSuffix);
            } while (used.find(TextKey::of(name)));
            used.tryEmplace(TextKey::of(name), 1);
        }
    }

  private:
    static bool sameRaw(const CommRecord &a, const CommRecord &b) {
        if (&a == &b) return true;  // the same line text
        return a.intercommunicator == b.intercommunicator && a.map == b.map && a.remote == b.remote;
    }

    std::string place(const SourceLine &source) const {
        return run_.infoPathOf(source) + ":" + std::to_string(source.line);
    }

    void problem(const LocatedComm &comm, const std::string &what) {
        diagnostics_.problem(run_.infoPathOf(comm.source), comm.source.line, "Comm line: " + what,
                             "this rank's entry of the communicator");
    }

    // The canonical maps are kept once each; equal maps have equal ids.
    uint32_t internMap(const RankMap &map) {
        const uint32_t id = maps_.intern(map);
        if (id == mapMembers_.size()) {
            memberSetOf(map, memberScratch_);
            mapMembers_.push_back(memberSets_.intern(memberScratch_));
        }
        return id;
    }

    // Keeps what is wrong with a record's map; its number in RecordShape.
    uint32_t keepProblem(std::string what) {
        if (what.empty()) return 0;
        problems_.push_back(std::move(what));
        return static_cast<uint32_t>(problems_.size());
    }

    const std::string &problemText(uint32_t problem) const { return problems_[problem - 1]; }

    const RecordShape &shapeOf(const CommRecord &record) {
        RecordShape &shape = shapes_[record.ordinal];
        if (shape.known) return shape;
        shape.known = true;
        RankMap &group = groupScratch_;
        group = record.map;
        shape.groupWrong = keepProblem(canonicalize(group, worldSize_, scratch_));
        if (shape.groupWrong) return shape;
        shape.ownGroup = internMap(group);
        shape.key.inter = record.intercommunicator;
        shape.key.first = mapMembers_[shape.ownGroup];
        shape.firstGroup = shape.ownGroup;
        if (!shape.key.inter) return shape;
        RankMap &remote = groupScratch_;
        remote = record.remote;
        shape.remoteWrong = keepProblem(canonicalize(remote, worldSize_, scratch_));
        if (shape.remoteWrong) return shape;
        shape.sharedRank = firstSharedRank(maps_[shape.ownGroup], remote);
        if (shape.sharedRank >= 0) return shape;
        shape.secondGroup = internMap(remote);
        shape.key.second = mapMembers_[shape.secondGroup];
        if (shape.key.second < shape.key.first) {
            std::swap(shape.key.first, shape.key.second);
            std::swap(shape.firstGroup, shape.secondGroup);
        }
        return shape;
    }

    void addEntry(const RankModel &rank, const LocatedComm &comm) {
        // Built only for a message: most entries have none.
        const auto idText = [&comm] { return "communicator id=" + std::to_string(comm.record.id); };
        const RecordShape &shape = shapeOf(comm.record);
        if (shape.groupWrong) return problem(comm, idText() + ": " + problemText(shape.groupWrong));
        if (!contains(maps_[shape.ownGroup], rank.rank))
            return problem(comm, idText() + ": the map does not contain this rank (" +
                                     std::to_string(rank.rank) + ")");
        if (shape.remoteWrong)
            return problem(comm, idText() + ": remote group: " + problemText(shape.remoteWrong));
        if (shape.sharedRank >= 0)
            return problem(comm, idText() + ": world rank " + std::to_string(shape.sharedRank) +
                                     " is in both groups");
        CommKey key = shape.key;
        key.position = (*positions_.tryEmplace(key, 0).first)++;

        const auto [found, added] = index_.tryEmplace(key, static_cast<uint32_t>(entries_.size()));
        const uint32_t entryIndex = *found;
        if (added) {
            entries_.push_back(makeEntry(rank, comm, key, shape));
        } else {
            Entry &entry = entries_[entryIndex];
            if (entry.firstGroup != shape.firstGroup || entry.secondGroup != shape.secondGroup)
                return problem(comm, idText() + " contradicts rank " +
                                         std::to_string(entry.definedBy) + "'s map at " +
                                         place(entry.definedAt) +
                                         ": same members and position, different local ranks");
            if (entry.communicator.name.empty()) entry.communicator.name = comm.record.name;
        }
        Entry &entry = entries_[entryIndex];
        entry.communicator.cids[memberIndex(entry, rank.rank)] = comm.record.id;
    }

    Entry makeEntry(const RankModel &rank, const LocatedComm &comm, const CommKey &key,
                    const RecordShape &shape) {
        const Span<RankRun> group = maps_[shape.firstGroup];
        const Span<RankRun> remote = maps_[shape.secondGroup];
        Entry entry;
        entry.definedAt = comm.source;
        entry.definedBy = rank.rank;
        entry.communicator.name = comm.record.name;
        entry.communicator.intercommunicator = key.inter;
        RankMap &members = entry.communicator.members;
        members.reserve(group.size() + remote.size());
        std::merge(group.begin(), group.end(), remote.begin(), remote.end(),
                   std::back_inserter(members),
                   [](const RankRun &a, const RankRun &b) { return a.world < b.world; });
        int64_t count = 0;
        entry.prefix.reserve(members.size());
        for (const RankRun &run : members) {
            entry.prefix.push_back(count);
            count += run.length;
        }
        entry.communicator.cids.assign(static_cast<size_t>(count), -1);
        entry.world = !key.inter && key.position == 0 && group.size() == 1 && group[0].world == 0 &&
                      group[0].length == worldSize_;
        entry.firstGroup = shape.firstGroup;
        entry.secondGroup = shape.secondGroup;
        return entry;
    }

    static size_t memberIndex(const Entry &entry, int64_t world) {
        const RankMap &members = entry.communicator.members;
        auto after =
            std::upper_bound(members.begin(), members.end(), world,
                             [](int64_t rank, const RankRun &run) { return rank < run.world; });
        const size_t run = static_cast<size_t>(after - members.begin()) - 1;
        return static_cast<size_t>(entry.prefix[run] + (world - members[run].world));
    }

    const RunModel &run_;
    Diagnostics &diagnostics_;
    int64_t worldSize_;
    InternedSequences<RankRun, RankRunHash> maps_;                // canonical maps, by id
    InternedSequences<MemberRange, MemberRangeHash> memberSets_;  // by id
    std::vector<uint32_t> mapMembers_;                            // by map id: its member set
    CanonicalScratch scratch_;
    RankMap groupScratch_;
    std::vector<MemberRange> memberScratch_;
    std::vector<RecordShape> shapes_;  // by record ordinal
    std::vector<std::string> problems_;
    FlatMap<CommKey, uint32_t, CommKeyHash, std::equal_to<CommKey>> index_;
    FlatMap<CommKey, uint32_t, CommKeyHash, std::equal_to<CommKey>>
        positions_;                               // of the current rank
    std::vector<const LocatedComm *> rankComms_;  // of the current rank, by id
    std::vector<Entry> entries_;
};

}  // namespace

std::vector<UnifiedCommunicator> unifyCommunicators(
    const RunModel &run, Diagnostics &diagnostics,
    const std::function<void(size_t, size_t)> &progress) {
    Unifier unifier(run, diagnostics);
    const size_t total = run.ranks.size();
    for (size_t rank = 0; rank < total; ++rank) {
        unifier.addRank(run.ranks[rank]);
        if (progress && (rank % 1024 == 1023 || rank + 1 == total)) progress(rank + 1, total);
    }
    return unifier.finish();
}

}  // namespace hdtrace::merger
