/* timing.c: the times the wrapper writes against the program's own clock.
 *
 * Around every MPI_Iprobe the program reads clock_gettime(CLOCK_REALTIME)
 * and prints "before after" in nanoseconds; the call's time and end must lie
 * in between. Bursts of calls alternate with idle gaps of 0.1 to 2 ms for
 * about 1.5 s, so that the wrapper's clock goes through its calibration,
 * many re-anchorings after short and long gaps, and a rate update. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static long long realtimeNanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const long long stop = realtimeNanoseconds() + 1500000000LL;
    for (int burst = 0; realtimeNanoseconds() < stop; ++burst) {
        for (int i = 0; i < 20; ++i) {
            int flag = 0;
            const long long before = realtimeNanoseconds();
            MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
            const long long after = realtimeNanoseconds();
            printf("%lld %lld\n", before, after);
        }
        usleep(100 + (burst % 20) * 100);
    }
    MPI_Finalize();
    return 0;
}
