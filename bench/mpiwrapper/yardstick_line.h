/* The shared per-call yardstick's protocol, for benchmark programs that its
 * run.sh runs beside mpibench: the timed loop measured in YARDSTICK_CHUNKS
 * equal parts, whose median part times their number is the robust time,
 * and the one line rank 0 prints, which run.sh reads. */
#ifndef HDTRACE_BENCH_YARDSTICK_LINE_H
#define HDTRACE_BENCH_YARDSTICK_LINE_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { YARDSTICK_CHUNKS = 50 };

static double yardstickNow(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int yardstickCompare(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* After iteration i (from 0) of the timed loop of iterations, measured in
 * parts of perChunk iterations: ends the part that iteration closes. */
static void yardstickIterationDone(double chunk[YARDSTICK_CHUNKS], long i, long perChunk,
                                   double *chunkStart) {
    if ((i + 1) % perChunk != 0) return;
    const double t = yardstickNow();
    chunk[(i + 1) / perChunk - 1] = t - *chunkStart;
    *chunkStart = t;
}

/* The median part's time times the number of parts: the loop's time
 * without the parts another process slowed down (sorts chunk). */
static double yardstickRobustSeconds(double chunk[YARDSTICK_CHUNKS]) {
    qsort(chunk, YARDSTICK_CHUNKS, sizeof chunk[0], yardstickCompare);
    return 0.5 * (chunk[YARDSTICK_CHUNKS / 2 - 1] + chunk[YARDSTICK_CHUNKS / 2]) *
           YARDSTICK_CHUNKS;
}

/* calls: this rank's calls in the timed loop; total: all ranks'. */
static void yardstickPrint(const char *name, int ranks, long calls, double seconds,
                           long iterations, long total, double robustSeconds,
                           double finalizeSeconds) {
    printf("case=%s ranks=%d calls=%ld seconds=%.6f iters=%ld warmup=%ld totalcalls=%ld "
           "robust_seconds=%.6f finalize_seconds=%.6f\n",
           name, ranks, calls, seconds, iterations, iterations / 10, total, robustSeconds,
           finalizeSeconds);
}

#endif
