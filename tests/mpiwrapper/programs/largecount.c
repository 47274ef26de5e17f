/* largecount.c: the MPI-4 large-count forms (MPI_X_c) are traced with the
 * tags and attributes of their int forms. Built only where the
 * MPI library's mpi.h declares them (MPICH 4). On 2 ranks: Send_c/Recv_c,
 * Isend_c/Irecv_c with Waitall, Bcast_c, Allreduce_c, Allgatherv_c,
 * Type_contiguous_c, Type_vector_c, Type_create_struct_c,
 * Type_create_resized_c, and File_write_at_c/File_read_at_all_c. */
#include <stdio.h>
#include <unistd.h>

#include "expect.h"

static const char *data_name = "largecount.dat";

static long long bytes(MPI_Count count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static void expect_count(MPI_Count count, MPI_Datatype type) {
    ex_int("size", bytes(count, type));
    ex_comm("cid", MPI_COMM_WORLD);
    ex_int("count", count);
    ex_type("tid", type);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    const int rank = tc_rank(), size = tc_size(), peer = 1 - rank;
    if (size != 2) {
        fprintf(stderr, "largecount: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int out[8], in[8] = {0};
    for (int i = 0; i < 8; ++i)
        out[i] = 100 * rank + i;

    /* Send_c / Recv_c */
    MPI_Status status;
    if (rank == 0) {
        tc_check(MPI_Send_c(out, 8, MPI_INT, peer, 5, MPI_COMM_WORLD), "MPI_Send_c");
        ex_begin("Send");
        ex_int("size", bytes(8, MPI_INT));
        ex_int("count", 8);
        ex_type("tid", MPI_INT);
        ex_int("toRank", peer);
        ex_int("toTag", 5);
        ex_comm("cid", MPI_COMM_WORLD);
        ex_end();
    } else {
        tc_check(MPI_Recv_c(in, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status),
                 "MPI_Recv_c");
        MPI_Count received = -1;
        MPI_Get_count_c(&status, MPI_INT, &received);
        tc_say("Recv_c source=%d tag=%d count=%lld data=%ld", status.MPI_SOURCE, status.MPI_TAG,
               (long long)received, tc_checksum(in, 8));
        ex_begin("Recv");
        ex_int("fromRank", peer);
        ex_int("fromTag", 5);
        ex_comm("cid", MPI_COMM_WORLD);
        ex_end();
    }

    /* Isend_c / Irecv_c, completed by one Waitall */
    MPI_Request requests[2];
    tc_check(MPI_Irecv_c(in, 4, MPI_INT, peer, 7, MPI_COMM_WORLD, &requests[0]), "MPI_Irecv_c");
    ex_begin("Irecv");
    ex_int("fromRank", peer);
    ex_int("fromTag", 7);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", "irecv");
    ex_end();
    tc_check(MPI_Isend_c(out, 4, MPI_INT, peer, 7, MPI_COMM_WORLD, &requests[1]), "MPI_Isend_c");
    ex_begin("Isend");
    ex_int("size", bytes(4, MPI_INT));
    ex_int("count", 4);
    ex_type("tid", MPI_INT);
    ex_int("toRank", peer);
    ex_int("toTag", 7);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", "isend");
    ex_end();
    tc_check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
    tc_say("Waitall data=%ld", tc_checksum(in, 4));
    ex_begin("Waitall");
    ex_for("irecv");
    ex_for("isend");
    ex_end();

    /* Bcast_c, Allreduce_c, Allgatherv_c */
    int value = rank == 1 ? 42 : 0;
    tc_check(MPI_Bcast_c(&value, 1, MPI_INT, 1, MPI_COMM_WORLD), "MPI_Bcast_c");
    tc_say("Bcast_c value=%d", value);
    ex_begin("Bcast");
    ex_int("size", bytes(1, MPI_INT));
    ex_int("rootRank", 1);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_end();
    double mine[3] = {rank, 1.0, 2.0}, sums[3];
    tc_check(MPI_Allreduce_c(mine, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
             "MPI_Allreduce_c");
    tc_say("Allreduce_c sum=%g", sums[0] + sums[1] + sums[2]);
    ex_begin("Allreduce");
    expect_count(3, MPI_DOUBLE);
    ex_end();
    MPI_Count counts[2] = {2, 3};
    MPI_Aint displacements[2] = {0, 2};
    int gathered[5] = {0};
    tc_check(MPI_Allgatherv_c(out, counts[rank], MPI_INT, gathered, counts, displacements, MPI_INT,
                              MPI_COMM_WORLD),
             "MPI_Allgatherv_c");
    tc_say("Allgatherv_c data=%ld", tc_checksum(gathered, 5));
    ex_begin("Allgatherv");
    ex_int("size", bytes(counts[rank], MPI_INT));
    ex_comm("cid", MPI_COMM_WORLD);
    ex_int("count", counts[rank]);
    ex_type("tid", MPI_INT);
    ex_end();

    /* a derived type from Type_contiguous_c, used in a File_write_at_c */
    MPI_Datatype pair;
    tc_check(MPI_Type_contiguous_c(2, MPI_INT, &pair), "MPI_Type_contiguous_c");
    ex_plain("Type_contiguous");
    tc_check(MPI_Type_commit(&pair), "MPI_Type_commit");
    const int two = 2;
    expect_typedef(pair, "pair", "MPI_COMBINER_CONTIGUOUS", 1, &two, 0, NULL, 1,
                   (MPI_Datatype[]){MPI_INT});
    ex_begin("Type_commit");
    ex_type("tid", pair);
    ex_end();

    /* the other layouts of MPI_Type_get_contents_c: counts and displacements */
    MPI_Datatype vector, structure, resized;
    tc_check(MPI_Type_vector_c(2, 1, 3, MPI_INT, &vector), "MPI_Type_vector_c");
    ex_begin("Type_vector");
    ex_type("oldTid", MPI_INT);
    ex_end();
    const int vector_ints[3] = {2, 1, 3};
    expect_typedef(vector, "vector", "MPI_COMBINER_VECTOR", 3, vector_ints, 0, NULL, 1,
                   (MPI_Datatype[]){MPI_INT});
    const MPI_Count lengths[2] = {1, 2}, displacements_c[2] = {0, 8};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE};
    tc_check(MPI_Type_create_struct_c(2, lengths, displacements_c, members, &structure),
             "MPI_Type_create_struct_c");
    ex_plain("Type_create_struct");
    const int struct_ints[3] = {2, 1, 2};
    const MPI_Aint struct_addresses[2] = {0, 8};
    expect_typedef(structure, "structure", "MPI_COMBINER_STRUCT", 3, struct_ints, 2,
                   struct_addresses, 2, members);
    tc_check(MPI_Type_create_resized_c(structure, 0, 32, &resized), "MPI_Type_create_resized_c");
    ex_plain("Type_create_resized");
    const MPI_Aint resized_addresses[2] = {0, 32};
    expect_typedef(resized, "resized", "MPI_COMBINER_RESIZED", 0, NULL, 2, resized_addresses, 1,
                   &structure);
    MPI_Datatype *const committed[2] = {&vector, &resized};
    for (int i = 0; i < 2; ++i) {
        tc_check(MPI_Type_commit(committed[i]), "MPI_Type_commit");
        ex_begin("Type_commit");
        ex_type("tid", *committed[i]);
        ex_end();
    }

    if (rank == 0) unlink(data_name);
    MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
    expect_file_line(data_name, 0);
    MPI_File fh;
    const int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    tc_check(MPI_File_open(MPI_COMM_WORLD, data_name, amode, MPI_INFO_NULL, &fh), "MPI_File_open");
    ex_begin("File_open");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_str("name", data_name);
    ex_int("flags", amode);
    ex_file("fid", data_name);
    ex_end();
    /* no rank writes before every rank's wrapper has seen the size at open */
    MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
    tc_check(MPI_File_write_at_c(fh, rank * 16, out, 2, pair, &status), "MPI_File_write_at_c");
    ex_begin("File_write_at");
    ex_file("fid", data_name);
    ex_int("offset", rank * 16);
    ex_int("size", 16);
    ex_int("count", 2);
    ex_type("tid", pair);
    ex_end();
    int back[8] = {0};
    tc_check(MPI_File_read_at_all_c(fh, 0, back, 8, MPI_INT, &status), "MPI_File_read_at_all_c");
    tc_say("File_read_at_all_c data=%ld", tc_checksum(back, 8));
    ex_begin("File_read_at_all");
    ex_file("fid", data_name);
    ex_int("offset", 0);
    ex_int("size", bytes(8, MPI_INT));
    ex_int("count", 8);
    ex_type("tid", MPI_INT);
    ex_end();
    tc_check(MPI_File_close(&fh), "MPI_File_close");
    ex_begin("File_close");
    ex_file("fid", data_name);
    ex_end();
    MPI_Datatype *const derived[4] = {&pair, &vector, &structure, &resized};
    for (int i = 0; i < 4; ++i) {
        tc_forget_type(*derived[i]);
        MPI_Type_free(derived[i]);
        ex_plain("Type_free");
    }
    tc_finalize();
    return 0;
}
