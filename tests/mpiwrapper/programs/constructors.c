/* constructors.c: one derived datatype per MPI type constructor, and the
 * nested kind parallel HDF5 makes (a resized vector of an indexed type).
 * Each is committed (so the trace names its id, in this order) and used in
 * an MPI_Sendrecv to the rank itself. For each, the program writes to
 * <dir>/types_<rank>.txt what MPI says of it:
 *   type <label> <combiner> <size> <lb> <extent> <true lb> <true extent>
 * (combiner without MPI_COMBINER_; sizes from MPI_Type_size_x and
 * MPI_Type_get_extent_x, the data's span from MPI_Type_get_true_extent_x).
 * Usage: constructors <dir>   (any number of ranks)
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static FILE *expect;

static void check(int code, const char *what) {
    if (code != MPI_SUCCESS) {
        fprintf(stderr, "constructors: %s failed (%d)\n", what, code);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void use_type(const char *label, const char *combiner, MPI_Datatype *type) {
    check(MPI_Type_commit(type), label);
    MPI_Count size, lb, extent, true_lb, true_extent;
    check(MPI_Type_size_x(*type, &size), "MPI_Type_size_x");
    check(MPI_Type_get_extent_x(*type, &lb, &extent), "MPI_Type_get_extent_x");
    check(MPI_Type_get_true_extent_x(*type, &true_lb, &true_extent), "true extent");
    fprintf(expect, "type %s %s %lld %lld %lld %lld %lld\n", label, combiner, (long long)size,
            (long long)lb, (long long)extent, (long long)true_lb, (long long)true_extent);
    /* One instance to the rank itself, in buffers that hold the data's span. */
    char *out = calloc((size_t)true_extent + 1, 1), *in = calloc((size_t)true_extent + 1, 1);
    for (MPI_Count i = 0; i < true_extent; ++i)
        out[i] = (char)i;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check(MPI_Sendrecv(out - true_lb, 1, *type, rank, 7, in - true_lb, 1, *type, rank, 7,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    free(out);
    free(in);
}

struct padded {
    int a;
    double b[2];
    char c;
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: constructors <dir>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/types_%d.txt", argv[1], rank);
    expect = fopen(path, "w");
    if (!expect) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Datatype t;
    MPI_Type_contiguous(5, MPI_INT, &t);
    use_type("contiguous", "CONTIGUOUS", &t);
    MPI_Datatype vector;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vector);
    use_type("vector", "VECTOR", &vector);
    MPI_Type_create_hvector(3, 2, 20, MPI_INT, &t);
    use_type("hvector-whole-stride", "HVECTOR", &t);
    MPI_Type_create_hvector(4, 1, 6, MPI_INT, &t);
    use_type("hvector-byte-stride", "HVECTOR", &t);
    MPI_Type_create_hvector(3, 1, -8, MPI_INT, &t);
    use_type("hvector-negative-stride", "HVECTOR", &t);

    int lengths[] = {2, 1, 3}, displacements[] = {0, 4, 9};
    MPI_Type_indexed(3, lengths, displacements, MPI_INT, &t);
    use_type("indexed", "INDEXED", &t);
    int equal_lengths[] = {2, 2, 2}, equal_steps[] = {0, 5, 10};
    MPI_Type_indexed(3, equal_lengths, equal_steps, MPI_INT, &t);
    use_type("indexed-as-vector", "INDEXED", &t);
    int hlengths[] = {3, 1};
    MPI_Aint hdisplacements[] = {8, 64};
    MPI_Type_create_hindexed(2, hlengths, hdisplacements, MPI_DOUBLE, &t);
    use_type("hindexed", "HINDEXED", &t);
    int block_displacements[] = {1, 5, 9};
    MPI_Type_create_indexed_block(3, 2, block_displacements, MPI_FLOAT, &t);
    use_type("indexed-block", "INDEXED_BLOCK", &t);
    MPI_Aint hblock_displacements[] = {0, 16, 40};
    MPI_Type_create_hindexed_block(3, 2, hblock_displacements, MPI_SHORT, &t);
    use_type("hindexed-block", "HINDEXED_BLOCK", &t);

    int struct_lengths[] = {1, 2, 1};
    MPI_Aint struct_displacements[] = {offsetof(struct padded, a), offsetof(struct padded, b),
                                       offsetof(struct padded, c)};
    MPI_Datatype struct_types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Datatype structure;
    MPI_Type_create_struct(3, struct_lengths, struct_displacements, struct_types, &structure);
    use_type("struct-with-padding", "STRUCT", &structure);

    int sizes[] = {6, 8}, subsizes[] = {2, 3}, starts[] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    use_type("subarray-c", "SUBARRAY", &t);
    int sizes3[] = {4, 5, 6}, subsizes3[] = {2, 2, 3}, starts3[] = {1, 0, 3};
    MPI_Type_create_subarray(3, sizes3, subsizes3, starts3, MPI_ORDER_FORTRAN, MPI_INT, &t);
    use_type("subarray-fortran", "SUBARRAY", &t);

    /* A 1 x size process grid over 12 x (4 size) elements: rows whole,
     * columns in blocks, then cyclic in pairs. */
    int gsizes[] = {12, 4 * size}, psizes[] = {1, size};
    int block_distribs[] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    int default_dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(size, rank, 2, gsizes, block_distribs, default_dargs, psizes,
                           MPI_ORDER_C, MPI_INT, &t);
    use_type("darray-block", "DARRAY", &t);
    int cyclic_distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int pair_dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    MPI_Type_create_darray(size, rank, 2, gsizes, cyclic_distribs, pair_dargs, psizes,
                           MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    use_type("darray-cyclic", "DARRAY", &t);

    MPI_Type_dup(vector, &t);
    use_type("dup", "DUP", &t);
    MPI_Type_create_resized(MPI_INT, 0, 16, &t);
    use_type("resized-lb-0", "RESIZED", &t);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_create_resized(pair, 8, 48, &t);
    use_type("resized-lb-8", "RESIZED", &t);

    /* As parallel HDF5 builds a file view: a resized vector of an indexed type. */
    int nested_lengths[] = {1, 1}, nested_displacements[] = {0, 3};
    MPI_Datatype indexed, strided;
    MPI_Type_indexed(2, nested_lengths, nested_displacements, MPI_INT, &indexed);
    MPI_Type_vector(2, 1, 3, indexed, &strided);
    MPI_Type_create_resized(strided, 0, 200, &t);
    use_type("resized-vector-of-indexed", "RESIZED", &t);

    fclose(expect);
    MPI_Finalize();
    return 0;
}
