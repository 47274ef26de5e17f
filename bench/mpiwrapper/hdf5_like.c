/*
 * bench_hdf5_like: the MPI calls of a parallel HDF5 collective hyperslab
 * write and read, without HDF5.
 *
 *     mpiexec -n R bench_hdf5_like ITERATIONS FILE [ROWS COLUMNS]
 *
 * The dataset is a (R * ROWS) x COLUMNS array of doubles in FILE; rank r
 * owns rows r*ROWS .. r*ROWS+ROWS-1, and every other column of them (a
 * strided hyperslab), held in memory as every other double of a buffer.
 * Each iteration does what HDF5 1.10 does for one collective H5Dwrite and
 * one collective H5Dread of that selection (H5Smpio.c, H5FDmpio.c):
 *  - it builds the file type the way H5S__mpio_reg_hyper_type does for a
 *    regular hyperslab (element as contiguous bytes, a vector per
 *    dimension, resized to the dimension's extent, an hvector, and a
 *    struct placing the selection at its start), commits it and frees the
 *    intermediate types; the read builds a subarray instead, as other
 *    libraries do for the same selection;
 *  - it builds the memory type of the span-tree path (an hindexed of the
 *    buffer's rows) and commits it;
 *  - it sets the file view to the file type, makes the collective transfer
 *    (MPI_File_write_at_all / MPI_File_read_at_all at offset 0 of the
 *    view), and resets the view to bytes, as H5FD_mpio_write/read do after
 *    every collective transfer;
 *  - it frees both types.
 * So every iteration creates 11 datatypes, commits 4, frees 11, and sets
 * the view 4 times: a new type id for the tracer every time.
 *
 * Rank 0 prints one line of figures: the whole loop per iteration (wall
 * clock, and CPU time of the process), and the
 * time spent inside each class of calls, summed, with the number of calls
 * (all ns, CLOCK_MONOTONIC read around every call, in both modes):
 *   ns_per_iteration=F cpu_ns_per_iteration=F calls_per_iteration=N
 *   create_ns=F create_calls=N
 *   commit_ns=F commit_calls=N free_ns=F free_calls=N set_view_ns=F
 *   set_view_calls=N transfer_ns=F transfer_calls=N
 * The same binary runs untraced and traced (LD_PRELOAD of
 * libhdtracempi.so), so both execute identical code. The data read back
 * is checked, so a broken transfer cannot pass as a fast one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

static double nowNanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the whole process (all its threads, the tracer's writer
 * thread included): unlike wall-clock time, it does not grow when other
 * jobs take the cores. */
static double cpuNanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Time and count of one class of calls. */
struct CallClass {
    double nanoseconds;
    long calls;
};

static struct CallClass createCalls, commitCalls, freeCalls, setViewCalls, transferCalls;
static double callStart;

#define TIMED(callClass, call)                                   \
    do {                                                         \
        callStart = nowNanoseconds();                            \
        call;                                                    \
        (callClass).nanoseconds += nowNanoseconds() - callStart; \
        ++(callClass).calls;                                     \
    } while (0)

static void check(int result, const char *what) {
    if (result != MPI_SUCCESS) {
        fprintf(stderr, "bench_hdf5_like: %s failed (%d)\n", what, result);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* The file type of H5S__mpio_reg_hyper_type for the rank's rows x every
 * other column: built bottom up, intermediate types freed. */
static MPI_Datatype regularHyperslabType(int rank, int rows, int columns) {
    const int elementSize = (int)sizeof(double);
    MPI_Datatype element, rowSelection, rowResized, blockSelection, placed;
    int result;
    TIMED(createCalls, result = MPI_Type_contiguous(elementSize, MPI_BYTE, &element));
    check(result, "MPI_Type_contiguous");
    /* Innermost dimension: columns/2 elements, stride 2. */
    TIMED(createCalls, result = MPI_Type_vector(columns / 2, 1, 2, element, &rowSelection));
    check(result, "MPI_Type_vector");
    /* Its extent is the whole row, so that the next dimension steps by rows. */
    TIMED(createCalls, result = MPI_Type_create_resized(
                           rowSelection, 0, (MPI_Aint)columns * elementSize, &rowResized));
    check(result, "MPI_Type_create_resized");
    TIMED(createCalls, result = MPI_Type_create_hvector(rows, 1, (MPI_Aint)columns * elementSize,
                                                        rowResized, &blockSelection));
    check(result, "MPI_Type_create_hvector");
    /* The selection starts at the rank's first row. */
    int one = 1;
    MPI_Aint start = (MPI_Aint)rank * rows * columns * elementSize;
    TIMED(createCalls, result = MPI_Type_create_struct(1, &one, &start, &blockSelection, &placed));
    check(result, "MPI_Type_create_struct");
    TIMED(commitCalls, result = MPI_Type_commit(&placed));
    check(result, "MPI_Type_commit");
    TIMED(freeCalls, MPI_Type_free(&element));
    TIMED(freeCalls, MPI_Type_free(&rowSelection));
    TIMED(freeCalls, MPI_Type_free(&rowResized));
    TIMED(freeCalls, MPI_Type_free(&blockSelection));
    return placed;
}

/* The same selection as one subarray (the read's file type). */
static MPI_Datatype subarrayType(int rank, int ranks, int rows, int columns) {
    MPI_Datatype element, strided, resized, placed;
    int result;
    /* Every other column: one double of each 2-double unit, then the
     * rank's rows of units as a subarray of the whole array of units. */
    TIMED(createCalls, result = MPI_Type_contiguous(1, MPI_DOUBLE, &element));
    check(result, "MPI_Type_contiguous");
    TIMED(createCalls, result = MPI_Type_vector(1, 1, 2, element, &strided));
    check(result, "MPI_Type_vector");
    TIMED(createCalls, result = MPI_Type_create_resized(strided, 0, 2 * sizeof(double), &resized));
    check(result, "MPI_Type_create_resized");
    int sizes[2] = {ranks * rows, columns / 2};
    int subsizes[2] = {rows, columns / 2};
    int starts[2] = {rank * rows, 0};
    TIMED(createCalls, result = MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C,
                                                         resized, &placed));
    check(result, "MPI_Type_create_subarray");
    TIMED(commitCalls, result = MPI_Type_commit(&placed));
    check(result, "MPI_Type_commit");
    TIMED(freeCalls, MPI_Type_free(&element));
    TIMED(freeCalls, MPI_Type_free(&strided));
    TIMED(freeCalls, MPI_Type_free(&resized));
    return placed;
}

/* The memory type of H5S__mpio_span_hyper_type: one hindexed block per
 * span, here per row of the buffer (rows of COLUMNS/2 selected doubles, each
 * followed by one unused double). */
static MPI_Datatype memoryType(int rows, int rowLength, int *blockLengths,
                               MPI_Aint *displacements) {
    MPI_Datatype type;
    int result;
    for (int i = 0; i < rows; ++i) {
        blockLengths[i] = rowLength;
        displacements[i] = (MPI_Aint)i * (rowLength + 1) * (MPI_Aint)sizeof(double);
    }
    TIMED(createCalls,
          result = MPI_Type_create_hindexed(rows, blockLengths, displacements, MPI_DOUBLE, &type));
    check(result, "MPI_Type_create_hindexed");
    TIMED(commitCalls, result = MPI_Type_commit(&type));
    check(result, "MPI_Type_commit");
    return type;
}

/* Where the k-th selected double lies in the buffer. */
static int bufferIndex(int k, int rowLength) {
    return k / rowLength * (rowLength + 1) + k % rowLength;
}

static void setView(MPI_File file, MPI_Datatype fileType) {
    int result;
    TIMED(setViewCalls,
          result = MPI_File_set_view(file, 0, MPI_BYTE, fileType, "native", MPI_INFO_NULL));
    check(result, "MPI_File_set_view");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc < 3) {
        fprintf(stderr, "usage: bench_hdf5_like ITERATIONS FILE [ROWS COLUMNS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const long iterations = atol(argv[1]);
    const int rows = argc > 3 ? atoi(argv[3]) : 16;
    const int columns = argc > 4 ? atoi(argv[4]) : 64;
    if (iterations < 1 || rows < 1 || columns < 2 || columns % 2) {
        fprintf(stderr, "bench_hdf5_like: need ITERATIONS >= 1, ROWS >= 1, even COLUMNS >= 2\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int rowLength = columns / 2, selected = rows * rowLength;
    double *buffer = calloc((size_t)(rows * (rowLength + 1)), sizeof(double));
    int *blockLengths = malloc((size_t)rows * sizeof(int));
    MPI_Aint *displacements = malloc((size_t)rows * sizeof(MPI_Aint));
    if (!buffer || !blockLengths || !displacements) MPI_Abort(MPI_COMM_WORLD, 2);

    MPI_File file;
    check(MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &file),
          "MPI_File_open");
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = nowNanoseconds(), cpuStart = cpuNanoseconds();
    for (long i = 0; i < iterations; ++i) {
        for (int k = 0; k < selected; ++k)
            buffer[bufferIndex(k, rowLength)] = (double)(rank * 1000003L + i * 7 + k);
        MPI_Status status;
        int result;

        MPI_Datatype fileType = regularHyperslabType(rank, rows, columns);
        MPI_Datatype bufferType = memoryType(rows, rowLength, blockLengths, displacements);
        setView(file, fileType);
        TIMED(transferCalls,
              result = MPI_File_write_at_all(file, 0, buffer, 1, bufferType, &status));
        check(result, "MPI_File_write_at_all");
        setView(file, MPI_BYTE);
        TIMED(freeCalls, MPI_Type_free(&fileType));
        TIMED(freeCalls, MPI_Type_free(&bufferType));

        for (int k = 0; k < selected; ++k)
            buffer[bufferIndex(k, rowLength)] = -1.0;
        fileType = subarrayType(rank, ranks, rows, columns);
        bufferType = memoryType(rows, rowLength, blockLengths, displacements);
        setView(file, fileType);
        TIMED(transferCalls,
              result = MPI_File_read_at_all(file, 0, buffer, 1, bufferType, &status));
        check(result, "MPI_File_read_at_all");
        setView(file, MPI_BYTE);
        TIMED(freeCalls, MPI_Type_free(&fileType));
        TIMED(freeCalls, MPI_Type_free(&bufferType));
        for (int k = 0; k < selected; ++k) {
            if (buffer[bufferIndex(k, rowLength)] != (double)(rank * 1000003L + i * 7 + k)) {
                fprintf(stderr, "bench_hdf5_like: rank %d read back a wrong value at %d\n", rank,
                        k);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
        }
    }
    const double end = nowNanoseconds(), cpuEnd = cpuNanoseconds();
    MPI_File_close(&file);
    if (rank == 0) {
        const long calls = createCalls.calls + commitCalls.calls + freeCalls.calls +
                           setViewCalls.calls + transferCalls.calls;
        printf(
            "ns_per_iteration=%.1f cpu_ns_per_iteration=%.1f calls_per_iteration=%ld "
            "create_ns=%.1f create_calls=%ld "
            "commit_ns=%.1f commit_calls=%ld free_ns=%.1f free_calls=%ld set_view_ns=%.1f "
            "set_view_calls=%ld transfer_ns=%.1f transfer_calls=%ld\n",
            (end - start) / (double)iterations, (cpuEnd - cpuStart) / (double)iterations,
            calls / iterations, createCalls.nanoseconds, createCalls.calls, commitCalls.nanoseconds,
            commitCalls.calls, freeCalls.nanoseconds, freeCalls.calls, setViewCalls.nanoseconds,
            setViewCalls.calls, transferCalls.nanoseconds, transferCalls.calls);
    }
    free(buffer);
    free(blockLengths);
    free(displacements);
    MPI_Finalize();
    return 0;
}
