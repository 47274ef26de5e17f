/*
 * hdtrace-states: libhdtrace used on its own, without MPI.
 *
 * Simulates a small checkpointing program: each step computes, then writes a
 * block of its checkpoint file in pieces. The write is a state with a
 * <Data> child per piece and one nested state per flush.
 *
 *     hdtrace-states [output-directory] [steps]
 *
 * writes <dir>/hdtrace-states_<host>_0_0.trc and .info.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <hdtrace/hdTrace.h>

static void busyWait(long nanoseconds) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
             nanoseconds);
}

int main(int argc, char **argv) {
    const char *directory = argc > 1 ? argv[1] : ".";
    const int steps = argc > 2 ? atoi(argv[2]) : 5;
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    const char *levels[] = {host, "0", "0"};

    hdTrace trace = hdT_createTrace(directory, "hdtrace-states", 3, levels);
    if (!trace) {
        perror("hdtrace-states: cannot create the trace");
        return 1;
    }
    hdT_setNestedDepth(trace, 1);
    hdT_writeInfo(trace, "File name=\"checkpoint.dat\" Size=0 id=0\n");

    const long long blockSize = 1 << 20;
    for (int step = 0; step < steps; ++step) {
        hdT_logStateStart(trace, "Compute");
        hdT_logAttributes(trace, "step='%d'", step);
        busyWait(200000);
        hdT_logStateEnd(trace);

        hdT_logStateStart(trace, "Checkpoint");
        hdT_logAttributes(trace, "fid='%d' offset='%lld' size='%lld'", 0, step * blockSize,
                          blockSize);
        for (int piece = 0; piece < 4; ++piece) {
            hdT_logElement(trace, "Data", "offset='%lld' size='%lld'",
                           step * blockSize + piece * (blockSize / 4), blockSize / 4);
            hdT_logStateStart(trace, "Flush");
            hdT_logAttributes(trace, "piece='%d'", piece);
            busyWait(20000);
            hdT_logStateEnd(trace);
        }
        hdT_logStateEnd(trace);
    }
    if (hdT_finalize(trace) != 0) {
        perror("hdtrace-states: finalizing the trace");
        return 1;
    }
    printf("hdtrace-states: %d steps traced into %s/hdtrace-states_*.trc\n", steps, directory);
    return 0;
}
