#include "ClockSync.hpp"

#include <algorithm>
#include <climits>

#include <mpi.h>

#include <hdtrace/InfoLine.hpp>
#include <hdtrace/Timestamp.hpp>

namespace hdtracempi {

namespace {

// Pings per leader and occasion: the first ones also set up the connection
// (Open MPI connects lazily), and 20 leave enough quiet round trips for the
// minimum even under load; 1,000 hosts at 20 x 3 us cost 60 ms.
constexpr int kExchanges = 20;

int64_t readClock(const ClockShift &shift) {
    return shift.read(hdtrace::Timestamp::now().nanoseconds);
}

// The largest tag MPI allows here: own messages use it so that even a
// program's message left unreceived (erroneous at MPI_Finalize) is unlikely
// to share their envelope.
int ownTag() {
    void *value = nullptr;
    int found = 0;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found) != MPI_SUCCESS || !found ||
        !value)
        return 32767;  // the least MPI_TAG_UB the standard allows
    return *static_cast<int *>(value);
}

}  // namespace

uint64_t clockIdOf(uint64_t hostId, const ClockShift &shift) {
    if (!shift.active()) return hostId;
    return (hostId ^ shift.identity) * 1099511628211ull + 0x9e3779b97f4a7c15ull;
}

ClockGroups clockGroupsOf(const std::vector<uint64_t> &clockIds, int worldRank) {
    ClockGroups groups;
    for (int rank = 0; rank < static_cast<int>(clockIds.size()); ++rank) {
        const auto first = std::find(clockIds.begin(), clockIds.end(), clockIds[rank]);
        const int leader = static_cast<int>(first - clockIds.begin());
        if (leader == rank) groups.leaders.push_back(rank);
        if (rank == worldRank) groups.leader = leader;
    }
    if (groups.leaders.empty()) groups.leaders.push_back(0);
    groups.groupIndex =
        static_cast<int>(std::find(groups.leaders.begin(), groups.leaders.end(), groups.leader) -
                         groups.leaders.begin());
    return groups;
}

bool measureClockOffset(const ClockGroups &groups, int worldRank, const ClockShift &shift,
                        const char *occasion, ClockMeasurement *out) {
    const int tag = ownTag();
    // Per group: time (leader's clock), offset, round trip.
    std::vector<int64_t> results(3 * groups.leaders.size(), 0);
    if (worldRank == 0) {
        for (size_t group = 1; group < groups.leaders.size(); ++group) {
            const int leader = groups.leaders[group];
            int64_t best = INT64_MAX;
            for (int exchange = 0; exchange < kExchanges; ++exchange) {
                const int64_t sent = readClock(shift);
                int64_t answer = 0;
                if (PMPI_Send(&sent, 1, MPI_INT64_T, leader, tag, MPI_COMM_WORLD) != MPI_SUCCESS ||
                    PMPI_Recv(&answer, 1, MPI_INT64_T, leader, tag, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE) != MPI_SUCCESS)
                    return false;
                const int64_t received = readClock(shift);
                const int64_t roundTrip = received - sent;
                if (roundTrip < best) {
                    best = roundTrip;
                    results[3 * group] = answer;
                    // The leader read its clock halfway through, as far as
                    // the two directions take equally long.
                    results[3 * group + 1] = answer - (sent + roundTrip / 2);
                    results[3 * group + 2] = roundTrip;
                }
            }
        }
        results[0] = readClock(shift);
    } else if (worldRank == groups.leader) {
        for (int exchange = 0; exchange < kExchanges; ++exchange) {
            int64_t ping = 0;
            if (PMPI_Recv(&ping, 1, MPI_INT64_T, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS)
                return false;
            const int64_t now = readClock(shift);
            if (PMPI_Send(&now, 1, MPI_INT64_T, 0, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
                return false;
        }
    }
    if (PMPI_Bcast(results.data(), static_cast<int>(results.size()), MPI_INT64_T, 0,
                   MPI_COMM_WORLD) != MPI_SUCCESS)
        return false;
    const size_t group = static_cast<size_t>(groups.groupIndex);
    out->occasion = occasion;
    out->time = results[3 * group];
    out->offset = results[3 * group + 1];
    out->roundTrip = results[3 * group + 2];
    out->leader = groups.leader;
    out->exchanges = group == 0 ? 0 : kExchanges;
    return true;
}

std::string clockLine(const ClockMeasurement &measurement) {
    std::string line;
    hdtrace::InfoLineWriter(line, "Clock")
        .text(measurement.occasion)
        .integer(measurement.time)
        .integer(measurement.offset)
        .integer(measurement.roundTrip)
        .integer(measurement.leader)
        .integer(measurement.exchanges)
        .end();
    return line;
}

}  // namespace hdtracempi
