/* A parallel HDF5 program of the kinds of I/O the HDF5 layer records: a
 * group with an attribute, a contiguous dataset written collectively and a
 * chunked, extended one written independently, both read back (the
 * chunked one converted to wider integers), a dataset, a group and an
 * attribute created and opened with HDF5 1.6's calls, the file opened
 * again and read whole, and one call on an invalid id. Each rank prints the
 * HDF5 calls it made, one per line, as the trace must show them:
 *   r<rank> call <tag> [key=value]...
 * then "r<rank> ok". Usage: hdf5_layers FILE */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { CONTIGUOUS_PER_RANK = 1000, CHUNKED_PER_RANK = 600, EXTENDED_PER_RANK = 800, CHUNK = 500 };

static int rank, size;

static void check(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "r%d: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void said(const char *line) { printf("r%d call %s\n", rank, line); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(argc == 2, "usage: hdf5_layers FILE");
    const char *path = argv[1];
    char line[256];

    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    check(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_fapl_mpio");
    said("H5Pset_fapl_mpio");
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, access);
    check(file >= 0, "H5Fcreate");
    snprintf(line, sizeof line, "H5Fcreate flags=%u", H5F_ACC_TRUNC);
    said(line);
    hid_t group = H5Gcreate2(file, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(group >= 0, "H5Gcreate2");
    said("H5Gcreate2 name=results");

    /* An attribute of three ints on the group, written by every rank. */
    hsize_t three = 3;
    hid_t attribute_space = H5Screate_simple(1, &three, NULL);
    hid_t attribute = H5Acreate2(group, "units", H5T_NATIVE_INT, attribute_space, H5P_DEFAULT,
                                 H5P_DEFAULT);
    check(attribute >= 0, "H5Acreate2");
    said("H5Acreate2 name=units");
    int units[3] = {1, 2, 3};
    check(H5Awrite(attribute, H5T_NATIVE_INT, units) >= 0, "H5Awrite");
    snprintf(line, sizeof line, "H5Awrite size=%zu memTypeSize=%zu", 3 * sizeof(int), sizeof(int));
    said(line);
    check(H5Aclose(attribute) >= 0, "H5Aclose");
    said("H5Aclose");

    /* Contiguous doubles: each rank its block, collectively. */
    hsize_t total = (hsize_t)size * CONTIGUOUS_PER_RANK;
    hid_t space = H5Screate_simple(1, &total, NULL);
    hid_t contiguous = H5Dcreate2(group, "contiguous", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT);
    check(contiguous >= 0, "H5Dcreate2");
    snprintf(line, sizeof line,
             "H5Dcreate2 name=contiguous dataset=0 layout=contiguous typeSize=%zu elements=%llu",
             sizeof(double), (unsigned long long)total);
    said(line);
    hsize_t start = (hsize_t)rank * CONTIGUOUS_PER_RANK, count = CONTIGUOUS_PER_RANK;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t memory = H5Screate_simple(1, &count, NULL);
    double values[CONTIGUOUS_PER_RANK];
    for (int i = 0; i < CONTIGUOUS_PER_RANK; ++i) values[i] = rank * 1e4 + i;
    hid_t collective = H5Pcreate(H5P_DATASET_XFER);
    check(H5Pset_dxpl_mpio(collective, H5FD_MPIO_COLLECTIVE) >= 0, "H5Pset_dxpl_mpio");
    said("H5Pset_dxpl_mpio transfer=collective");
    check(H5Dwrite(contiguous, H5T_NATIVE_DOUBLE, memory, space, collective, values) >= 0,
          "H5Dwrite");
    snprintf(line, sizeof line,
             "H5Dwrite dataset=0 size=%zu memTypeSize=%zu fileTypeSize=%zu transfer=collective",
             CONTIGUOUS_PER_RANK * sizeof(double), sizeof(double), sizeof(double));
    said(line);

    /* Chunked ints, extended, each rank its block independently. */
    hsize_t chunked_total = (hsize_t)size * CHUNKED_PER_RANK, unlimited = H5S_UNLIMITED;
    hid_t chunked_space = H5Screate_simple(1, &chunked_total, &unlimited);
    hid_t creation = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk = CHUNK;
    H5Pset_chunk(creation, 1, &chunk);
    hid_t chunked = H5Dcreate2(group, "chunked", H5T_NATIVE_INT, chunked_space, H5P_DEFAULT,
                               creation, H5P_DEFAULT);
    check(chunked >= 0, "H5Dcreate2 chunked");
    snprintf(line, sizeof line,
             "H5Dcreate2 name=chunked dataset=1 layout=chunked typeSize=%zu elements=%llu",
             sizeof(int), (unsigned long long)chunked_total);
    said(line);
    hsize_t extended = (hsize_t)size * EXTENDED_PER_RANK;
    check(H5Dset_extent(chunked, &extended) >= 0, "H5Dset_extent");
    snprintf(line, sizeof line, "H5Dset_extent dataset=1 elements=%llu",
             (unsigned long long)extended);
    said(line);
    hid_t file_space = H5Dget_space(chunked);
    hsize_t chunked_start = (hsize_t)rank * EXTENDED_PER_RANK, chunked_count = EXTENDED_PER_RANK;
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &chunked_start, NULL, &chunked_count, NULL);
    hid_t chunked_memory = H5Screate_simple(1, &chunked_count, NULL);
    int numbers[EXTENDED_PER_RANK];
    for (int i = 0; i < EXTENDED_PER_RANK; ++i) numbers[i] = rank * 100000 + i;
    hid_t independent = H5Pcreate(H5P_DATASET_XFER);
    check(H5Pset_dxpl_mpio(independent, H5FD_MPIO_INDEPENDENT) >= 0, "H5Pset_dxpl_mpio");
    said("H5Pset_dxpl_mpio transfer=independent");
    check(H5Dwrite(chunked, H5T_NATIVE_INT, chunked_memory, file_space, independent, numbers) >= 0,
          "H5Dwrite chunked");
    snprintf(line, sizeof line,
             "H5Dwrite dataset=1 size=%zu memTypeSize=%zu fileTypeSize=%zu transfer=independent",
             EXTENDED_PER_RANK * sizeof(int), sizeof(int), sizeof(int));
    said(line);

    /* Read back the own block of the contiguous one, collectively. */
    double back[CONTIGUOUS_PER_RANK];
    check(H5Dread(contiguous, H5T_NATIVE_DOUBLE, memory, space, collective, back) >= 0, "H5Dread");
    snprintf(line, sizeof line,
             "H5Dread dataset=0 size=%zu memTypeSize=%zu fileTypeSize=%zu transfer=collective",
             CONTIGUOUS_PER_RANK * sizeof(double), sizeof(double), sizeof(double));
    said(line);
    for (int i = 0; i < CONTIGUOUS_PER_RANK; ++i) check(back[i] == values[i], "read back");

    /* The chunked ints read back as long longs, asked collectively: HDF5
     * converts every element, and transfers that convert it does
     * independently. */
    long long wide[EXTENDED_PER_RANK];
    check(H5Dread(chunked, H5T_NATIVE_LLONG, chunked_memory, file_space, collective, wide) >= 0,
          "H5Dread converted");
    snprintf(line, sizeof line,
             "H5Dread dataset=1 size=%zu memTypeSize=%zu fileTypeSize=%zu transfer=collective",
             EXTENDED_PER_RANK * sizeof(long long), sizeof(long long), sizeof(int));
    said(line);
    for (int i = 0; i < EXTENDED_PER_RANK; ++i) check(wide[i] == numbers[i], "read converted");

    /* HDF5 1.6's forms of the dataset calls, which IOR's HDF5 back end
     * calls: a dataset of the attribute's shape created, closed, opened. */
    hid_t legacy = H5Dcreate1(group, "legacy", H5T_NATIVE_INT, attribute_space, H5P_DEFAULT);
    check(legacy >= 0, "H5Dcreate1");
    snprintf(line, sizeof line,
             "H5Dcreate1 name=legacy dataset=2 layout=contiguous typeSize=%zu elements=3",
             sizeof(int));
    said(line);
    check(H5Dclose(legacy) >= 0, "H5Dclose legacy");
    said("H5Dclose dataset=2");
    legacy = H5Dopen1(group, "legacy");
    check(legacy >= 0, "H5Dopen1");
    said("H5Dopen1 name=legacy dataset=3");
    check(H5Dclose(legacy) >= 0, "H5Dclose legacy");
    said("H5Dclose dataset=3");

    /* And its group and attribute calls: a group with an attribute, both
     * created, closed and opened again. */
    hid_t legacy_group = H5Gcreate1(file, "legacy_group", 0);
    check(legacy_group >= 0, "H5Gcreate1");
    said("H5Gcreate1 name=legacy_group");
    hid_t legacy_attribute =
        H5Acreate1(legacy_group, "legacy_units", H5T_NATIVE_INT, attribute_space, H5P_DEFAULT);
    check(legacy_attribute >= 0, "H5Acreate1");
    said("H5Acreate1 name=legacy_units");
    check(H5Aclose(legacy_attribute) >= 0, "H5Aclose legacy");
    said("H5Aclose");
    check(H5Gclose(legacy_group) >= 0, "H5Gclose legacy");
    said("H5Gclose");
    legacy_group = H5Gopen1(file, "legacy_group");
    check(legacy_group >= 0, "H5Gopen1");
    said("H5Gopen1 name=legacy_group");
    legacy_attribute = H5Aopen_name(legacy_group, "legacy_units");
    check(legacy_attribute >= 0, "H5Aopen_name");
    said("H5Aopen_name name=legacy_units");
    check(H5Aclose(legacy_attribute) >= 0, "H5Aclose legacy");
    said("H5Aclose");
    check(H5Gclose(legacy_group) >= 0, "H5Gclose legacy");
    said("H5Gclose");

    check(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, "H5Fflush");
    said("H5Fflush");
    check(H5Dclose(chunked) >= 0, "H5Dclose");
    said("H5Dclose dataset=1");
    check(H5Dclose(contiguous) >= 0, "H5Dclose");
    said("H5Dclose dataset=0");
    check(H5Gclose(group) >= 0, "H5Gclose");
    said("H5Gclose");
    check(H5Fclose(file) >= 0, "H5Fclose");
    said("H5Fclose");

    /* Opened again: the contiguous dataset read whole, independently
     * (the default transfer), and the attribute. */
    file = H5Fopen(path, H5F_ACC_RDONLY, access);
    check(file >= 0, "H5Fopen");
    snprintf(line, sizeof line, "H5Fopen flags=%u", H5F_ACC_RDONLY);
    said(line);
    group = H5Gopen2(file, "results", H5P_DEFAULT);
    check(group >= 0, "H5Gopen2");
    said("H5Gopen2 name=results");
    contiguous = H5Dopen2(group, "contiguous", H5P_DEFAULT);
    check(contiguous >= 0, "H5Dopen2");
    said("H5Dopen2 name=contiguous dataset=4");
    double *all = malloc(total * sizeof(double));
    check(all && H5Dread(contiguous, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0,
          "H5Dread whole");
    snprintf(line, sizeof line,
             "H5Dread dataset=4 size=%llu memTypeSize=%zu fileTypeSize=%zu transfer=independent",
             (unsigned long long)(total * sizeof(double)), sizeof(double), sizeof(double));
    said(line);
    for (hsize_t i = 0; i < total; ++i)
        check(all[i] == (double)(i / CONTIGUOUS_PER_RANK) * 1e4 + (double)(i % CONTIGUOUS_PER_RANK),
              "read whole");
    free(all);
    attribute = H5Aopen(group, "units", H5P_DEFAULT);
    check(attribute >= 0, "H5Aopen");
    said("H5Aopen name=units");
    int read_units[3] = {0, 0, 0};
    check(H5Aread(attribute, H5T_NATIVE_INT, read_units) >= 0 && read_units[2] == 3, "H5Aread");
    snprintf(line, sizeof line, "H5Aread size=%zu memTypeSize=%zu", 3 * sizeof(int), sizeof(int));
    said(line);
    check(H5Aclose(attribute) >= 0, "H5Aclose");
    said("H5Aclose");

    /* An invalid dataset id: HDF5 refuses it with its own error, which it
     * prints on stderr. */
    herr_t refused =
        H5Dwrite((hid_t)-1, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, numbers);
    check(refused < 0, "H5Dwrite on an invalid id was refused");
    snprintf(line, sizeof line, "H5Dwrite error=%d", (int)refused);
    said(line);

    check(H5Dclose(contiguous) >= 0, "H5Dclose");
    said("H5Dclose dataset=4");
    check(H5Gclose(group) >= 0, "H5Gclose");
    said("H5Gclose");
    check(H5Fclose(file) >= 0, "H5Fclose");
    said("H5Fclose");
    H5Pclose(access);
    H5Pclose(collective);
    H5Pclose(independent);
    H5Pclose(creation);
    H5Sclose(space);
    H5Sclose(memory);
    H5Sclose(chunked_space);
    H5Sclose(file_space);
    H5Sclose(chunked_memory);
    H5Sclose(attribute_space);
    printf("r%d ok\n", rank);
    MPI_Finalize();
    return 0;
}
