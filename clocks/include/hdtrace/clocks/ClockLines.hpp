// The clock lines of a trace's .info (docs/user/clocks.md):
//
//   Clock at='<occasion>' time=<ns> offset=<ns> rtt=<ns> leader=<rank> exchanges=<n>
//   ClockAligned backup='<file>'
//
// The first is a measurement: at time <ns> of this rank's clock, the clock was
// ahead of rank 0's by <offset>. The second says that the trace was rewritten
// on rank 0's clock and where the original is kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hdtrace::clocks {

struct ClockMeasurement {
    std::string occasion;  // "init" or "finalize"
    int64_t timeNs = 0;    // this rank's clock at the measurement, epoch ns
    int64_t offsetNs = 0;  // this rank's clock minus rank 0's
    int64_t rttNs = 0;     // round trip of the exchange kept (0 in rank 0's group)
    int64_t leader = 0;    // the rank whose exchanges measured this clock
    int64_t exchanges = 0;
};

struct InfoClock {
    std::string path;
    std::vector<ClockMeasurement> measurements;
    std::optional<std::string> alignedBackup;  // the backup's file name once aligned
};

// "<dir>/<base>.info" for "<dir>/<base>.trc" or "<dir>/<base>.ctrc".
std::string infoPathOf(const std::string &tracePath);

// The Clock and ClockAligned lines of one .info. A line that starts with the
// word Clock or ClockAligned but does not have its form is a ReadError with
// the file and line. Lines of other kinds are skipped.
InfoClock readInfoClock(const std::string &infoPath);

// The ClockAligned line that `backupName` gets in an aligned trace's .info.
std::string alignedLine(const std::string &backupName);

}  // namespace hdtrace::clocks
