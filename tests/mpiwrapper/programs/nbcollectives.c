/* nbcollectives.c: the nonblocking collectives (Ibarrier ... Iexscan), each
 * completed by a Wait that must hold its <For rid/>, on MPI_COMM_WORLD and
 * on a split communicator with reversed ranks, with roots other than 0 and
 * MPI_IN_PLACE; the blocking Reduce_scatter_block and Alltoallw; a Waitall
 * over {Irecv, Iallreduce, Isend} (three <For>); and Ibcast on an
 * intercommunicator (MPI_ROOT, MPI_PROC_NULL). 2 to 4 ranks (the v-forms
 * give rank r r + 1 elements in blocks of 4). */
#include <stdio.h>
#include <string.h>

#include "expect.h"

static int next_label;

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    if (type == MPI_DATATYPE_NULL) return 0; /* written with size 0: docs/format/trace.md */
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

/* A fresh request label, for the I-call's rid and its Wait's <For>. */
static const char *new_label(void) {
    static char labels[256][16];
    char *label = labels[next_label++ % 256];
    snprintf(label, 16, "nb%d", next_label);
    return label;
}

static void wait_for(MPI_Request *request, const char *label, const char *what) {
    MPI_Status status;
    int rc = MPI_Wait(request, &status);
    tc_say("%s Wait rc=%d null=%d", what, rc, *request == MPI_REQUEST_NULL);
    ex_begin("Wait");
    ex_for(label);
    ex_end();
}

/* size cid count tid rid: Iallreduce, Ialltoall, Iscan, Iexscan, Iallgatherv. */
static void expect_simple(const char *tag, MPI_Comm comm, int count, MPI_Datatype type,
                          const char *label) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_comm("cid", comm);
    ex_int("count", count);
    ex_type("tid", type);
    ex_rid("rid", label);
    ex_end();
}

/* size rootRank cid count tid rid: Ibcast, Ireduce. */
static void expect_rooted(const char *tag, MPI_Comm comm, int root, int count, MPI_Datatype type,
                          const char *label) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("rootRank", tc_world_rank(comm, root));
    ex_comm("cid", comm);
    ex_int("count", count);
    ex_type("tid", type);
    ex_rid("rid", label);
    ex_end();
}

/* Igather, Iscatter: size recvSize root rootRank cid count tid recvCount recvtid rid. */
static void expect_gather(const char *tag, MPI_Comm comm, int root, int count, MPI_Datatype type,
                          int recvcount, MPI_Datatype recvtype, const char *label) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("recvSize", bytes(recvcount, recvtype));
    ex_int("root", tc_world_rank(comm, root));
    ex_int("rootRank", tc_world_rank(comm, root));
    ex_comm("cid", comm);
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("recvCount", recvcount);
    ex_type("recvtid", recvtype);
    ex_rid("rid", label);
    ex_end();
}

static void expect_cid(const char *tag, MPI_Comm comm, const char *label) {
    ex_begin(tag);
    ex_comm("cid", comm);
    if (label) ex_rid("rid", label);
    ex_end();
}

static void run_nonblocking(MPI_Comm comm, const char *name) {
    int rank, size, rc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int root = size - 1;
    int send[64], recv[64], counts[16], displs[16];
    double dsend[8], drecv[8];
    MPI_Request request;
    const char *label;
    char what[64];
    for (int i = 0; i < 64; ++i)
        send[i] = rank * 100 + i, recv[i] = -1;
    for (int i = 0; i < 8; ++i)
        dsend[i] = rank + i * 0.5, drecv[i] = -1;

    label = new_label();
    rc = MPI_Ibarrier(comm, &request);
    snprintf(what, sizeof what, "%s Ibarrier rc=%d", name, rc);
    expect_cid("Ibarrier", comm, label);
    wait_for(&request, label, what);

    label = new_label();
    int value[3] = {rank == root ? 31 : 0, rank == root ? 32 : 0, rank == root ? 33 : 0};
    rc = MPI_Ibcast(value, 3, MPI_INT, root, comm, &request);
    expect_rooted("Ibcast", comm, root, 3, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Ibcast rc=%d data=%ld", name, rc, tc_checksum(value, 3));

    label = new_label();
    rc = MPI_Ireduce(send, recv, 4, MPI_INT, MPI_SUM, 0, comm, &request);
    expect_rooted("Ireduce", comm, 0, 4, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Ireduce rc=%d data=%ld", name, rc, rank == 0 ? tc_checksum(recv, 4) : 0L);

    /* MPI_IN_PLACE at the root of Ireduce: the same attributes. */
    label = new_label();
    memcpy(recv, send, sizeof send);
    rc = MPI_Ireduce(rank == root ? MPI_IN_PLACE : send, recv, 2, MPI_INT, MPI_MAX, root, comm,
                     &request);
    expect_rooted("Ireduce", comm, root, 2, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Ireduce in place rc=%d data=%ld", name, rc,
           rank == root ? tc_checksum(recv, 2) : 0L);

    label = new_label();
    rc = MPI_Iallreduce(dsend, drecv, 3, MPI_DOUBLE, MPI_SUM, comm, &request);
    expect_simple("Iallreduce", comm, 3, MPI_DOUBLE, label);
    wait_for(&request, label, name);
    tc_say("%s Iallreduce rc=%d data=%g %g %g", name, rc, drecv[0], drecv[1], drecv[2]);

    label = new_label();
    memcpy(drecv, dsend, sizeof dsend);
    rc = MPI_Iallreduce(MPI_IN_PLACE, drecv, 2, MPI_DOUBLE, MPI_MIN, comm, &request);
    expect_simple("Iallreduce", comm, 2, MPI_DOUBLE, label);
    wait_for(&request, label, name);
    tc_say("%s Iallreduce in place rc=%d data=%g %g", name, rc, drecv[0], drecv[1]);

    /* Igather to the last rank, then in place at that root (send side not read). */
    label = new_label();
    rc = MPI_Igather(send, 3, MPI_INT, recv, 3, MPI_INT, root, comm, &request);
    expect_gather("Igather", comm, root, 3, MPI_INT, 3, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Igather rc=%d data=%ld", name, rc, rank == root ? tc_checksum(recv, 3 * size) : 0L);

    label = new_label();
    if (rank == root) {
        rc = MPI_Igather(MPI_IN_PLACE, 12345, MPI_DOUBLE, recv, 2, MPI_INT, root, comm, &request);
        expect_gather("Igather", comm, root, 2, MPI_INT, 2, MPI_INT, label);
    } else {
        rc = MPI_Igather(send, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm, &request);
        expect_gather("Igather", comm, root, 2, MPI_INT, 0, MPI_DATATYPE_NULL, label);
    }
    wait_for(&request, label, name);
    tc_say("%s Igather in place rc=%d data=%ld", name, rc,
           rank == root ? tc_checksum(recv, 2 * size) : 0L);

    /* Igatherv: rank r sends r + 1 ints. */
    for (int r = 0; r < size; ++r)
        counts[r] = r + 1, displs[r] = 4 * r;
    label = new_label();
    rc = MPI_Igatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, comm, &request);
    ex_begin("Igatherv");
    ex_int("size", bytes(rank + 1, MPI_INT));
    ex_int("root", tc_world_rank(comm, 0));
    ex_int("rootRank", tc_world_rank(comm, 0));
    ex_comm("cid", comm);
    ex_int("count", rank + 1);
    ex_type("tid", MPI_INT);
    ex_rid("rid", label);
    ex_end();
    wait_for(&request, label, name);
    tc_say("%s Igatherv rc=%d data=%ld", name, rc, rank == 0 ? tc_checksum(recv, 4 * size) : 0L);

    /* Iscatter from the last rank; Iscatterv from rank 0 in place at the root. */
    label = new_label();
    rc = MPI_Iscatter(send, 2, MPI_INT, recv, 2, MPI_INT, root, comm, &request);
    expect_gather("Iscatter", comm, root, 2, MPI_INT, 2, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Iscatter rc=%d data=%ld", name, rc, tc_checksum(recv, 2));

    label = new_label();
    rc = MPI_Iscatterv(send, counts, displs, MPI_INT, rank == 0 ? MPI_IN_PLACE : (void *)recv,
                       rank + 1, MPI_INT, 0, comm, &request);
    ex_begin("Iscatterv");
    ex_int("recvSize", bytes(rank + 1, MPI_INT));
    ex_int("root", tc_world_rank(comm, 0));
    ex_int("rootRank", tc_world_rank(comm, 0));
    ex_comm("cid", comm);
    ex_int("recvCount", rank + 1);
    ex_type("recvtid", MPI_INT);
    ex_rid("rid", label);
    ex_end();
    wait_for(&request, label, name);
    tc_say("%s Iscatterv rc=%d data=%ld", name, rc, rank ? tc_checksum(recv, rank + 1) : 0L);

    label = new_label();
    rc = MPI_Iallgather(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &request);
    ex_begin("Iallgather");
    ex_int("size", bytes(2, MPI_INT));
    ex_int("recvSize", bytes(2, MPI_INT));
    ex_comm("cid", comm);
    ex_int("count", 2);
    ex_type("tid", MPI_INT);
    ex_int("recvCount", 2);
    ex_type("recvtid", MPI_INT);
    ex_rid("rid", label);
    ex_end();
    wait_for(&request, label, name);
    tc_say("%s Iallgather rc=%d data=%ld", name, rc, tc_checksum(recv, 2 * size));

    /* Iallgatherv in place: count is the own entry of recvcounts. */
    for (int r = 0; r < size; ++r)
        recv[displs[r]] = send[0] + r;
    label = new_label();
    rc = MPI_Iallgatherv(MPI_IN_PLACE, 55, MPI_DOUBLE, recv, counts, displs, MPI_INT, comm,
                         &request);
    expect_simple("Iallgatherv", comm, rank + 1, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Iallgatherv in place rc=%d data=%ld", name, rc, tc_checksum(recv, 4 * size));

    label = new_label();
    rc = MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &request);
    expect_simple("Ialltoall", comm, 2, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Ialltoall rc=%d data=%ld", name, rc, tc_checksum(recv, 2 * size));

    int sdispls[16], rdispls[16], ones[16];
    MPI_Datatype types[16];
    for (int r = 0; r < size; ++r)
        ones[r] = 1, sdispls[r] = r, rdispls[r] = r, types[r] = MPI_INT;
    label = new_label();
    rc = MPI_Ialltoallv(send, ones, sdispls, MPI_INT, recv, ones, rdispls, MPI_INT, comm, &request);
    expect_cid("Ialltoallv", comm, label);
    wait_for(&request, label, name);
    tc_say("%s Ialltoallv rc=%d data=%ld", name, rc, tc_checksum(recv, size));

    /* Alltoallw displacements are in bytes. */
    int wsdispls[16], wrdispls[16];
    for (int r = 0; r < size; ++r)
        wsdispls[r] = (int)sizeof(int) * r, wrdispls[r] = (int)sizeof(int) * (size - 1 - r);
    label = new_label();
    rc = MPI_Ialltoallw(send, ones, wsdispls, types, recv, ones, wrdispls, types, comm, &request);
    expect_cid("Ialltoallw", comm, label);
    wait_for(&request, label, name);
    tc_say("%s Ialltoallw rc=%d data=%ld", name, rc, tc_checksum(recv, size));
    rc = MPI_Alltoallw(send, ones, wsdispls, types, recv, ones, wrdispls, types, comm);
    expect_cid("Alltoallw", comm, NULL);
    tc_say("%s Alltoallw rc=%d data=%ld", name, rc, tc_checksum(recv, size));

    for (int r = 0; r < size; ++r)
        counts[r] = 2;
    label = new_label();
    rc = MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, comm, &request);
    expect_cid("Ireduce_scatter", comm, label);
    wait_for(&request, label, name);
    tc_say("%s Ireduce_scatter rc=%d data=%ld", name, rc, tc_checksum(recv, 2));

    label = new_label();
    rc = MPI_Ireduce_scatter_block(send, recv, 3, MPI_INT, MPI_SUM, comm, &request);
    expect_cid("Ireduce_scatter_block", comm, label);
    wait_for(&request, label, name);
    tc_say("%s Ireduce_scatter_block rc=%d data=%ld", name, rc, tc_checksum(recv, 3));
    memcpy(recv, send, sizeof send);
    rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, 2, MPI_INT, MPI_MAX, comm);
    expect_cid("Reduce_scatter_block", comm, NULL);
    tc_say("%s Reduce_scatter_block in place rc=%d data=%ld", name, rc, tc_checksum(recv, 2));

    label = new_label();
    rc = MPI_Iscan(send, recv, 3, MPI_INT, MPI_SUM, comm, &request);
    expect_simple("Iscan", comm, 3, MPI_INT, label);
    wait_for(&request, label, name);
    tc_say("%s Iscan rc=%d data=%ld", name, rc, tc_checksum(recv, 3));

    label = new_label();
    memcpy(drecv, dsend, sizeof dsend);
    rc = MPI_Iexscan(MPI_IN_PLACE, drecv, 2, MPI_DOUBLE, MPI_SUM, comm, &request);
    expect_simple("Iexscan", comm, 2, MPI_DOUBLE, label);
    wait_for(&request, label, name);
    tc_say("%s Iexscan in place rc=%d data=%g %g", name, rc, rank ? drecv[0] : 0.0,
           rank ? drecv[1] : 0.0);
}

/* Waitall over {Irecv, Iallreduce, Isend}: three <For>, in array order. */
static void mixed_waitall(void) {
    int rank = tc_rank(), size = tc_size(), rc;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank * 7, in = -1, sum_in = rank + 1, sum_out = -1;
    MPI_Request requests[3];
    MPI_Status statuses[3];
    const char *labels[3] = {"mixed_irecv", "mixed_iallreduce", "mixed_isend"};
    rc = MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &requests[0]);
    ex_begin("Irecv");
    ex_int("fromRank", left);
    ex_int("fromTag", 5);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", labels[0]);
    ex_end();
    rc = MPI_Iallreduce(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[1]);
    expect_simple("Iallreduce", MPI_COMM_WORLD, 1, MPI_INT, labels[1]);
    rc = MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &requests[2]);
    ex_begin("Isend");
    ex_int("size", bytes(1, MPI_INT));
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_int("toRank", right);
    ex_int("toTag", 5);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", labels[2]);
    ex_end();
    rc = MPI_Waitall(3, requests, statuses);
    tc_say("mixed Waitall rc=%d in=%d sum=%d source=%d tag=%d", rc, in, sum_out,
           statuses[0].MPI_SOURCE, statuses[0].MPI_TAG);
    ex_begin("Waitall");
    for (int i = 0; i < 3; ++i)
        ex_for(labels[i]);
    ex_end();
}

/* Ibcast from the even group's first rank to the odd group of an
 * intercommunicator: the root passes MPI_ROOT, its group MPI_PROC_NULL. */
static void intercomm_ibcast(void) {
    int rank = tc_rank(), rc;
    MPI_Comm parity, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
    tc_label_comm(parity, "parity");
    ex_begin("Comm_split");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_comm("newCid", parity);
    ex_end();
    rc = MPI_Intercomm_create(parity, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 78, &inter);
    tc_label_comm(inter, "inter");
    ex_begin("Intercomm_create");
    ex_comm("cid", parity);
    ex_comm("newCid", inter);
    ex_end();
    int parity_rank;
    MPI_Comm_rank(parity, &parity_rank);
    int root = rank % 2 == 0 ? (parity_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int value[2] = {rank == 0 ? 808 : -1, rank == 0 ? 909 : -1};
    MPI_Request request;
    const char *label = new_label();
    rc = MPI_Ibcast(value, 2, MPI_INT, root, inter, &request);
    expect_rooted("Ibcast", inter, root, 2, MPI_INT, label);
    wait_for(&request, label, "inter Ibcast");
    tc_say("inter Ibcast rc=%d value=%d %d", rc, value[0], value[1]);
    ex_begin("Comm_free");
    ex_comm("cid", inter);
    ex_end();
    tc_forget_comm(inter);
    MPI_Comm_free(&inter);
    ex_begin("Comm_free");
    ex_comm("cid", parity);
    ex_end();
    tc_forget_comm(parity);
    MPI_Comm_free(&parity);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    run_nonblocking(MPI_COMM_WORLD, "world");

    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    tc_label_comm(reversed, "reversed");
    ex_begin("Comm_split");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_comm("newCid", reversed);
    ex_end();
    run_nonblocking(reversed, "reversed");

    mixed_waitall();
    if (size >= 2) intercomm_ibcast();

    ex_begin("Comm_free");
    ex_comm("cid", reversed);
    ex_end();
    tc_forget_comm(reversed);
    MPI_Comm_free(&reversed);
    tc_finalize();
    return 0;
}
