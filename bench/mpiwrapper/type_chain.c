/* The datatype calls parallel HDF5 makes for every collective transfer
 * (as IOR's HDF5 back end drives it, H5S_mpio_hyper_type and
 * H5FD_mpio_write), for comparing untraced and traced runs with the shared
 * per-call yardstick (its run.sh: this program prints the line it reads).
 * Each iteration builds two chains, a file type and a memory type, of
 *   MPI_Type_contiguous -> MPI_Type_vector -> MPI_Type_create_hindexed ->
 *   MPI_Type_create_resized, freeing each input after use, commits both
 *   and frees them: 18 MPI calls, no communication.
 * The file type's displacement moves by a 64 KiB block every iteration over
 * 256 blocks (IOR's transfers within a block), so its definition recurs
 * every 256 iterations; the memory type's is always the same.
 * typechain_cold runs, before each of the 18 calls, about 40 KiB of code
 * and reads 128 KiB of data of its own, more than the first-level caches
 * hold, as HDF5 and the MPI library do between two of these calls in a
 * real transfer: what a traced call costs when its code and data come
 * back from the second-level cache, not what it costs in a tight loop.
 * The untraced run does the same, so the harness's difference is the
 * tracing's.
 *   type_chain CASE [ITERATIONS [IGNORED]]
 *   CASE: typechain | typechain_cold | noop
 * (run.sh passes a directory third.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "yardstick_line.h"

enum { CALLS_PER_ITERATION = 18, BLOCK = 65536, BLOCKS = 256 };

/* Set for typechain_cold: before each datatype call, evict() fills the
 * first-level caches with other code and data, as HDF5's own work does. */
static int cold;
static unsigned char otherData[128 * 1024];
static volatile unsigned otherSum;

static void evict(void) {
    if (!cold) return;
#if defined(__x86_64__) || defined(__i386__)
    /* 8,192 five-byte no-ops: 40 KiB of code run once each. */
    __asm__ volatile(".rept 8192\n\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t.endr" ::: "memory");
#endif
    unsigned sum = 0;
    for (size_t at = 0; at < sizeof otherData; at += 64)
        sum += otherData[at];
    otherSum = sum;
}

static void check(int result, const char *what) {
    evict(); /* before the next call */
    if (result != MPI_SUCCESS) {
        fprintf(stderr, "type_chain: %s failed (%d)\n", what, result);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Five calls: contiguous, vector, hindexed, resized and a commit, and three
 * frees of the inputs. */
static MPI_Datatype chain(MPI_Aint displacement) {
    MPI_Datatype contiguous, vector, hindexed, resized;
    int one = 1;
    check(MPI_Type_contiguous(BLOCK, MPI_BYTE, &contiguous), "MPI_Type_contiguous");
    check(MPI_Type_vector(1, 1, 1, contiguous, &vector), "MPI_Type_vector");
    check(MPI_Type_free(&contiguous), "MPI_Type_free");
    check(MPI_Type_create_hindexed(1, &one, &displacement, vector, &hindexed),
          "MPI_Type_create_hindexed");
    check(MPI_Type_free(&vector), "MPI_Type_free");
    check(MPI_Type_create_resized(hindexed, 0, displacement + BLOCK, &resized),
          "MPI_Type_create_resized");
    check(MPI_Type_free(&hindexed), "MPI_Type_free");
    check(MPI_Type_commit(&resized), "MPI_Type_commit");
    return resized;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || (strcmp(argv[1], "typechain") != 0 && strcmp(argv[1], "typechain_cold") != 0 &&
                     strcmp(argv[1], "noop") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s typechain|typechain_cold|noop [iterations]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int noop = strcmp(argv[1], "noop") == 0;
    cold = strcmp(argv[1], "typechain_cold") == 0;
    /* Written, so that its pages are its own and not the kernel's one page
     * of zeros, which would fit in any cache. */
    memset(otherData, 1, sizeof otherData);
    /* An empty count (the yardstick's run.sh passes one) is the default. */
    long iterations = argc >= 3 && argv[2][0] ? atol(argv[2]) : cold ? 10000 : 50000;
    iterations -= iterations % YARDSTICK_CHUNKS;
    if (iterations <= 0) iterations = YARDSTICK_CHUNKS;

    double chunk[YARDSTICK_CHUNKS];
    double started = 0, ended = 0;
    const long perChunk = iterations / YARDSTICK_CHUNKS;
    for (int phase = 0; phase < 2 && !noop; ++phase) {
        const long rounds = phase ? iterations : iterations / 10;
        MPI_Barrier(MPI_COMM_WORLD);
        if (phase) started = yardstickNow();
        double chunkStart = yardstickNow();
        for (long i = 0; i < rounds; ++i) {
            MPI_Datatype file = chain((MPI_Aint)(i % BLOCKS) * BLOCK + 2048);
            MPI_Datatype memory = chain(0);
            check(MPI_Type_free(&file), "MPI_Type_free");
            check(MPI_Type_free(&memory), "MPI_Type_free");
            if (phase) yardstickIterationDone(chunk, i, perChunk, &chunkStart);
        }
        if (phase) ended = yardstickNow();
    }
    const long calls = noop ? 0 : iterations * CALLS_PER_ITERATION;
    double robust = ended - started;
    if (!noop) {
        robust = yardstickRobustSeconds(chunk);
    }
    long total = 0;
    MPI_Reduce(&calls, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const double finalizeStart = yardstickNow();
    MPI_Finalize();
    const double finalizeEnd = yardstickNow();
    if (rank == 0)
        yardstickPrint(argv[1], size, calls, ended - started, iterations, total, robust,
                       finalizeEnd - finalizeStart);
    return 0;
}
