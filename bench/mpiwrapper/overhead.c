/*
 * bench_mpi_overhead: the MPI calls of the tracing-overhead benchmark.
 *
 *     mpiexec -n R bench_mpi_overhead CASE ITERATIONS [FILE]
 *
 * Runs ITERATIONS of one case and prints, from rank 0, one line
 * "ns_per_iteration=<float> calls_per_iteration=<int>" where a call is one
 * traced MPI call of rank 0. The same binary runs untraced and traced
 * (LD_PRELOAD of libhdtracempi.so), so both execute identical code.
 *
 * Cases: iprobe (1 rank), pingpong (2), isend-irecv-waitall (2),
 * allreduce (2), file-write-at (1; FILE is the file to write), put-fence (2:
 * a one-double MPI_Put to the other rank, then MPI_Win_fence; on 1 rank to
 * itself; Open MPI needs OMPI_MCA_osc=pt2pt in this container),
 * iallreduce-wait (2), timestep-io (2; FILE is the shared file): one step of
 * a simulation per iteration: a halo exchange (Isend, Irecv, Waitall) of 8
 * doubles with the other rank, four Iprobes polling for messages, an
 * Allreduce of the residual, and every step a 4 KiB MPI_File_write_at of
 * the rank's slice into FILE (its nested pwrites with it): the mix of cheap
 * frequent calls and I/O that hdtrace score -g is meant for.
 * iprobe-after-syscall (1): a getppid system call, then the Iprobe; the
 * untraced run makes the system call too, so what tracing adds is what the
 * same Iprobe's state costs when the kernel ran just before it, as it does
 * before the end of every file call (where the kernel isolates its page
 * tables, the TLB is flushed and every page is walked to again).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static double nowNanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void usage(void) {
    fprintf(stderr,
            "usage: bench_mpi_overhead CASE ITERATIONS [FILE]\n"
            "cases: iprobe iprobe-after-syscall pingpong isend-irecv-waitall allreduce "
            "file-write-at put-fence iallreduce-wait timestep-io\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) usage();
    const char *benchCase = argv[1];
    const long iterations = atol(argv[2]);
    const int peer = 1 - rank;
    int callsPerIteration = 0;
    double start = 0, end = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(benchCase, "iprobe") == 0) {
        int flag;
        MPI_Status status;
        callsPerIteration = 1;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        }
        end = nowNanoseconds();
    } else if (strcmp(benchCase, "iprobe-after-syscall") == 0) {
        int flag;
        MPI_Status status;
        callsPerIteration = 1;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            /* syscall(): glibc may one day answer getppid() without the kernel. */
            (void)syscall(SYS_getppid);
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        }
        end = nowNanoseconds();
    } else if (strcmp(benchCase, "pingpong") == 0) {
        if (size != 2) usage();
        char byte = 0;
        callsPerIteration = 2;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            if (rank == 0) {
                MPI_Send(&byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(&byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            }
        }
        end = nowNanoseconds();
    } else if (strcmp(benchCase, "isend-irecv-waitall") == 0) {
        if (size != 2) usage();
        double out = 1.0, in = 0.0;
        MPI_Request requests[2];
        callsPerIteration = 3;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            MPI_Irecv(&in, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &requests[0]);
            MPI_Isend(&out, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &requests[1]);
            MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        }
        end = nowNanoseconds();
    } else if (strcmp(benchCase, "allreduce") == 0) {
        double value = rank, sum = 0;
        callsPerIteration = 1;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        end = nowNanoseconds();
    } else if (strcmp(benchCase, "iallreduce-wait") == 0) {
        /* A nonblocking collective and the Wait that writes its <For>. */
        double value = rank, sum = 0;
        MPI_Request request;
        callsPerIteration = 2;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            MPI_Iallreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
        end = nowNanoseconds();
    } else if (strcmp(benchCase, "file-write-at") == 0) {
        if (argc < 4 || size != 1) usage();
        MPI_File file;
        char block[16];
        memset(block, 'x', sizeof block);
        MPI_File_open(MPI_COMM_SELF, argv[3], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &file);
        callsPerIteration = 1;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            /* A 1 MiB window of offsets: realistic, yet the file stays small. */
            const MPI_Offset offset = (MPI_Offset)(i % 65536) * (MPI_Offset)sizeof block;
            MPI_File_write_at(file, offset, block, sizeof block, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        end = nowNanoseconds();
        MPI_File_close(&file);
    } else if (strcmp(benchCase, "put-fence") == 0) {
        if (size > 2) usage();
        double exposed[2] = {0, 0}, value = rank;
        MPI_Win win;
        MPI_Win_create(exposed, sizeof exposed, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                       &win);
        MPI_Win_fence(0, win);
        callsPerIteration = 2;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            MPI_Put(&value, 1, MPI_DOUBLE, size == 2 ? peer : 0, i % 2, 1, MPI_DOUBLE, win);
            MPI_Win_fence(0, win);
        }
        end = nowNanoseconds();
        MPI_Win_free(&win);
    } else if (strcmp(benchCase, "timestep-io") == 0) {
        if (argc < 4 || size != 2) usage();
        MPI_File file;
        MPI_File_open(MPI_COMM_WORLD, argv[3], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &file);
        double halo[8], ghost[8], residual = 1, global = 0;
        char slice[4096];
        memset(slice, 'a' + rank, sizeof slice);
        for (int i = 0; i < 8; ++i)
            halo[i] = rank + i;
        callsPerIteration = 9;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; ++i) {
            MPI_Request requests[2];
            MPI_Irecv(ghost, 8, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &requests[0]);
            MPI_Isend(halo, 8, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &requests[1]);
            for (int poll = 0; poll < 4; ++poll) {
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
            MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
            MPI_Allreduce(&residual, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            const MPI_Offset offset =
                ((MPI_Offset)(i % 256) * size + rank) * (MPI_Offset)sizeof slice;
            MPI_File_write_at(file, offset, slice, sizeof slice, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        end = nowNanoseconds();
        MPI_File_close(&file);
    } else {
        usage();
    }
    if (rank == 0) {
        printf("ns_per_iteration=%.3f calls_per_iteration=%d\n", (end - start) / iterations,
               callsPerIteration);
    }
    MPI_Finalize();
    return 0;
}
