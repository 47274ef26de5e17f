/* collectives.c: every traced collective on MPI_COMM_WORLD and on a split
 * communicator with reversed ranks, roots other than 0, and MPI_IN_PLACE
 * (where count/tid/size then describe the receive side).
 * Works on any number of ranks up to 16. */
#include <string.h>

#include "expect.h"

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    if (type == MPI_DATATYPE_NULL) return 0; /* written with size 0: docs/format/trace.md */
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

/* size cid count tid: Allreduce, Alltoall, Scan, Exscan (size first). */
static void expect_simple(const char *tag, MPI_Comm comm, int count, MPI_Datatype type) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_comm("cid", comm);
    ex_int("count", count);
    ex_type("tid", type);
    ex_end();
}

static void expect_rooted(const char *tag, MPI_Comm comm, int root, int count, MPI_Datatype type) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("rootRank", tc_world_rank(comm, root));
    ex_comm("cid", comm);
    ex_int("count", count);
    ex_type("tid", type);
    ex_end();
}

/* Gather and Scatter: size recvSize root rootRank cid count tid recvCount recvtid. */
static void expect_gather(const char *tag, MPI_Comm comm, int root, int count, MPI_Datatype type,
                          int recvcount, MPI_Datatype recvtype) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("recvSize", bytes(recvcount, recvtype));
    ex_root(comm, root);
    ex_comm("cid", comm);
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("recvCount", recvcount);
    ex_type("recvtid", recvtype);
    ex_end();
}

static void expect_cid_only(const char *tag, MPI_Comm comm) {
    ex_begin(tag);
    ex_comm("cid", comm);
    ex_end();
}

static void run_collectives(MPI_Comm comm, const char *name) {
    int rank, size, rc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int root = size - 1; /* not 0 whenever size > 1 */
    int send[64], recv[1024], counts[16], displs[16];
    double dsend[8], drecv[128];
    for (int i = 0; i < 64; ++i)
        send[i] = rank * 100 + i;
    for (int i = 0; i < 8; ++i)
        dsend[i] = rank + i * 0.5;
    memset(recv, 0, sizeof recv);
    for (int i = 0; i < size; ++i)
        counts[i] = i + 1, displs[i] = 8 * i;

    rc = MPI_Barrier(comm);
    tc_say("%s Barrier rc=%d", name, rc);
    expect_cid_only("Barrier", comm);

    rc = MPI_Bcast(send, 5, MPI_INT, root, comm);
    tc_say("%s Bcast rc=%d data=%ld", name, rc, tc_checksum(send, 5));
    expect_rooted("Bcast", comm, root, 5, MPI_INT);
    for (int i = 0; i < 64; ++i)
        send[i] = rank * 100 + i;

    rc = MPI_Reduce(send, recv, 6, MPI_INT, MPI_SUM, root, comm);
    tc_say("%s Reduce rc=%d data=%ld", name, rc, rank == root ? tc_checksum(recv, 6) : 0L);
    expect_rooted("Reduce", comm, root, 6, MPI_INT);

    /* MPI_IN_PLACE at the root of Reduce. */
    memcpy(recv, send, sizeof send);
    rc = MPI_Reduce(rank == 0 ? MPI_IN_PLACE : send, recv, 3, MPI_INT, MPI_MAX, 0, comm);
    tc_say("%s Reduce in place rc=%d data=%ld", name, rc, rank == 0 ? tc_checksum(recv, 3) : 0L);
    expect_rooted("Reduce", comm, 0, 3, MPI_INT);

    rc = MPI_Allreduce(dsend, drecv, 4, MPI_DOUBLE, MPI_SUM, comm);
    tc_say("%s Allreduce rc=%d data=%g", name, rc, drecv[0] + drecv[3]);
    expect_simple("Allreduce", comm, 4, MPI_DOUBLE);
    memcpy(drecv, dsend, sizeof dsend);
    rc = MPI_Allreduce(MPI_IN_PLACE, drecv, 2, MPI_DOUBLE, MPI_MIN, comm);
    tc_say("%s Allreduce in place rc=%d data=%g", name, rc, drecv[0] + drecv[1]);
    expect_simple("Allreduce", comm, 2, MPI_DOUBLE);

    /* Gather: the receive arguments are passed (and logged) on every rank. */
    rc = MPI_Gather(send, 2, MPI_INT, recv, 2, MPI_INT, root, comm);
    tc_say("%s Gather rc=%d data=%ld", name, rc, rank == root ? tc_checksum(recv, 2 * size) : 0L);
    expect_gather("Gather", comm, root, 2, MPI_INT, 2, MPI_INT);
    /* MPI_IN_PLACE at the root: the send count/type (here nonsense) are not read. */
    for (int i = 0; i < 3 * size; ++i)
        recv[i] = rank + i;
    if (rank == root) {
        rc = MPI_Gather(MPI_IN_PLACE, 12345, MPI_DOUBLE, recv, 3, MPI_INT, root, comm);
        expect_gather("Gather", comm, root, 3, MPI_INT, 3, MPI_INT);
    } else {
        rc = MPI_Gather(send, 3, MPI_INT, recv, 3, MPI_INT, root, comm);
        expect_gather("Gather", comm, root, 3, MPI_INT, 3, MPI_INT);
    }
    tc_say("%s Gather in place rc=%d data=%ld", name, rc,
           rank == root ? tc_checksum(recv, 3 * size) : 0L);

    /* The receive type of a non-root Gather may be MPI_DATATYPE_NULL: tid -1, size 0. */
    if (rank == root) {
        rc = MPI_Gather(send, 1, MPI_INT, recv, 1, MPI_INT, root, comm);
        expect_gather("Gather", comm, root, 1, MPI_INT, 1, MPI_INT);
    } else {
        rc = MPI_Gather(send, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm);
        expect_gather("Gather", comm, root, 1, MPI_INT, 0, MPI_DATATYPE_NULL);
    }
    tc_say("%s Gather null type rc=%d data=%ld", name, rc,
           rank == root ? tc_checksum(recv, size) : 0L);

    rc = MPI_Gatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, root, comm);
    tc_say("%s Gatherv rc=%d data=%ld", name, rc, rank == root ? tc_checksum(recv, 8 * size) : 0L);
    ex_begin("Gatherv");
    ex_int("size", bytes(rank + 1, MPI_INT));
    ex_root(comm, root);
    ex_comm("cid", comm);
    ex_int("count", rank + 1);
    ex_type("tid", MPI_INT);
    ex_end();

    /* Gatherv in place at the root: count is the root's own recvcounts entry. */
    if (rank == root) {
        rc = MPI_Gatherv(MPI_IN_PLACE, 4321, MPI_DOUBLE, recv, counts, displs, MPI_INT, root, comm);
        ex_begin("Gatherv");
        ex_int("size", bytes(counts[rank], MPI_INT));
        ex_root(comm, root);
        ex_comm("cid", comm);
        ex_int("count", counts[rank]);
        ex_type("tid", MPI_INT);
        ex_end();
    } else {
        rc = MPI_Gatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, root, comm);
        ex_begin("Gatherv");
        ex_int("size", bytes(rank + 1, MPI_INT));
        ex_root(comm, root);
        ex_comm("cid", comm);
        ex_int("count", rank + 1);
        ex_type("tid", MPI_INT);
        ex_end();
    }
    tc_say("%s Gatherv in place rc=%d data=%ld", name, rc,
           rank == root ? tc_checksum(recv, 8 * size) : 0L);

    rc = MPI_Scatter(send, 2, MPI_DOUBLE, drecv, 4, MPI_INT, 0, comm);
    tc_say("%s Scatter rc=%d", name, rc);
    expect_gather("Scatter", comm, 0, 2, MPI_DOUBLE, 4, MPI_INT);

    rc = MPI_Scatterv(send, counts, displs, MPI_INT, recv, rank + 1, MPI_INT, root, comm);
    tc_say("%s Scatterv rc=%d data=%ld", name, rc, tc_checksum(recv, rank + 1));
    ex_begin("Scatterv");
    ex_int("recvSize", bytes(rank + 1, MPI_INT));
    ex_root(comm, root);
    ex_comm("cid", comm);
    ex_int("recvCount", rank + 1);
    ex_type("recvtid", MPI_INT);
    ex_end();

    /* Scatter and Scatterv in place at the root: recvCount, recvtid and
     * recvSize describe the root's own block of the send side. */
    if (rank == root) {
        rc = MPI_Scatter(send, 3, MPI_INT, MPI_IN_PLACE, 999, MPI_DOUBLE, root, comm);
        expect_gather("Scatter", comm, root, 3, MPI_INT, 3, MPI_INT);
    } else {
        rc = MPI_Scatter(send, 3, MPI_INT, recv, 3, MPI_INT, root, comm);
        expect_gather("Scatter", comm, root, 3, MPI_INT, 3, MPI_INT);
    }
    tc_say("%s Scatter in place rc=%d data=%ld", name, rc, tc_checksum(recv, 3));
    rc = MPI_Scatterv(send, counts, displs, MPI_INT, rank == root ? MPI_IN_PLACE : (void *)recv,
                      rank == root ? 888 : rank + 1, rank == root ? MPI_DOUBLE : MPI_INT, root,
                      comm);
    tc_say("%s Scatterv in place rc=%d data=%ld", name, rc, tc_checksum(recv, rank + 1));
    ex_begin("Scatterv");
    ex_int("recvSize", bytes(counts[rank], MPI_INT));
    ex_root(comm, root);
    ex_comm("cid", comm);
    ex_int("recvCount", counts[rank]);
    ex_type("recvtid", MPI_INT);
    ex_end();

    rc = MPI_Allgather(dsend, 1, MPI_DOUBLE, drecv, 1, MPI_DOUBLE, comm);
    tc_say("%s Allgather rc=%d data=%g", name, rc, drecv[0] + drecv[size - 1]);
    ex_begin("Allgather");
    ex_int("size", bytes(1, MPI_DOUBLE));
    ex_int("recvSize", bytes(1, MPI_DOUBLE));
    ex_comm("cid", comm);
    ex_int("count", 1);
    ex_type("tid", MPI_DOUBLE);
    ex_int("recvCount", 1);
    ex_type("recvtid", MPI_DOUBLE);
    ex_end();
    /* In place: count/tid/size are the receive side's. */
    for (int i = 0; i < 2 * size; ++i)
        recv[i] = rank;
    rc = MPI_Allgather(MPI_IN_PLACE, 777, MPI_DOUBLE, recv, 2, MPI_INT, comm);
    tc_say("%s Allgather in place rc=%d data=%ld", name, rc, tc_checksum(recv, 2 * size));
    ex_begin("Allgather");
    ex_int("size", bytes(2, MPI_INT));
    ex_int("recvSize", bytes(2, MPI_INT));
    ex_comm("cid", comm);
    ex_int("count", 2);
    ex_type("tid", MPI_INT);
    ex_int("recvCount", 2);
    ex_type("recvtid", MPI_INT);
    ex_end();

    int gathered_counts[16], gathered_displs[16];
    for (int i = 0; i < size; ++i)
        gathered_counts[i] = i + 1, gathered_displs[i] = 4 * i;
    rc = MPI_Allgatherv(send, rank + 1, MPI_INT, recv, gathered_counts, gathered_displs, MPI_INT,
                        comm);
    tc_say("%s Allgatherv rc=%d data=%ld", name, rc, tc_checksum(recv, 4 * size));
    ex_begin("Allgatherv");
    ex_int("size", bytes(rank + 1, MPI_INT));
    ex_comm("cid", comm);
    ex_int("count", rank + 1);
    ex_type("tid", MPI_INT);
    ex_end();

    /* Allgatherv in place: count is this process's own recvcounts entry. */
    for (int i = 0; i < 4 * size; ++i)
        recv[i] = rank * 7 + i;
    rc = MPI_Allgatherv(MPI_IN_PLACE, 55, MPI_DOUBLE, recv, gathered_counts, gathered_displs,
                        MPI_INT, comm);
    tc_say("%s Allgatherv in place rc=%d data=%ld", name, rc, tc_checksum(recv, 4 * size));
    ex_begin("Allgatherv");
    ex_int("size", bytes(gathered_counts[rank], MPI_INT));
    ex_comm("cid", comm);
    ex_int("count", gathered_counts[rank]);
    ex_type("tid", MPI_INT);
    ex_end();

    rc = MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm);
    tc_say("%s Alltoall rc=%d data=%ld", name, rc, tc_checksum(recv, 2 * size));
    expect_simple("Alltoall", comm, 2, MPI_INT);
    for (int i = 0; i < 3 * size; ++i)
        recv[i] = rank * 10 + i;
    rc = MPI_Alltoall(MPI_IN_PLACE, 99, MPI_DOUBLE, recv, 3, MPI_INT, comm);
    tc_say("%s Alltoall in place rc=%d data=%ld", name, rc, tc_checksum(recv, 3 * size));
    expect_simple("Alltoall", comm, 3, MPI_INT);

    int scounts[16], sdispls[16], rcounts[16], rdispls[16];
    for (int i = 0; i < size; ++i) {
        scounts[i] = 1 + (i + rank) % 2, sdispls[i] = 2 * i;
        rcounts[i] = 1 + (i + rank) % 2, rdispls[i] = 2 * i;
    }
    rc = MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
    tc_say("%s Alltoallv rc=%d data=%ld", name, rc, tc_checksum(recv, 2 * size));
    expect_cid_only("Alltoallv", comm);

    int rs_counts[16];
    for (int i = 0; i < size; ++i)
        rs_counts[i] = 2;
    rc = MPI_Reduce_scatter(send, recv, rs_counts, MPI_INT, MPI_SUM, comm);
    tc_say("%s Reduce_scatter rc=%d data=%ld", name, rc, tc_checksum(recv, 2));
    expect_cid_only("Reduce_scatter", comm);

    rc = MPI_Scan(send, recv, 4, MPI_INT, MPI_SUM, comm);
    tc_say("%s Scan rc=%d data=%ld", name, rc, tc_checksum(recv, 4));
    expect_simple("Scan", comm, 4, MPI_INT);
    memcpy(drecv, dsend, sizeof dsend);
    rc = MPI_Scan(MPI_IN_PLACE, drecv, 3, MPI_DOUBLE, MPI_SUM, comm);
    tc_say("%s Scan in place rc=%d data=%g", name, rc, drecv[0] + drecv[2]);
    expect_simple("Scan", comm, 3, MPI_DOUBLE);

    memset(recv, 0, 8 * sizeof(int));
    rc = MPI_Exscan(send, recv, 5, MPI_INT, MPI_SUM, comm);
    tc_say("%s Exscan rc=%d data=%ld", name, rc, rank > 0 ? tc_checksum(recv, 5) : 0L);
    expect_simple("Exscan", comm, 5, MPI_INT);
    memcpy(recv, send, 8 * sizeof(int));
    rc = MPI_Exscan(MPI_IN_PLACE, recv, 2, MPI_INT, MPI_PROD, comm);
    tc_say("%s Exscan in place rc=%d data=%ld", name, rc, rank > 0 ? tc_checksum(recv, 2) : 0L);
    expect_simple("Exscan", comm, 2, MPI_INT);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    run_collectives(MPI_COMM_WORLD, "world");

    MPI_Comm half;
    tc_check(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half), "MPI_Comm_split");
    tc_label_comm(half, "half");
    ex_begin("Comm_split");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_comm("newCid", half);
    ex_end();
    run_collectives(half, "half");
    ex_begin("Comm_free");
    ex_comm("cid", half);
    ex_end();
    tc_forget_comm(half);
    MPI_Comm_free(&half);
    tc_finalize();
    return 0;
}
