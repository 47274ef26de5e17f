// What a reading of the writer's clock costs, and how far it strays from
// clock_gettime(CLOCK_REALTIME), on this machine:
//
//   bench_clock_readings [SECONDS]
//
// Prints the kernel's clock source and the clock's choice, then ns per
// reading of the TSC clock once calibrated, of the clock during its first
// 5 ms (calibrating), of HDTRACE_CLOCK=realtime and of clock_gettime itself;
// then, for SECONDS (default 2), how far TSC readings fall outside the
// clock_gettime readings just before and after them, with the thread moved
// to another CPU every 65,536 readings where it may run on several. Figures
// only; nothing is asserted.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <hdtrace/Clock.hpp>

namespace {

using hdtrace::Clock;
using hdtrace::Timestamp;

int64_t realtime() {
    return Timestamp::now().nanoseconds;
}

// ns per reading over about 0.2 s, best of 5 loops.
template <class Read>
double perReading(Read read) {
    double best = 1e18;
    for (int loop = 0; loop < 5; ++loop) {
        int64_t sum = 0;
        const long count = 4000000;
        const int64_t start = realtime();
        for (long i = 0; i < count; ++i)
            sum += read();
        const int64_t end = realtime();
        if (sum == 42) std::puts("");  // keeps the readings
        best = std::min(best, static_cast<double>(end - start) / static_cast<double>(count));
    }
    return best;
}

// ns per reading in the first 5 ms of fresh clocks, best of 20.
double perReadingWhileCalibrating() {
    double best = 1e18;
    for (int round = 0; round < 20; ++round) {
        Clock clock(Clock::Source::Tsc);
        int64_t sum = 0;
        long count = 0;
        const int64_t start = realtime();
        int64_t end = start;
        while (end - start < 5000000) {
            for (int i = 0; i < 100; ++i)
                sum += clock.now().nanoseconds;
            count += 100;
            end = realtime();
        }
        if (sum == 42) std::puts("");
        best = std::min(best, static_cast<double>(end - start) / static_cast<double>(count));
    }
    return best;
}

std::string clockSource() {
    std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string name;
    std::getline(in, name);
    return name.empty() ? "unknown" : name;
}

std::vector<int> allowedCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    return cpus;
}

void moveTo(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

}  // namespace

int main(int argc, char **argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
    if (!(seconds > 0)) {
        std::fprintf(stderr, "usage: %s [SECONDS > 0]\n", argv[0]);
        return 2;
    }
    std::printf("kernel clock source: %s; the TSC clock is %s here\n", clockSource().c_str(),
                Clock::tscUsableHere() ? "used" : "not used (clock_gettime instead)");

    Clock tsc(Clock::Source::Tsc);
    usleep(20000);  // past its calibration
    Clock realtimeClock(Clock::Source::Realtime);
    std::printf(
        "ns per reading: TSC clock %.1f, while calibrating %.1f, HDTRACE_CLOCK=realtime "
        "%.1f, clock_gettime %.1f\n",
        perReading([&] { return tsc.now().nanoseconds; }), perReadingWhileCalibrating(),
        perReading([&] { return realtimeClock.now().nanoseconds; }), perReading(realtime));

    const std::vector<int> cpus = allowedCpus();
    int64_t below = 0, above = 0;
    long readings = 0, moves = 0;
    size_t next = 0;
    const int64_t stop = realtime() + static_cast<int64_t>(seconds * 1e9);
    for (;;) {
        const int64_t before = realtime();
        const int64_t reading = tsc.now().nanoseconds;
        const int64_t after = realtime();
        below = std::max(below, before - reading);
        above = std::max(above, reading - after);
        if (after > stop) break;
        if ((++readings & 0xffff) == 0 && cpus.size() > 1) {
            next = (next + 1) % cpus.size();
            moveTo(cpus[next]);
            ++moves;
        }
    }
    std::printf(
        "over %.1f s, %ld readings, %ld moves between %zu CPUs: at most %lld ns below "
        "and %lld ns above the clock_gettime bracket; the TSC strayed %d times\n",
        seconds, readings, moves, cpus.size(), static_cast<long long>(below),
        static_cast<long long>(above), tsc.strays());
    return 0;
}
