/* posixbench.c: the cost the POSIX layer adds to one C library call, in the
 * shared harness's format (its run.sh and summarize.py read the output).
 *
 *   posixbench <case> [iters] [iodir]
 *
 *   case    ranks  calls per iteration per rank (timed loop)         default iters
 *   pwrite   any   1  pwrite of 16 B at contiguous offsets, to a file   200,000
 *                     of this rank (<iodir>/posixbench.<pid>.<rank>.dat,
 *                     removed at exit), opened with open()
 *   noop     any   0  only setup and teardown (the fixed trace bytes)
 *
 * Output (rank 0, one line, after MPI_Finalize), as the harness's mpibench:
 *   case=<name> ranks=<n> calls=<per-rank calls in the timed loop>
 *   seconds=<t> iters=<N> warmup=<W> totalcalls=<every traced call of every
 *   rank: MPI and C library> robust_seconds=<t> finalize_seconds=<t>
 * robust_seconds: the loop in 100 chunks timed with clock_gettime, the
 * median chunk times 100. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

enum { CHUNKS = 100, RECORD = 16 };

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + 1e-9 * now.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    long calls = 2; /* MPI_Init, MPI_Comm_rank */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    calls++;
    const char *name = argc > 1 ? argv[1] : "";
    const int pwrite_case = strcmp(name, "pwrite") == 0;
    if (!pwrite_case && strcmp(name, "noop") != 0) {
        if (rank == 0) fprintf(stderr, "usage: %s pwrite|noop [iters] [iodir]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long iters = argc > 2 && argv[2][0] ? atol(argv[2]) : 200000;
    const char *iodir = argc > 3 && argv[3][0] ? argv[3] : ".";
    if (!pwrite_case) iters = 0;
    const long warmup = iters / 10;
    char path[4096] = "";
    char record[RECORD];
    memset(record, 'x', sizeof record);
    double chunk[CHUNKS];
    double t0 = 0, t1 = 0, robust = 0;
    if (pwrite_case) {
        snprintf(path, sizeof path, "%s/posixbench.%d.%d.dat", iodir, (int)getpid(), rank);
        const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        calls++;
        if (fd < 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        off_t offset = 0;
        for (long i = 0; i < warmup; ++i, offset += RECORD)
            pwrite(fd, record, RECORD, offset);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        const long per_chunk = iters / CHUNKS;
        long i = 0;
        for (int c = 0; c < CHUNKS; ++c) {
            const double start = monotonic_seconds();
            for (const long end = i + per_chunk; i < end; ++i, offset += RECORD)
                pwrite(fd, record, RECORD, offset);
            chunk[c] = monotonic_seconds() - start;
        }
        for (; i < iters; ++i, offset += RECORD)
            pwrite(fd, record, RECORD, offset);
        t1 = MPI_Wtime();
        calls += 3 + warmup + iters;
        close(fd);
        calls++;
        qsort(chunk, CHUNKS, sizeof chunk[0], by_value);
        robust = 0.5 * (chunk[CHUNKS / 2 - 1] + chunk[CHUNKS / 2]) / per_chunk * iters;
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        t1 = MPI_Wtime();
        calls += 3;
    }
    long mine = calls + 2, total = 0; /* + this Reduce and MPI_Finalize */
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const double f0 = monotonic_seconds();
    MPI_Finalize();
    const double f1 = monotonic_seconds();
    if (path[0]) unlink(path);
    if (rank == 0) {
        printf(
            "case=%s ranks=%d calls=%ld seconds=%.6f iters=%ld warmup=%ld totalcalls=%ld "
            "robust_seconds=%.6f finalize_seconds=%.6f\n",
            name, size, pwrite_case ? iters : 0L, t1 - t0, iters, warmup, total, robust, f1 - f0);
        fflush(stdout);
    }
    return 0;
}
