/* p2p.c: blocking point-to-point calls (Send, Bsend, Rsend, Ssend, Recv,
 * Probe, Sendrecv, Sendrecv_replace) on MPI_COMM_WORLD and on a split
 * communicator with reversed ranks, with wildcards, MPI_STATUS_IGNORE,
 * MPI_PROC_NULL peers and zero counts. Needs at least 2 ranks. */
#include <stdlib.h>

#include "expect.h"

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static void expect_send(const char *tag, int count, MPI_Datatype type, MPI_Comm comm, int dest,
                        int msgtag) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("toRank", tc_world_rank(comm, dest));
    ex_int("toTag", msgtag);
    ex_comm("cid", comm);
    ex_end();
}

static void expect_recv(MPI_Comm comm, int source, int msgtag) {
    ex_begin("Recv");
    ex_int("fromRank", tc_world_rank(comm, source));
    ex_int("fromTag", msgtag == MPI_ANY_TAG ? -1 : msgtag);
    ex_comm("cid", comm);
    ex_end();
}

static void say_status(const char *what, int rc, MPI_Status *status, MPI_Datatype type) {
    int count = -7;
    MPI_Get_count(status, type, &count);
    tc_say("%s rc=%d source=%d tag=%d count=%d", what, rc, status->MPI_SOURCE, status->MPI_TAG,
           count);
}

static int sum(const int *v, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += v[i] * (i + 1);
    return s;
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    MPI_Comm world = MPI_COMM_WORLD;
    int ints[16], got[16], rc;
    double doubles[5] = {1.5, 2.5, 3.5, 4.5, 5.5}, got_doubles[5];
    MPI_Status status;
    for (int i = 0; i < 16; ++i)
        ints[i] = 100 * rank + i;

    /* Reversed order in the halves: local rank != world rank. */
    MPI_Comm half;
    rc = MPI_Comm_split(world, rank % 2, size - rank, &half);
    tc_check(rc, "MPI_Comm_split");
    tc_label_comm(half, "half");
    ex_begin("Comm_split");
    ex_comm("cid", world);
    ex_comm("newCid", half);
    ex_end();

    int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    int sender = rank % 2 == 0;
    if (partner < size) {
        /* Send, received with both wildcards and MPI_STATUS_IGNORE. */
        if (sender) {
            rc = MPI_Send(ints, 10, MPI_INT, partner, 11, world);
            tc_say("Send rc=%d", rc);
            expect_send("Send", 10, MPI_INT, world, partner, 11);
        } else {
            rc = MPI_Recv(got, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, world, MPI_STATUS_IGNORE);
            tc_say("Recv rc=%d data=%d", rc, sum(got, 10));
            expect_recv(world, partner, 11);
        }
        /* Bsend of doubles, received with a status. */
        if (sender) {
            int bufsize = 0;
            MPI_Pack_size(5, MPI_DOUBLE, world, &bufsize);
            bufsize += MPI_BSEND_OVERHEAD;
            void *buffer = malloc((size_t)bufsize);
            MPI_Buffer_attach(buffer, bufsize);
            rc = MPI_Bsend(doubles, 5, MPI_DOUBLE, partner, 12, world);
            tc_say("Bsend rc=%d", rc);
            expect_send("Bsend", 5, MPI_DOUBLE, world, partner, 12);
            MPI_Buffer_detach(&buffer, &bufsize);
            free(buffer);
        } else {
            rc = MPI_Recv(got_doubles, 5, MPI_DOUBLE, partner, 12, world, &status);
            say_status("Recv", rc, &status, MPI_DOUBLE);
            tc_say("data=%g", got_doubles[0] + got_doubles[4]);
            expect_recv(world, partner, 12);
        }
        /* Rsend: the receive is posted before a zero-count handshake. */
        if (sender) {
            rc = MPI_Recv(NULL, 0, MPI_INT, partner, 99, world, &status);
            say_status("Recv handshake", rc, &status, MPI_INT);
            expect_recv(world, partner, 99);
            rc = MPI_Rsend(ints, 3, MPI_INT, partner, 13, world);
            tc_say("Rsend rc=%d", rc);
            expect_send("Rsend", 3, MPI_INT, world, partner, 13);
        } else {
            MPI_Request request;
            rc = MPI_Irecv(got, 3, MPI_INT, partner, 13, world, &request);
            tc_say("Irecv rc=%d", rc);
            ex_begin("Irecv");
            ex_int("fromRank", tc_world_rank(world, partner));
            ex_int("fromTag", 13);
            ex_comm("cid", world);
            ex_rid("rid", "rsend-receive");
            ex_end();
            rc = MPI_Send(NULL, 0, MPI_INT, partner, 99, world);
            tc_say("Send handshake rc=%d", rc);
            expect_send("Send", 0, MPI_INT, world, partner, 99);
            rc = MPI_Wait(&request, &status);
            say_status("Wait", rc, &status, MPI_INT);
            tc_say("data=%d null=%d", sum(got, 3), request == MPI_REQUEST_NULL);
            ex_begin("Wait");
            ex_for("rsend-receive");
            ex_end();
        }
        /* Ssend of zero elements, probed first, received with MPI_ANY_TAG. */
        if (sender) {
            rc = MPI_Ssend(ints, 0, MPI_DOUBLE, partner, 14, world);
            tc_say("Ssend rc=%d", rc);
            expect_send("Ssend", 0, MPI_DOUBLE, world, partner, 14);
        } else {
            rc = MPI_Probe(MPI_ANY_SOURCE, 14, world, &status);
            say_status("Probe", rc, &status, MPI_DOUBLE);
            ex_plain("Probe");
            rc = MPI_Recv(got, 16, MPI_DOUBLE, partner, MPI_ANY_TAG, world, &status);
            say_status("Recv", rc, &status, MPI_DOUBLE);
            expect_recv(world, partner, 14);
        }
        /* Sendrecv: the count and type logged are the send side's. */
        rc = MPI_Sendrecv(ints, 4, MPI_INT, partner, 15 + rank, got, 8, MPI_INT, MPI_ANY_SOURCE,
                          MPI_ANY_TAG, world, MPI_STATUS_IGNORE);
        tc_say("Sendrecv rc=%d data=%d", rc, sum(got, 4));
        ex_begin("Sendrecv");
        ex_int("size", bytes(4, MPI_INT));
        ex_int("toRank", partner);
        ex_int("toTag", 15 + rank);
        ex_int("fromRank", partner);
        ex_int("fromTag", 15 + partner);
        ex_comm("cid", world);
        ex_int("count", 4);
        ex_type("tid", MPI_INT);
        ex_end();
        /* Sendrecv_replace with a status. */
        for (int i = 0; i < 5; ++i)
            got_doubles[i] = doubles[i] * (rank + 1);
        rc = MPI_Sendrecv_replace(got_doubles, 5, MPI_DOUBLE, partner, 40, partner, 40, world,
                                  &status);
        say_status("Sendrecv_replace", rc, &status, MPI_DOUBLE);
        tc_say("data=%g", got_doubles[1]);
        ex_begin("Sendrecv_replace");
        ex_int("sendSize", bytes(5, MPI_DOUBLE));
        ex_int("toRank", partner);
        ex_int("toTag", 40);
        ex_int("fromRank", partner);
        ex_int("fromTag", 40);
        ex_comm("cid", world);
        ex_int("count", 5);
        ex_type("tid", MPI_DOUBLE);
        ex_end();
    }

    /* MPI_PROC_NULL peers: the calls return at once with the null status. */
    rc = MPI_Send(ints, 2, MPI_INT, MPI_PROC_NULL, 16, world);
    tc_say("Send to PROC_NULL rc=%d", rc);
    expect_send("Send", 2, MPI_INT, world, MPI_PROC_NULL, 16);
    status.MPI_SOURCE = 12345;
    rc = MPI_Recv(got, 2, MPI_INT, MPI_PROC_NULL, 17, world, &status);
    say_status("Recv from PROC_NULL", rc, &status, MPI_INT);
    ex_begin("Recv");
    ex_int("fromRank", -2);
    ex_int("fromTag", -1);
    ex_comm("cid", world);
    ex_end();
    rc = MPI_Sendrecv(ints, 1, MPI_INT, MPI_PROC_NULL, 18, got, 1, MPI_INT, MPI_PROC_NULL, 19, half,
                      &status);
    say_status("Sendrecv PROC_NULL", rc, &status, MPI_INT);
    ex_begin("Sendrecv");
    ex_int("size", bytes(1, MPI_INT));
    ex_int("toRank", -2);
    ex_int("toTag", 18);
    ex_int("fromRank", -2);
    ex_int("fromTag", -1);
    ex_comm("cid", half);
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_end();

    /* A size beyond 32 bits: 1024 elements of a 4 MiB type, to MPI_PROC_NULL
     * (nothing is read). */
    MPI_Datatype big;
    int big_ints[1] = {1 << 20};
    MPI_Datatype int_type = MPI_INT;
    MPI_Type_contiguous(1 << 20, MPI_INT, &big);
    ex_plain("Type_contiguous");
    expect_typedef(big, "big", "MPI_COMBINER_CONTIGUOUS", 1, big_ints, 0, NULL, 1, &int_type);
    MPI_Type_commit(&big);
    ex_begin("Type_commit");
    ex_type("tid", big);
    ex_end();
    rc = MPI_Send(ints, 1024, big, MPI_PROC_NULL, 20, world);
    tc_say("Send of 4 GiB to PROC_NULL rc=%d", rc);
    expect_send("Send", 1024, big, world, MPI_PROC_NULL, 20);
    tc_forget_type(big);
    MPI_Type_free(&big);
    ex_plain("Type_free");

    /* On the split communicator: local ranks are translated to world ranks. */
    int half_rank = 0, half_size = 0;
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_size(half, &half_size);
    if (half_size >= 2) {
        if (half_rank == 0) {
            rc = MPI_Send(ints, 2, MPI_INT, 1, 21, half);
            tc_say("Send on half rc=%d", rc);
            expect_send("Send", 2, MPI_INT, half, 1, 21);
            rc = MPI_Ssend(doubles, 1, MPI_DOUBLE, 1, 22, half);
            tc_say("Ssend on half rc=%d", rc);
            expect_send("Ssend", 1, MPI_DOUBLE, half, 1, 22);
        } else if (half_rank == 1) {
            rc = MPI_Recv(got, 2, MPI_INT, MPI_ANY_SOURCE, 21, half, &status);
            say_status("Recv on half", rc, &status, MPI_INT);
            expect_recv(half, status.MPI_SOURCE, 21);
            rc = MPI_Recv(got_doubles, 1, MPI_DOUBLE, 0, MPI_ANY_TAG, half, MPI_STATUS_IGNORE);
            tc_say("Recv on half rc=%d data=%g", rc, got_doubles[0]);
            expect_recv(half, 0, 22);
        }
    }

    ex_begin("Comm_free");
    ex_comm("cid", half);
    ex_end();
    tc_forget_comm(half);
    rc = MPI_Comm_free(&half);
    tc_say("Comm_free rc=%d null=%d", rc, half == MPI_COMM_NULL);

    tc_finalize();
    return 0;
}
