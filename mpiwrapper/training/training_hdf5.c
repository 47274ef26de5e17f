/* training_hdf5.c: the HDF5 layer's part of the training run
 * (cmake/HDTracePgo.cmake), built where the layer is. One process writes and
 * reads a dataset of a file through HDF5's MPI-IO driver, a hyperslab at a
 * time, with independent and collective transfer lists and the default one,
 * and reads and writes an attribute, many times over.
 *
 * Usage: hdtrace_training_hdf5 DIRECTORY [ROUNDS]; the file it writes there
 * is removed at the end. Exits non-zero when a call fails. */
#include <stdio.h>
#include <unistd.h>

#include <hdf5.h>

#include <mpi.h>

#include "training_start.h"

/* line: where the failed call is in this file. */
static void check(int failed, int line) {
    if (!failed) return;
    fprintf(stderr, "hdtrace_training_hdf5: the HDF5 call at line %d failed\n", line);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
    char path[4096];
    const int rounds = training_start(&argc, &argv, "training.h5", 5000, path, sizeof path);

    const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    check(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL) < 0, __LINE__);
    const hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, access);
    check(file < 0, __LINE__);
    hsize_t elements = 1024, block = 16, four = 4;
    const hid_t space = H5Screate_simple(1, &elements, NULL);
    const hid_t memory = H5Screate_simple(1, &block, NULL);
    const hid_t dataset =
        H5Dcreate2(file, "values", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(dataset < 0, __LINE__);
    const hid_t attributeSpace = H5Screate_simple(1, &four, NULL);
    const hid_t attribute =
        H5Acreate2(dataset, "step", H5T_NATIVE_INT, attributeSpace, H5P_DEFAULT, H5P_DEFAULT);
    check(attribute < 0, __LINE__);
    const hid_t independent = H5Pcreate(H5P_DATASET_XFER);
    const hid_t collective = H5Pcreate(H5P_DATASET_XFER);
    check(H5Pset_dxpl_mpio(independent, H5FD_MPIO_INDEPENDENT) < 0 ||
              H5Pset_dxpl_mpio(collective, H5FD_MPIO_COLLECTIVE) < 0,
          __LINE__);

    double values[16] = {0};
    int step[4] = {0};
    const hid_t lists[3] = {independent, H5P_DEFAULT, collective};
    for (int round = 0; round < rounds; ++round) {
        hsize_t start = (hsize_t)(round % 64) * block;
        check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &block, NULL) < 0, __LINE__);
        values[0] = round;
        const hid_t list = lists[round % 3];
        check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, list, values) < 0, __LINE__);
        check(H5Dread(dataset, H5T_NATIVE_DOUBLE, memory, space, list, values) < 0, __LINE__);
        step[0] = round;
        check(H5Awrite(attribute, H5T_NATIVE_INT, step) < 0, __LINE__);
        check(H5Aread(attribute, H5T_NATIVE_INT, step) < 0, __LINE__);
        check(H5Pset_dxpl_mpio(independent, H5FD_MPIO_INDEPENDENT) < 0, __LINE__);
    }
    check(H5Fflush(file, H5F_SCOPE_LOCAL) < 0, __LINE__);
    H5Pclose(independent);
    H5Pclose(collective);
    H5Aclose(attribute);
    H5Sclose(attributeSpace);
    H5Dclose(dataset);
    H5Sclose(memory);
    H5Sclose(space);
    check(H5Fclose(file) < 0, __LINE__);
    H5Pclose(access);
    unlink(path);
    MPI_Finalize();
    return 0;
}
