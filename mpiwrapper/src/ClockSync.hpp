// ClockSync: the offset of each host's clock against rank 0's, measured in
// MPI_Init and MPI_Finalize and written to the .info as `Clock` lines
// (docs/user/clocks.md), from which `hdtrace align` and the Python
// reader put every trace on rank 0's time line.
//
// Ranks that share a clock (one host; with HDTRACE_CLOCK_SKEW, one emulated
// host) form a group. Only the group's lowest rank, its leader, exchanges
// messages with rank 0: rank 0 sends it kExchanges pings, the leader answers
// each with its clock, and rank 0 keeps the exchange with the shortest
// round trip, whose offset is off by at most half of it. One MPI_Bcast from
// rank 0 then hands every rank its group's result. So the cost grows with
// the number of hosts, not of ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "TestHooks.hpp"

namespace hdtracempi {

struct ClockMeasurement {
    const char *occasion = "";  // "init" or "finalize"
    int64_t time = 0;           // this process's clock at the measurement, epoch ns
    int64_t offset = 0;         // this process's clock minus rank 0's, ns
    int64_t roundTrip = 0;      // of the exchange kept, ns (0 in rank 0's group)
    int leader = 0;             // world rank whose exchanges measured this clock
    int exchanges = 0;          // pings sent to the leader (0 in rank 0's group)
};

struct ClockGroups {
    std::vector<int> leaders;  // the lowest world rank of each group, ascending; [0] is 0
    int leader = 0;            // this rank's group's leader
    int groupIndex = 0;        // index of that leader in leaders
};

// Which ranks share a clock: clockIds[r] is rank r's clock id (equal ids,
// equal clocks).
ClockGroups clockGroupsOf(const std::vector<uint64_t> &clockIds, int worldRank);

// This process's clock id: its host's id, told apart by its shift when a
// test makes it emulate another host.
uint64_t clockIdOf(uint64_t hostId, const ClockShift &shift);

// Collective over MPI_COMM_WORLD: every rank calls it, with the same
// groups, at a point where no receive of the program is pending. Times are
// read through shift. False if an MPI call failed (out stays as it was).
bool measureClockOffset(const ClockGroups &groups, int worldRank, const ClockShift &shift,
                        const char *occasion, ClockMeasurement *out);

// "Clock at='init' time=<ns> offset=<ns> rtt=<ns> leader=<rank> exchanges=<n>\n"
std::string clockLine(const ClockMeasurement &measurement);

}  // namespace hdtracempi
