/* neighbors.c: the neighbourhood collectives Neighbor_allgather(v) and
 * Neighbor_alltoall(v,w), blocking and nonblocking (Ineighbor_*, each
 * completed by a Wait with its <For rid/>), on a periodic 1-d Cartesian
 * communicator (two neighbours) and on a distributed graph from
 * Dist_graph_create_adjacent (a directed ring where every rank is also its
 * own neighbour). 2 to 4 ranks. */
#include <stdio.h>

#include "expect.h"

/* MPI_UNWEIGHTED through a call: Open MPI defines it as a zero-length array,
 * which GCC's -Wstringop-overread takes for a buffer that is too short. */
__attribute__((noinline)) static const int *unweighted(void) {
    return MPI_UNWEIGHTED;
}

static int next_label;

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

/* After the blocking form's attributes: the rid of a nonblocking form (label
 * not NULL), then the Wait that completes it. */
static void finish(const char *label, MPI_Request *request, const char *what) {
    if (!label) return;
    ex_rid("rid", label);
    ex_end();
    int rc = MPI_Wait(request, MPI_STATUS_IGNORE);
    tc_say("%s Wait rc=%d", what, rc);
    ex_begin("Wait");
    ex_for(label);
}

static const char *label_for(int nonblocking) {
    static char labels[64][16];
    if (!nonblocking) return NULL;
    char *label = labels[next_label++ % 64];
    snprintf(label, 16, "nbr%d", next_label);
    return label;
}

static void run_neighbors(MPI_Comm comm, const char *name, int indegree, int outdegree) {
    int rank = tc_rank(), rc;
    int send[32], recv[32], scounts[8], rcounts[8], sdispls[8], rdispls[8];
    MPI_Aint wsdispls[8], wrdispls[8];
    MPI_Datatype types[8];
    MPI_Request request, *r;
    char what[160];
    for (int nonblocking = 0; nonblocking <= 1; ++nonblocking) {
        const char *prefix = nonblocking ? "Ineighbor_" : "Neighbor_";
        char tag[64];
        const char *label;
        r = nonblocking ? &request : NULL;
        for (int i = 0; i < 32; ++i)
            send[i] = rank * 100 + i, recv[i] = -1;

        label = label_for(nonblocking);
        rc = nonblocking ? MPI_Ineighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, comm, r)
                         : MPI_Neighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, comm);
        snprintf(tag, sizeof tag, "%sallgather", prefix);
        snprintf(what, sizeof what, "%s %s", name, tag);
        ex_begin(tag);
        ex_int("size", bytes(2, MPI_INT));
        ex_int("recvSize", bytes(2, MPI_INT));
        ex_comm("cid", comm);
        ex_int("count", 2);
        ex_type("tid", MPI_INT);
        ex_int("recvCount", 2);
        ex_type("recvtid", MPI_INT);
        finish(label, r, what);
        ex_end();
        tc_say("%s rc=%d data=%ld", what, rc, tc_checksum(recv, 2 * indegree));

        for (int i = 0; i < indegree; ++i)
            rcounts[i] = 2, rdispls[i] = 3 * (indegree - 1 - i);
        label = label_for(nonblocking);
        rc = nonblocking
                 ? MPI_Ineighbor_allgatherv(send, 2, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm,
                                            r)
                 : MPI_Neighbor_allgatherv(send, 2, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
        snprintf(tag, sizeof tag, "%sallgatherv", prefix);
        snprintf(what, sizeof what, "%s %s", name, tag);
        ex_begin(tag);
        ex_int("size", bytes(2, MPI_INT));
        ex_comm("cid", comm);
        ex_int("count", 2);
        ex_type("tid", MPI_INT);
        finish(label, r, what);
        ex_end();
        tc_say("%s rc=%d data=%ld", what, rc, tc_checksum(recv, 3 * indegree));

        label = label_for(nonblocking);
        rc = nonblocking ? MPI_Ineighbor_alltoall(send, 3, MPI_INT, recv, 3, MPI_INT, comm, r)
                         : MPI_Neighbor_alltoall(send, 3, MPI_INT, recv, 3, MPI_INT, comm);
        snprintf(tag, sizeof tag, "%salltoall", prefix);
        snprintf(what, sizeof what, "%s %s", name, tag);
        ex_begin(tag);
        ex_int("size", bytes(3, MPI_INT));
        ex_comm("cid", comm);
        ex_int("count", 3);
        ex_type("tid", MPI_INT);
        finish(label, r, what);
        ex_end();
        tc_say("%s rc=%d data=%ld", what, rc, tc_checksum(recv, 3 * indegree));

        for (int i = 0; i < outdegree; ++i)
            scounts[i] = 2, sdispls[i] = 2 * i;
        for (int i = 0; i < indegree; ++i)
            rcounts[i] = 2, rdispls[i] = 2 * (indegree - 1 - i);
        label = label_for(nonblocking);
        rc = nonblocking ? MPI_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts,
                                                   rdispls, MPI_INT, comm, r)
                         : MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts,
                                                  rdispls, MPI_INT, comm);
        snprintf(tag, sizeof tag, "%salltoallv", prefix);
        snprintf(what, sizeof what, "%s %s", name, tag);
        ex_begin(tag);
        ex_comm("cid", comm);
        finish(label, r, what);
        ex_end();
        tc_say("%s rc=%d data=%ld", what, rc, tc_checksum(recv, 2 * indegree));

        /* Neighbor_alltoallw: byte displacements (MPI_Aint). */
        for (int i = 0; i < outdegree; ++i)
            scounts[i] = 1, wsdispls[i] = (MPI_Aint)(sizeof(int) * (size_t)i), types[i] = MPI_INT;
        for (int i = 0; i < indegree; ++i)
            rcounts[i] = 1, wrdispls[i] = (MPI_Aint)(sizeof(int) * (size_t)(indegree - 1 - i));
        label = label_for(nonblocking);
        rc = nonblocking ? MPI_Ineighbor_alltoallw(send, scounts, wsdispls, types, recv, rcounts,
                                                   wrdispls, types, comm, r)
                         : MPI_Neighbor_alltoallw(send, scounts, wsdispls, types, recv, rcounts,
                                                  wrdispls, types, comm);
        snprintf(tag, sizeof tag, "%salltoallw", prefix);
        snprintf(what, sizeof what, "%s %s", name, tag);
        ex_begin(tag);
        ex_comm("cid", comm);
        finish(label, r, what);
        ex_end();
        tc_say("%s rc=%d data=%ld", what, rc, tc_checksum(recv, indegree));
    }
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size(), rc;

    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    tc_say("Cart_create rc=%d", rc);
    tc_label_comm(ring, "ring");
    tc_expect_constructor("Cart_create", MPI_COMM_WORLD, ring);
    run_neighbors(ring, "ring", 2, 2);

    /* In from the left and from itself; out to the right and to itself. */
    MPI_Comm graph;
    int sources[2] = {(rank + size - 1) % size, rank};
    int destinations[2] = {(rank + 1) % size, rank};
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, unweighted(), 2, destinations,
                                        unweighted(), MPI_INFO_NULL, 0, &graph);
    tc_say("Dist_graph_create_adjacent rc=%d", rc);
    tc_label_comm(graph, "graph");
    tc_expect_constructor("Dist_graph_create_adjacent", MPI_COMM_WORLD, graph);
    int indegree = -1, outdegree = -1, weighted = -1;
    MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
    tc_say("graph degrees %d %d %d", indegree, outdegree, weighted);
    run_neighbors(graph, "graph", indegree, outdegree);

    ex_begin("Comm_free");
    ex_comm("cid", graph);
    ex_end();
    tc_forget_comm(graph);
    MPI_Comm_free(&graph);
    ex_begin("Comm_free");
    ex_comm("cid", ring);
    ex_end();
    tc_forget_comm(ring);
    MPI_Comm_free(&ring);
    tc_finalize();
    return 0;
}
