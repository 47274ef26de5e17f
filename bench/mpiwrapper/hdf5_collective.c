/*
 * bench_hdf5_collective: parallel HDF5 itself, collective hyperslab writes
 * and reads. Needs HDF5 built for the same MPI library
 * (Debian's libhdf5-openmpi-dev for the Open MPI tree).
 *
 *     mpiexec -n R bench_hdf5_collective ITERATIONS FILE [ROWS COLUMNS]
 *
 * The dataset is a (R * ROWS) x COLUMNS array of doubles (contiguous
 * layout); rank r selects rows r*ROWS .. r*ROWS+ROWS-1 and every other
 * column of them (a strided hyperslab), and each iteration makes one
 * collective H5Dwrite and one collective H5Dread of that selection from a
 * buffer of its own shape. HDF5 turns each of them into derived datatypes,
 * a file view and an MPI_File_write_at_all / read_at_all, which is what
 * the tracer sees. The data read back is checked.
 *
 * Rank 0 prints "ns_per_iteration=F cpu_ns_per_iteration=F
 * calls_per_iteration=2" (a call being one H5Dwrite or H5Dread; CPU time of
 * the whole process, which unlike wall-clock time does not grow when other
 * jobs take the cores).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <hdf5.h>

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

static void check(int failed, const char *what) {
    if (failed) {
        fprintf(stderr, "bench_hdf5_collective: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc < 3) {
        fprintf(stderr, "usage: bench_hdf5_collective ITERATIONS FILE [ROWS COLUMNS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const long iterations = atol(argv[1]);
    const hsize_t rows = argc > 3 ? (hsize_t)atol(argv[3]) : 16;
    const hsize_t columns = argc > 4 ? (hsize_t)atol(argv[4]) : 64;
    if (iterations < 1 || rows < 1 || columns < 2 || columns % 2) {
        fprintf(stderr,
                "bench_hdf5_collective: need ITERATIONS >= 1, ROWS >= 1, even COLUMNS >= 2\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    check(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL) < 0, "H5Pset_fapl_mpio");
    hid_t file = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, access);
    check(file < 0, "H5Fcreate");
    const hsize_t shape[2] = {(hsize_t)ranks * rows, columns};
    hid_t fileSpace = H5Screate_simple(2, shape, NULL);
    hid_t dataset = H5Dcreate2(file, "data", H5T_NATIVE_DOUBLE, fileSpace, H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT);
    check(dataset < 0, "H5Dcreate2");
    const hsize_t start[2] = {(hsize_t)rank * rows, 0}, stride[2] = {1, 2};
    const hsize_t count[2] = {rows, columns / 2}, block[2] = {1, 1};
    check(H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, start, stride, count, block) < 0,
          "H5Sselect_hyperslab");
    const size_t selected = (size_t)(rows * columns / 2);
    const hsize_t bufferShape[1] = {selected};
    hid_t memorySpace = H5Screate_simple(1, bufferShape, NULL);
    double *buffer = malloc(selected * sizeof(double));
    if (!buffer) MPI_Abort(MPI_COMM_WORLD, 2);
    hid_t transfer = H5Pcreate(H5P_DATASET_XFER);
    check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE) < 0, "H5Pset_dxpl_mpio");

    MPI_Barrier(MPI_COMM_WORLD);
    const double begin = nowNanoseconds(), cpuBegin = cpuNanoseconds();
    for (long i = 0; i < iterations; ++i) {
        for (size_t k = 0; k < selected; ++k)
            buffer[k] = (double)(rank * 1000003L + i * 7 + (long)k);
        check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memorySpace, fileSpace, transfer, buffer) < 0,
              "H5Dwrite");
        for (size_t k = 0; k < selected; ++k)
            buffer[k] = -1.0;
        check(H5Dread(dataset, H5T_NATIVE_DOUBLE, memorySpace, fileSpace, transfer, buffer) < 0,
              "H5Dread");
        for (size_t k = 0; k < selected; ++k) {
            if (buffer[k] != (double)(rank * 1000003L + i * 7 + (long)k)) {
                fprintf(stderr, "bench_hdf5_collective: rank %d read back a wrong value at %zu\n",
                        rank, k);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
        }
    }
    const double end = nowNanoseconds(), cpuEnd = cpuNanoseconds();

    H5Pclose(transfer);
    H5Sclose(memorySpace);
    H5Sclose(fileSpace);
    H5Dclose(dataset);
    H5Fclose(file);
    H5Pclose(access);
    free(buffer);
    if (rank == 0)
        printf("ns_per_iteration=%.1f cpu_ns_per_iteration=%.1f calls_per_iteration=2\n",
               (end - begin) / (double)iterations, (cpuEnd - cpuBegin) / (double)iterations);
    MPI_Finalize();
    return 0;
}
