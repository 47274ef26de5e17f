/* The HDF5 layer remembers, per id, what HDF5 said of a transfer's
 * dataspaces, memory type and transfer list; this program changes each of
 * them in every way HDF5's API allows, between transfers that use the same
 * ids, so that a remembered answer that outlived its change shows. Every
 * transfer prints what HDF5 itself says of it at that moment, as the trace
 * must show it:
 *   r<rank> call H5Dwrite size=<bytes> memTypeSize=<bytes> transfer=<mode>
 * and, after H5close, whether HDF5 gave a dataspace the id of one before
 * ("r<rank> id-again yes"), then "r<rank> ok". Usage: hdf5_answers FILE */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include <mpi.h>

enum { PER_RANK = 64 };

static int rank, size;

static void check(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "r%d: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A write, and the line HDF5's own answers give for it: the elements of
 * the memory space's selection (the file space's where the memory space
 * is H5S_ALL) times the memory type's size, and the list's mode. */
static void write(hid_t dataset, hid_t type, hid_t memory, hid_t file, hid_t transfer,
                  const void *data) {
    check(H5Dwrite(dataset, type, memory, file, transfer, data) >= 0, "H5Dwrite");
    hssize_t elements = H5Sget_select_npoints(memory != H5S_ALL ? memory : file);
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    if (transfer != H5P_DEFAULT) check(H5Pget_dxpl_mpio(transfer, &mode) >= 0, "mode");
    printf("r%d call H5Dwrite size=%lld memTypeSize=%zu transfer=%s\n", rank,
           (long long)elements * (long long)H5Tget_size(type), H5Tget_size(type),
           mode == H5FD_MPIO_COLLECTIVE ? "collective" : "independent");
}

/* count elements: of a memory space from its start, of the file space
 * from the rank's block. */
static void select_memory(hid_t memory, hsize_t count) {
    hsize_t zero = 0;
    check(H5Sselect_hyperslab(memory, H5S_SELECT_SET, &zero, NULL, &count, NULL) >= 0, "memory");
}

static void select_file(hid_t file, hsize_t count) {
    hsize_t start = (hsize_t)rank * PER_RANK;
    check(H5Sselect_hyperslab(file, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0, "file");
}

static void select_both(hid_t memory, hid_t file, hsize_t count) {
    select_memory(memory, count);
    select_file(file, count);
}

static hid_t open_file(const char *path, int create) {
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    check(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_fapl_mpio");
    hid_t file = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, access)
                        : H5Fopen(path, H5F_ACC_RDWR, access);
    check(file >= 0, "the file");
    H5Pclose(access);
    return file;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(argc == 2, "usage: hdf5_answers FILE");
    double values[PER_RANK];
    for (int i = 0; i < PER_RANK; ++i)
        values[i] = rank * 1000 + i;

    /* The program's first dataspace: H5close below makes HDF5 give its id
     * again. */
    hsize_t first_count = 8;
    hid_t first = H5Screate_simple(1, &first_count, NULL);
    hid_t file = open_file(argv[1], 1);
    hsize_t total = (hsize_t)size * PER_RANK, per_rank = PER_RANK;
    hid_t all = H5Screate_simple(1, &total, NULL);
    hid_t doubles =
        H5Dcreate2(file, "doubles", H5T_NATIVE_DOUBLE, all, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(doubles >= 0, "H5Dcreate2");
    hid_t space = H5Scopy(all);
    hid_t memory = H5Screate_simple(1, &per_rank, NULL);

    /* The first space, all 8 of it, remembered. */
    select_file(space, 8);
    write(doubles, H5T_NATIVE_DOUBLE, first, space, H5P_DEFAULT, values);
    write(doubles, H5T_NATIVE_DOUBLE, first, space, H5P_DEFAULT, values);

    /* Selections: each call that changes one, between two writes. */
    select_both(memory, space, 10);
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    select_both(memory, space, 16);
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    hsize_t points[3] = {1, 5, 9}, file_points[3];
    for (int i = 0; i < 3; ++i)
        file_points[i] = (hsize_t)rank * PER_RANK + points[i];
    check(H5Sselect_elements(memory, H5S_SELECT_SET, 3, points) >= 0, "H5Sselect_elements");
    check(H5Sselect_elements(space, H5S_SELECT_SET, 3, file_points) >= 0, "H5Sselect_elements");
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    check(H5Sselect_all(memory) >= 0, "H5Sselect_all");
    select_file(space, PER_RANK);
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    check(H5Sselect_none(memory) >= 0 && H5Sselect_none(space) >= 0, "H5Sselect_none");
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    hid_t five = H5Screate_simple(1, &per_rank, NULL);
    select_both(five, space, 5);
    check(H5Sselect_copy(memory, five) >= 0, "H5Sselect_copy");
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    hid_t more = H5Screate_simple(1, &per_rank, NULL);
    hsize_t more_start = 20, more_count = 4;
    check(H5Sselect_hyperslab(more, H5S_SELECT_SET, &more_start, NULL, &more_count, NULL) >= 0,
          "more");
    check(H5Smodify_select(memory, H5S_SELECT_OR, more) >= 0, "H5Smodify_select");
    select_file(space, 9);
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    /* A new extent: an "all" selection becomes all of it. */
    check(H5Sselect_all(memory) >= 0, "H5Sselect_all");
    select_file(space, PER_RANK);
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    hsize_t extent = 32;
    check(H5Sset_extent_simple(memory, 1, &extent, NULL) >= 0, "H5Sset_extent_simple");
    select_file(space, (hsize_t)H5Sget_select_npoints(memory));
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    hsize_t twelve_count = 12;
    hid_t twelve = H5Screate_simple(1, &twelve_count, NULL);
    check(H5Sextent_copy(memory, twelve) >= 0, "H5Sextent_copy");
    select_file(space, (hsize_t)H5Sget_select_npoints(memory));
    write(doubles, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values);
    /* The file space alone (the memory space H5S_ALL). */
    select_file(space, 7);
    write(doubles, H5T_NATIVE_DOUBLE, H5S_ALL, space, H5P_DEFAULT, values);
    select_file(space, 11);
    write(doubles, H5T_NATIVE_DOUBLE, H5S_ALL, space, H5P_DEFAULT, values);

    /* Memory types whose size changes: set, by precision, by offset. */
    hid_t eight = H5Screate_simple(1, &first_count, NULL);
    select_both(eight, space, 8);
    long long integers[PER_RANK];
    for (int i = 0; i < PER_RANK; ++i)
        integers[i] = i;
    hid_t sized = H5Tcopy(H5T_NATIVE_INT);
    write(doubles, sized, eight, space, H5P_DEFAULT, integers);
    check(H5Tset_size(sized, 8) >= 0, "H5Tset_size");
    write(doubles, sized, eight, space, H5P_DEFAULT, integers);
    hid_t widened = H5Tcopy(H5T_NATIVE_SHORT);
    write(doubles, widened, eight, space, H5P_DEFAULT, integers);
    check(H5Tset_precision(widened, 32) >= 0, "H5Tset_precision");
    write(doubles, widened, eight, space, H5P_DEFAULT, integers);
    hid_t shifted = H5Tcopy(H5T_NATIVE_SHORT);
    write(doubles, shifted, eight, space, H5P_DEFAULT, integers);
    check(H5Tset_offset(shifted, 16) >= 0, "H5Tset_offset");
    write(doubles, shifted, eight, space, H5P_DEFAULT, integers);

    /* A compound type packed: its padding removed. */
    typedef struct {
        char tag;
        double value;
    } Pair;
    hid_t pair = H5Tcreate(H5T_COMPOUND, sizeof(Pair));
    H5Tinsert(pair, "tag", HOFFSET(Pair, tag), H5T_NATIVE_CHAR);
    H5Tinsert(pair, "value", HOFFSET(Pair, value), H5T_NATIVE_DOUBLE);
    hid_t pairs = H5Dcreate2(file, "pairs", pair, all, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(pairs >= 0, "H5Dcreate2 pairs");
    Pair pair_values[PER_RANK];
    memset(pair_values, 0, sizeof pair_values);
    write(pairs, pair, eight, space, H5P_DEFAULT, pair_values);
    check(H5Tpack(pair) >= 0, "H5Tpack");
    write(pairs, pair, eight, space, H5P_DEFAULT, pair_values);

    /* A transfer list's mode: by its own call and the generic ones. */
    hid_t transfer = H5Pcreate(H5P_DATASET_XFER);
    check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE) >= 0, "collective");
    write(doubles, H5T_NATIVE_DOUBLE, eight, space, transfer, values);
    check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_INDEPENDENT) >= 0, "independent again");
    write(doubles, H5T_NATIVE_DOUBLE, eight, space, transfer, values);
    H5FD_mpio_xfer_t collective = H5FD_MPIO_COLLECTIVE;
    /* HDF5's name of the property H5Pset_dxpl_mpio sets. */
    check(H5Pset(transfer, "io_xfer_mode", &collective) >= 0, "H5Pset");
    write(doubles, H5T_NATIVE_DOUBLE, eight, space, transfer, values);
    check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_INDEPENDENT) >= 0, "independent once more");
    write(doubles, H5T_NATIVE_DOUBLE, eight, space, transfer, values);

    H5Dclose(pairs);
    H5Dclose(doubles);
    H5Fclose(file);

    /* H5close: HDF5 closes every object and numbers ids from the first
     * again, so that a new dataspace gets the first one's id. */
    check(H5close() >= 0, "H5close");
    hsize_t again_count = 24;
    hid_t again = H5Screate_simple(1, &again_count, NULL);
    printf("r%d id-again %s\n", rank, again == first ? "yes" : "no");
    file = open_file(argv[1], 0);
    doubles = H5Dopen2(file, "doubles", H5P_DEFAULT);
    check(doubles >= 0, "H5Dopen2");
    space = H5Dget_space(doubles);
    select_file(space, 24);
    write(doubles, H5T_NATIVE_DOUBLE, again, space, H5P_DEFAULT, values);
    H5Dclose(doubles);
    H5Fclose(file);
    printf("r%d ok\n", rank);
    MPI_Finalize();
    return 0;
}
