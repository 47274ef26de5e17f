/* merge_e2e.c: a traced program for the merger's end-to-end test.
 *
 * It creates communicators (a dup of WORLD, two splits with equal member
 * sets, a split that the last rank is not part of, a SELF dup on rank 0
 * only so that ranks number their communicators differently, a Cartesian
 * communicator, halves and an intercommunicator between them) and derived
 * datatypes of every Appendix B combiner. It uses each communicator in an
 * MPI_Barrier and commits each type (MPI_Type_commit), so that the trace
 * gives their ids in this order, and writes what MPI says about them to
 * <dir>/expect_<rank>.txt:
 *   comm <label> <world>:<local> ...      every member (both groups of an
 *                                         intercommunicator)
 *   type <label> <size> <lb> <extent>
 * Usage: merge_e2e <dir>   (2 to 8 ranks; 4 are best)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

static FILE *expect;

static void translate(MPI_Group group, MPI_Group world_group) {
    int n;
    MPI_Group_size(group, &n);
    int locals[64], worlds[64];
    for (int i = 0; i < n; ++i)
        locals[i] = i;
    MPI_Group_translate_ranks(group, n, locals, world_group, worlds);
    for (int i = 0; i < n; ++i)
        fprintf(expect, " %d:%d", worlds[i], locals[i]);
}

static void use_comm(const char *label, MPI_Comm comm) {
    MPI_Group world_group, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    fprintf(expect, "comm %s", label);
    MPI_Comm_group(comm, &group);
    translate(group, world_group);
    MPI_Group_free(&group);
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter) {
        MPI_Comm_remote_group(comm, &group);
        translate(group, world_group);
        MPI_Group_free(&group);
    }
    fprintf(expect, "\n");
    MPI_Group_free(&world_group);
    MPI_Barrier(comm);
}

static void use_type(const char *label, MPI_Datatype *type) {
    MPI_Type_commit(type);
    int size;
    MPI_Aint lb, extent;
    MPI_Type_size(*type, &size);
    MPI_Type_get_extent(*type, &lb, &extent);
    fprintf(expect, "type %s %d %ld %ld\n", label, size, (long)lb, (long)extent);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || size < 2 || size > 8) {
        if (rank == 0) fprintf(stderr, "usage: merge_e2e <dir>, on 2 to 8 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/expect_%d.txt", argv[1], rank);
    expect = fopen(path, "w");
    if (!expect) MPI_Abort(MPI_COMM_WORLD, 3);

    /* --- Communicators. */
    use_comm("world", MPI_COMM_WORLD);
    MPI_Comm dup, split_a, split_b, partial, self_dup, cart, halves, inter;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    use_comm("dup", dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split_a);
    use_comm("splitA", split_a);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split_b);
    use_comm("splitB", split_b);
    if (rank == 0) {
        MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
        use_comm("selfdup", self_dup);
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 ? MPI_UNDEFINED : 0, size - rank, &partial);
    if (partial != MPI_COMM_NULL) use_comm("partial", partial);
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    use_comm("cart", cart);
    const int low = rank < size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &halves);
    use_comm("halves", halves);
    MPI_Intercomm_create(halves, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter);
    use_comm("inter", inter);

    /* --- Datatypes, every combiner of Appendix B. */
    MPI_Datatype contiguous, vector, hvector, indexed, hindexed, indexed_block, hindexed_block,
        structure, resized, dup_type, subarray_c, subarray_f, darray, nested;
    MPI_Type_contiguous(4, MPI_INT, &contiguous);
    use_type("contiguous", &contiguous);
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vector);
    use_type("vector", &vector);
    MPI_Type_create_hvector(3, 2, 80, MPI_DOUBLE, &hvector);
    use_type("hvector", &hvector);
    int lengths[3] = {3, 1, 2}, displacements[3] = {0, 7, 12};
    MPI_Type_indexed(3, lengths, displacements, MPI_INT, &indexed);
    use_type("indexed", &indexed);
    MPI_Aint byte_displacements[3] = {0, 40, 100};
    MPI_Type_create_hindexed(3, lengths, byte_displacements, MPI_INT, &hindexed);
    use_type("hindexed", &hindexed);
    MPI_Type_create_indexed_block(3, 2, displacements, MPI_FLOAT, &indexed_block);
    use_type("indexed_block", &indexed_block);
    MPI_Type_create_hindexed_block(3, 2, byte_displacements, MPI_SHORT, &hindexed_block);
    use_type("hindexed_block", &hindexed_block);
    /* Naturally aligned (ub 24 is a multiple of 8), so no padding question. */
    int struct_lengths[3] = {1, 3, 4};
    MPI_Aint struct_displacements[3] = {0, 8, 20};
    MPI_Datatype struct_types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(3, struct_lengths, struct_displacements, struct_types, &structure);
    use_type("struct", &structure);
    MPI_Type_create_resized(structure, -8, 40, &resized);
    use_type("resized", &resized);
    MPI_Type_dup(vector, &dup_type);
    use_type("dup", &dup_type);
    int sizes[2] = {10, 20}, subsizes[2] = {4, 6}, starts[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &subarray_c);
    use_type("subarray_c", &subarray_c);
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &subarray_f);
    use_type("subarray_f", &subarray_f);
    int gsizes[2] = {9, 10}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, size / 2};
    MPI_Type_create_darray(size / 2 * 2, rank < size / 2 * 2 ? rank : 0, 2, gsizes, distribs, dargs,
                           psizes, MPI_ORDER_C, MPI_INT, &darray);
    use_type("darray", &darray);
    MPI_Type_contiguous(2, resized, &nested);
    use_type("nested", &nested);

    fclose(expect);
    MPI_Finalize();
    return 0;
}
