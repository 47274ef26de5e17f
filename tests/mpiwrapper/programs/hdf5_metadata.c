/* HDF5's own file I/O: the ranks create a file of 64 datasets with 4
 * attributes each, close it, open it again and open every dataset and
 * attribute, reading each attribute. No dataset is read or written, so
 * every file access is HDF5's metadata. MODE chooses how HDF5 does it:
 *   independent        every rank reads the metadata itself (the default)
 *   collective-writes  H5Pset_coll_metadata_write on the file access list
 *   collective         that, and H5Pset_all_coll_metadata_ops on it and on
 *                      the access lists of every dataset and attribute
 *   file-per-rank      each rank its own file, FILE.<rank>, on
 *                      MPI_COMM_SELF, as independent does it
 * Prints "r<rank> ok". Usage: hdf5_metadata FILE MODE */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include <mpi.h>

enum { DATASETS = 64, ATTRIBUTES = 4 };

static int rank;

static void check(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "r%d: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* An access list of the kind given, asking collective metadata reads when
 * collective. */
static hid_t access_list(hid_t kind, int collective) {
    hid_t list = H5Pcreate(kind);
    check(list >= 0, "H5Pcreate");
    if (collective) check(H5Pset_all_coll_metadata_ops(list, 1) >= 0, "coll_metadata_ops");
    return list;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE independent|collective-writes|collective|file-per-rank\n",
                argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int per_rank = strcmp(argv[2], "file-per-rank") == 0;
    const int collective_writes = !per_rank && strcmp(argv[2], "independent") != 0;
    const int collective_reads = strcmp(argv[2], "collective") == 0;
    char path[4096];
    if (per_rank)
        snprintf(path, sizeof path, "%s.%d", argv[1], rank);
    else
        snprintf(path, sizeof path, "%s", argv[1]);

    hid_t file_access = access_list(H5P_FILE_ACCESS, collective_reads);
    MPI_Comm comm = per_rank ? MPI_COMM_SELF : MPI_COMM_WORLD;
    check(H5Pset_fapl_mpio(file_access, comm, MPI_INFO_NULL) >= 0, "fapl_mpio");
    if (collective_writes) check(H5Pset_coll_metadata_write(file_access, 1) >= 0, "md_write");

    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, file_access);
    check(file >= 0, "H5Fcreate");
    hsize_t dims[1] = {16};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t scalar = H5Screate(H5S_SCALAR);
    char name[32];
    for (int d = 0; d < DATASETS; ++d) {
        snprintf(name, sizeof name, "d%02d", d);
        hid_t dataset =
            H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(dataset >= 0, "H5Dcreate2");
        for (int a = 0; a < ATTRIBUTES; ++a) {
            snprintf(name, sizeof name, "a%d", a);
            hid_t attribute =
                H5Acreate2(dataset, name, H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
            check(attribute >= 0 && H5Awrite(attribute, H5T_NATIVE_INT, &a) >= 0, "H5Awrite");
            H5Aclose(attribute);
        }
        H5Dclose(dataset);
    }
    check(H5Fclose(file) >= 0, "H5Fclose");

    file = H5Fopen(path, H5F_ACC_RDONLY, file_access);
    check(file >= 0, "H5Fopen");
    int sum = 0;
    for (int d = 0; d < DATASETS; ++d) {
        snprintf(name, sizeof name, "d%02d", d);
        hid_t dataset_access = access_list(H5P_DATASET_ACCESS, collective_reads);
        hid_t dataset = H5Dopen2(file, name, dataset_access);
        check(dataset >= 0, "H5Dopen2");
        for (int a = 0; a < ATTRIBUTES; ++a) {
            snprintf(name, sizeof name, "a%d", a);
            hid_t attribute_access = access_list(H5P_ATTRIBUTE_ACCESS, collective_reads);
            hid_t attribute = H5Aopen(dataset, name, attribute_access);
            int value = -1;
            check(attribute >= 0 && H5Aread(attribute, H5T_NATIVE_INT, &value) >= 0, "H5Aread");
            sum += value;
            H5Aclose(attribute);
            H5Pclose(attribute_access);
        }
        H5Dclose(dataset);
        H5Pclose(dataset_access);
    }
    check(H5Fclose(file) >= 0, "H5Fclose");
    check(sum == DATASETS * ATTRIBUTES * (ATTRIBUTES - 1) / 2, "the attributes read back");
    H5Sclose(space);
    H5Sclose(scalar);
    H5Pclose(file_access);
    printf("r%d ok\n", rank);
    MPI_Finalize();
    return 0;
}
