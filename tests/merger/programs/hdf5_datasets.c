/* hdf5_datasets.c: parallel HDF5 writing and reading two datasets
 * collectively, a chunked one and a contiguous one, each rank a strided
 * hyperslab (its rows, every other column). HDF5 turns these into derived
 * datatypes (resized, hvector, hindexed, ...) and file views, which the
 * merger must write in forms the PIOsim tools read.
 * Usage: mpiexec -n R hdf5_datasets FILE   (prints "ok" on rank 0)
 */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>

#include <mpi.h>

enum { kRows = 8, kColumns = 24 };

static void fail(const char *what) {
    fprintf(stderr, "hdf5_datasets: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void transfer(hid_t file, const char *name, int chunked, int rank, int ranks) {
    const hsize_t dims[2] = {(hsize_t)ranks * kRows, kColumns};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t create = H5Pcreate(H5P_DATASET_CREATE);
    if (chunked) {
        const hsize_t chunk[2] = {kRows / 2, kColumns / 4};
        H5Pset_chunk(create, 2, chunk);
    }
    hid_t dataset =
        H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, create, H5P_DEFAULT);
    if (dataset < 0) fail("H5Dcreate2");
    /* This rank's rows, every other column. */
    const hsize_t start[2] = {(hsize_t)rank * kRows, 0}, stride[2] = {1, 2},
                  count[2] = {kRows, kColumns / 2};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, NULL);
    const hsize_t memory_dims[1] = {kRows * kColumns / 2};
    hid_t memory = H5Screate_simple(1, memory_dims, NULL);
    double written[kRows * kColumns / 2], read[kRows * kColumns / 2];
    for (int i = 0; i < kRows * kColumns / 2; ++i)
        written[i] = rank * 1000.0 + i;
    hid_t transfer_list = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(transfer_list, H5FD_MPIO_COLLECTIVE);
    if (H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, transfer_list, written) < 0)
        fail("H5Dwrite");
    if (H5Dread(dataset, H5T_NATIVE_DOUBLE, memory, space, transfer_list, read) < 0)
        fail("H5Dread");
    for (int i = 0; i < kRows * kColumns / 2; ++i)
        if (read[i] != written[i]) fail("reading back");
    H5Pclose(transfer_list);
    H5Sclose(memory);
    H5Dclose(dataset);
    H5Pclose(create);
    H5Sclose(space);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: hdf5_datasets FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, access);
    if (file < 0) fail("H5Fcreate");
    transfer(file, "chunked", 1, rank, ranks);
    transfer(file, "strided", 0, rank, ranks);
    H5Fclose(file);
    H5Pclose(access);
    if (rank == 0) printf("ok\n");
    MPI_Finalize();
    return 0;
}
