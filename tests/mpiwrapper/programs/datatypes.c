/* datatypes.c: one derived datatype of every combiner (DUP, CONTIGUOUS,
 * VECTOR, HVECTOR, INDEXED, HINDEXED, INDEXED_BLOCK, HINDEXED_BLOCK, STRUCT,
 * SUBARRAY, DARRAY, RESIZED), nested compositions, a type freed and
 * re-created (ids are never reused), and a send from MPI_BOTTOM with
 * absolute addresses. Each rank sends to itself; runs on any rank count. */
#include <string.h>

#include "expect.h"

static void expect_commit(MPI_Datatype *type) {
    tc_check(MPI_Type_commit(type), "MPI_Type_commit");
    ex_begin("Type_commit");
    ex_type("tid", *type);
    ex_end();
}

static void expect_vector_call(MPI_Datatype old) {
    ex_begin("Type_vector");
    ex_type("oldTid", old);
    ex_end();
}

static void send_to_self(const void *buffer, int count, MPI_Datatype type, void *recv,
                         int recvcount, MPI_Datatype recvtype, const char *what) {
    int rank = tc_rank(), size = 0;
    MPI_Status status;
    MPI_Type_size(type, &size);
    int rc = MPI_Sendrecv(buffer, count, type, rank, 7, recv, recvcount, recvtype, rank, 7,
                          MPI_COMM_WORLD, &status);
    int received = -7;
    MPI_Get_count(&status, recvtype, &received);
    tc_say("%s Sendrecv rc=%d source=%d tag=%d count=%d", what, rc, status.MPI_SOURCE,
           status.MPI_TAG, received);
    ex_begin("Sendrecv");
    ex_int("size", (long long)count * size);
    ex_int("toRank", rank);
    ex_int("toTag", 7);
    ex_int("fromRank", rank);
    ex_int("fromTag", 7);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_int("count", count);
    ex_type("tid", type);
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    MPI_Datatype t_int = MPI_INT, t_double = MPI_DOUBLE;

    MPI_Datatype dup;
    MPI_Type_dup(MPI_INT, &dup);
    ex_plain("Type_dup");
    expect_typedef(dup, "dup", "MPI_COMBINER_DUP", 0, NULL, 0, NULL, 1, &t_int);
    expect_commit(&dup);

    MPI_Datatype contiguous;
    int contiguous_ints[1] = {3};
    MPI_Type_contiguous(3, MPI_DOUBLE, &contiguous);
    ex_plain("Type_contiguous");
    expect_typedef(contiguous, "contiguous", "MPI_COMBINER_CONTIGUOUS", 1, contiguous_ints, 0, NULL,
                   1, &t_double);
    expect_commit(&contiguous);

    MPI_Datatype vector;
    int vector_ints[3] = {2, 3, 5};
    MPI_Type_vector(2, 3, 5, MPI_INT, &vector);
    expect_vector_call(MPI_INT);
    expect_typedef(vector, "vector", "MPI_COMBINER_VECTOR", 3, vector_ints, 0, NULL, 1, &t_int);
    expect_commit(&vector);

    MPI_Datatype hvector;
    int hvector_ints[2] = {2, 1};
    MPI_Aint hvector_addrs[1] = {24};
    MPI_Type_create_hvector(2, 1, 24, MPI_DOUBLE, &hvector);
    ex_plain("Type_create_hvector");
    expect_typedef(hvector, "hvector", "MPI_COMBINER_HVECTOR", 2, hvector_ints, 1, hvector_addrs, 1,
                   &t_double);
    expect_commit(&hvector);

    MPI_Datatype indexed;
    int indexed_lengths[3] = {1, 2, 3}, indexed_displs[3] = {0, 4, 9};
    int indexed_ints[7] = {3, 1, 2, 3, 0, 4, 9};
    MPI_Type_indexed(3, indexed_lengths, indexed_displs, MPI_INT, &indexed);
    ex_plain("Type_indexed");
    expect_typedef(indexed, "indexed", "MPI_COMBINER_INDEXED", 7, indexed_ints, 0, NULL, 1, &t_int);
    expect_commit(&indexed);

    MPI_Datatype hindexed;
    int hindexed_lengths[2] = {2, 1}, hindexed_ints[3] = {2, 2, 1};
    MPI_Aint hindexed_displs[2] = {0, 40};
    MPI_Type_create_hindexed(2, hindexed_lengths, hindexed_displs, MPI_INT, &hindexed);
    ex_plain("Type_create_hindexed");
    expect_typedef(hindexed, "hindexed", "MPI_COMBINER_HINDEXED", 3, hindexed_ints, 2,
                   hindexed_displs, 1, &t_int);
    expect_commit(&hindexed);

    MPI_Datatype indexed_block;
    int block_displs[3] = {0, 3, 7}, indexed_block_ints[5] = {3, 2, 0, 3, 7};
    MPI_Type_create_indexed_block(3, 2, block_displs, MPI_INT, &indexed_block);
    ex_plain("Type_create_indexed_block");
    expect_typedef(indexed_block, "indexed_block", "MPI_COMBINER_INDEXED_BLOCK", 5,
                   indexed_block_ints, 0, NULL, 1, &t_int);
    expect_commit(&indexed_block);

    MPI_Datatype hindexed_block;
    int hindexed_block_ints[2] = {2, 3};
    MPI_Aint hblock_displs[2] = {0, 64};
    MPI_Type_create_hindexed_block(2, 3, hblock_displs, MPI_INT, &hindexed_block);
    ex_plain("Type_create_hindexed_block");
    expect_typedef(hindexed_block, "hindexed_block", "MPI_COMBINER_HINDEXED_BLOCK", 2,
                   hindexed_block_ints, 2, hblock_displs, 1, &t_int);
    expect_commit(&hindexed_block);

    MPI_Datatype structure;
    int struct_lengths[2] = {4, 5}, struct_ints[3] = {2, 4, 5};
    MPI_Aint struct_displs[2] = {0, 16};
    MPI_Datatype struct_types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, struct_lengths, struct_displs, struct_types, &structure);
    ex_plain("Type_create_struct");
    expect_typedef(structure, "struct", "MPI_COMBINER_STRUCT", 3, struct_ints, 2, struct_displs, 2,
                   struct_types);
    expect_commit(&structure);

    MPI_Datatype subarray;
    int sizes[2] = {6, 8}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    int subarray_ints[8] = {2, 6, 8, 2, 3, 1, 2, MPI_ORDER_C};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &subarray);
    ex_plain("Type_create_subarray");
    expect_typedef(subarray, "subarray", "MPI_COMBINER_SUBARRAY", 8, subarray_ints, 0, NULL, 1,
                   &t_int);
    expect_commit(&subarray);

    MPI_Datatype darray;
    int gsizes[2] = {8, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {size, 1};
    int darray_ints[12] = {size,     rank,        2,           8,
                           6,        distribs[0], distribs[1], dargs[0],
                           dargs[1], psizes[0],   psizes[1],   MPI_ORDER_FORTRAN};
    MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN,
                           MPI_DOUBLE, &darray);
    ex_plain("Type_create_darray");
    expect_typedef(darray, "darray", "MPI_COMBINER_DARRAY", 12, darray_ints, 0, NULL, 1, &t_double);
    expect_commit(&darray);

    MPI_Datatype resized;
    MPI_Aint resized_addrs[2] = {-8, 100};
    MPI_Type_create_resized(vector, -8, 100, &resized);
    ex_plain("Type_create_resized");
    expect_typedef(resized, "resized", "MPI_COMBINER_RESIZED", 0, NULL, 2, resized_addrs, 1,
                   &vector);
    expect_commit(&resized);

    /* Nested: a vector of a struct of (hvector, indexed, subarray), never
     * used before its commit, so its whole tree is written children first. */
    MPI_Datatype inner_contiguous, nested_struct, nested_vector;
    int inner_ints[1] = {2};
    MPI_Type_contiguous(2, indexed_block, &inner_contiguous);
    ex_plain("Type_contiguous");
    expect_typedef(inner_contiguous, "inner_contiguous", "MPI_COMBINER_CONTIGUOUS", 1, inner_ints,
                   0, NULL, 1, &indexed_block);
    int nested_lengths[3] = {1, 2, 1}, nested_ints[4] = {3, 1, 2, 1};
    MPI_Aint nested_displs[3] = {0, 64, 512};
    MPI_Datatype nested_types[3] = {inner_contiguous, hvector, subarray};
    MPI_Type_create_struct(3, nested_lengths, nested_displs, nested_types, &nested_struct);
    ex_plain("Type_create_struct");
    expect_typedef(nested_struct, "nested_struct", "MPI_COMBINER_STRUCT", 4, nested_ints, 3,
                   nested_displs, 3, nested_types);
    int nested_vector_ints[3] = {2, 1, 3};
    MPI_Type_vector(2, 1, 3, nested_struct, &nested_vector);
    expect_vector_call(nested_struct);
    expect_typedef(nested_vector, "nested_vector", "MPI_COMBINER_VECTOR", 3, nested_vector_ints, 0,
                   NULL, 1, &nested_struct);
    expect_commit(&nested_vector);

    /* Transfers with derived types. */
    int ints[64], got[64];
    double doubles[16], got_doubles[16];
    for (int i = 0; i < 64; ++i)
        ints[i] = rank * 100 + i;
    for (int i = 0; i < 16; ++i)
        doubles[i] = i * 0.25;
    memset(got, 0, sizeof got);
    send_to_self(ints, 2, vector, got, 12, MPI_INT, "vector");
    tc_say("data=%d %d", got[0], got[11]);
    send_to_self(doubles, 1, contiguous, got_doubles, 3, MPI_DOUBLE, "contiguous");
    tc_say("data=%g", got_doubles[2]);
    send_to_self(ints, 1, indexed_block, got, 6, MPI_INT, "indexed_block");
    tc_say("data=%d", got[5]);

    /* MPI_BOTTOM with a struct of absolute addresses. */
    MPI_Datatype absolute;
    int absolute_length[1] = {3}, absolute_ints[2] = {1, 3};
    MPI_Aint absolute_displs[1];
    MPI_Get_address(&ints[10], &absolute_displs[0]);
    MPI_Type_create_struct(1, absolute_length, absolute_displs, &t_int, &absolute);
    ex_plain("Type_create_struct");
    expect_typedef(absolute, "absolute", "MPI_COMBINER_STRUCT", 2, absolute_ints, 1,
                   absolute_displs, 1, &t_int);
    expect_commit(&absolute);
    send_to_self(MPI_BOTTOM, 1, absolute, got, 3, MPI_INT, "bottom");
    tc_say("data=%d %d", got[0], got[2]);

    /* Free a type and make an identical one: one definition, one id. */
    tc_forget_type(vector);
    MPI_Type_free(&vector);
    ex_plain("Type_free");
    MPI_Datatype vector_again;
    MPI_Type_vector(2, 3, 5, MPI_INT, &vector_again);
    expect_vector_call(MPI_INT);
    expect_typedef(vector_again, "vector_again", "MPI_COMBINER_VECTOR", 3, vector_ints, 0, NULL, 1,
                   &t_int);
    expect_commit(&vector_again);
    send_to_self(ints, 1, vector_again, got, 6, MPI_INT, "vector_again");
    tc_say("data=%d", got[5]);

    MPI_Datatype *to_free[] = {&dup,           &contiguous,    &hvector,        &indexed,
                               &hindexed,      &indexed_block, &hindexed_block, &structure,
                               &subarray,      &darray,        &resized,        &inner_contiguous,
                               &nested_struct, &nested_vector, &absolute,       &vector_again};
    for (size_t i = 0; i < sizeof to_free / sizeof to_free[0]; ++i) {
        tc_forget_type(*to_free[i]);
        MPI_Type_free(to_free[i]);
        ex_plain("Type_free");
    }
    tc_finalize();
    return 0;
}
