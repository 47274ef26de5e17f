/* The cost of one HDF5 call, for comparing untraced and traced runs of the
 * HDF5 layer with the shared per-call yardstick (its run.sh: this program
 * prints the line it reads). One case per run, every rank on its own file
 * in memory (the core driver), so that the figures are HDF5's and the
 * layer's, not a disk's:
 *   h5pset    H5Pset_dxpl_mpio: the lightest wrapped call, the layer's fixed cost
 *   h5dwrite  H5Dwrite of 16 doubles of a 1024-element dataset, a hyperslab
 *   h5dwrite_list  the same with a transfer list (set independent) instead
 *             of the default, as a parallel program passes one
 *   h5aread   H5Aread of a 4-int attribute
 *   noop      setup and teardown only
 * Usage: hdf5_calls CASE [ITERATIONS [IGNORED]] (run.sh passes a directory) */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yardstick_line.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *const cases[] = {"h5pset", "h5dwrite", "h5dwrite_list", "h5aread", "noop"};
    int known = 0;
    for (size_t i = 0; argc >= 2 && i < sizeof cases / sizeof cases[0]; ++i)
        known |= strcmp(argv[1], cases[i]) == 0;
    if (!known) {
        if (rank == 0)
            fprintf(stderr, "usage: %s h5pset|h5dwrite|h5dwrite_list|h5aread|noop [iterations]\n",
                    argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *name = argv[1];
    /* An empty count (the yardstick's run.sh passes one) is the default. */
    const int counted = argc >= 3 && argv[2][0];
    long iterations = counted ? atol(argv[2]) : 200000;
    if (strcmp(name, "h5dwrite") == 0 && !counted) iterations = 50000;
    iterations -= iterations % YARDSTICK_CHUNKS;

    char path[64];
    snprintf(path, sizeof path, "hdf5-calls-%d-%d.h5", (int)getpid(), rank);
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(access, 1 << 20, 0);  /* in memory, never written out */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, access);
    hsize_t elements = 1024, block = 16;
    hid_t space = H5Screate_simple(1, &elements, NULL);
    hid_t dataset = H5Dcreate2(file, "d", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT);
    hid_t memory = H5Screate_simple(1, &block, NULL);
    hsize_t four = 4;
    hid_t attribute_space = H5Screate_simple(1, &four, NULL);
    hid_t attribute = H5Acreate2(dataset, "a", H5T_NATIVE_INT, attribute_space, H5P_DEFAULT,
                                 H5P_DEFAULT);
    int numbers[4] = {1, 2, 3, 4};
    H5Awrite(attribute, H5T_NATIVE_INT, numbers);
    hid_t transfer = H5Pcreate(H5P_DATASET_XFER);
    const int listed = strcmp(name, "h5dwrite_list") == 0;
    if (listed) H5Pset_dxpl_mpio(transfer, H5FD_MPIO_INDEPENDENT);
    double values[16] = {0};
    if (file < 0 || dataset < 0 || attribute < 0) MPI_Abort(MPI_COMM_WORLD, 1);

    double chunk[YARDSTICK_CHUNKS];
    double started = 0, ended = 0;
    const long perChunk = iterations / YARDSTICK_CHUNKS;
    long calls = 0;
    for (int phase = 0; phase < 2; ++phase) {
        const long rounds = phase ? iterations : iterations / 10;
        MPI_Barrier(MPI_COMM_WORLD);
        if (phase) started = yardstickNow();
        double chunkStart = yardstickNow();
        for (long i = 0; i < rounds; ++i) {
            if (strcmp(name, "h5pset") == 0) {
                H5Pset_dxpl_mpio(transfer, (i & 1) ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
            } else if (strcmp(name, "h5dwrite") == 0 || listed) {
                hsize_t start = (hsize_t)(i % 64) * block;
                H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &block, NULL);
                values[0] = (double)i;
                H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space,
                         listed ? transfer : H5P_DEFAULT, values);
            } else if (strcmp(name, "h5aread") == 0) {
                H5Aread(attribute, H5T_NATIVE_INT, numbers);
            } else {
                break;  /* noop */
            }
            if (phase) yardstickIterationDone(chunk, i, perChunk, &chunkStart);
        }
        if (phase) ended = yardstickNow();
    }
    const int noop = strcmp(name, "noop") == 0;
    calls = noop ? 0 : iterations;
    double robust = ended - started;
    if (!noop) {
        robust = yardstickRobustSeconds(chunk);
    }
    H5Aclose(attribute);
    H5Dclose(dataset);
    H5Fclose(file);
    H5Pclose(transfer);
    H5Pclose(access);
    H5Sclose(space);
    H5Sclose(memory);
    H5Sclose(attribute_space);
    long mine = calls, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const double finalizeStart = yardstickNow();
    MPI_Finalize();
    const double finalizeEnd = yardstickNow();
    if (rank == 0)
        yardstickPrint(name, size, calls, ended - started, iterations, total, robust,
                       finalizeEnd - finalizeStart);
    return 0;
}
