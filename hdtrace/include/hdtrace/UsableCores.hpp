// How many threads a tool should run for work spread over cores.
#pragma once

#include <sched.h>

#include <algorithm>
#include <thread>

namespace hdtrace {

// The cores this process may run on: its CPU affinity, as taskset, numactl
// or a batch system's cpuset leave it, not every core of the node (which
// std::thread::hardware_concurrency counts), so that a process given one
// core does not interleave threads on it, each holding its own work.
inline unsigned usableCores() {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        const int count = CPU_COUNT(&allowed);
        if (count > 0) return static_cast<unsigned>(count);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace hdtrace
