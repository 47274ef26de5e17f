/* comms3.c: the communicator constructors of MPI-3: Comm_split_type (also
 * with MPI_UNDEFINED), Comm_create_group, Comm_dup_with_info, Comm_idup
 * (completed by a Wait, then used), Cart_sub, Dist_graph_create and
 * Dist_graph_create_adjacent (weighted and not, reorder true and false).
 * Each new communicator is used by a Barrier (its cid must be the newCid
 * of its constructor) and freed. 2 to 4 ranks. */
#include "expect.h"

/* MPI_UNWEIGHTED through a call: Open MPI defines it as a zero-length array,
 * which GCC's -Wstringop-overread takes for a buffer that is too short. */
__attribute__((noinline)) static const int *unweighted(void) {
    return MPI_UNWEIGHTED;
}

static void barrier(MPI_Comm comm, const char *name) {
    int rc = MPI_Barrier(comm);
    int rank = -1, size = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    tc_say("Barrier on %s rc=%d rank=%d size=%d", name, rc, rank, size);
    ex_begin("Barrier");
    ex_comm("cid", comm);
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size(), rc;
    MPI_Comm world = MPI_COMM_WORLD;

    /* Every rank shares this node's memory: one communicator, keys reversed. */
    MPI_Comm node;
    rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &node);
    tc_say("Comm_split_type rc=%d null=%d", rc, node == MPI_COMM_NULL);
    tc_label_comm(node, "node");
    tc_expect_constructor("Comm_split_type", world, node);
    barrier(node, "node");

    /* The last rank passes MPI_UNDEFINED: MPI_COMM_NULL, newCid -1. */
    MPI_Comm some;
    rc = MPI_Comm_split_type(world, rank == size - 1 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                             MPI_INFO_NULL, &some);
    tc_say("Comm_split_type undefined rc=%d null=%d", rc, some == MPI_COMM_NULL);
    if (some != MPI_COMM_NULL) tc_label_comm(some, "some");
    tc_expect_constructor("Comm_split_type", world, some);
    if (some != MPI_COMM_NULL) barrier(some, "some");

    /* Comm_create_group: only the members of the group (even world ranks,
     * reversed) call it. */
    MPI_Group world_group, even_group;
    int evens[16], nevens = 0;
    for (int r = size - 1; r >= 0; --r)
        if (r % 2 == 0) evens[nevens++] = r;
    MPI_Comm_group(world, &world_group);
    MPI_Group_incl(world_group, nevens, evens, &even_group);
    MPI_Comm evencomm = MPI_COMM_NULL;
    if (rank % 2 == 0) {
        rc = MPI_Comm_create_group(world, even_group, 17, &evencomm);
        tc_say("Comm_create_group rc=%d", rc);
        tc_label_comm(evencomm, "evens");
        tc_expect_constructor("Comm_create_group", world, evencomm);
        barrier(evencomm, "evens");
    }
    MPI_Group_free(&even_group);
    MPI_Group_free(&world_group);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm withinfo;
    rc = MPI_Comm_dup_with_info(node, info, &withinfo);
    MPI_Info_free(&info);
    tc_say("Comm_dup_with_info rc=%d", rc);
    tc_label_comm(withinfo, "withinfo");
    tc_expect_constructor("Comm_dup_with_info", node, withinfo);
    barrier(withinfo, "withinfo");

    /* Comm_idup: the new communicator is written (Comm line and newCid) in
     * the call, from the groups of the old one; the Wait completes it. */
    MPI_Comm idup;
    MPI_Request request;
    rc = MPI_Comm_idup(node, &idup, &request);
    tc_say("Comm_idup rc=%d", rc);
    int rc2 = MPI_Wait(&request, MPI_STATUS_IGNORE);
    tc_say("Comm_idup Wait rc=%d null=%d", rc2, request == MPI_REQUEST_NULL);
    tc_label_comm(idup, "idup");
    ex_begin("Comm_idup");
    ex_comm("cid", node);
    ex_comm("newCid", idup);
    ex_rid("rid", "idup");
    ex_end();
    ex_begin("Wait");
    ex_for("idup");
    ex_end();
    barrier(idup, "idup");

    /* Cart_sub of a 2-d grid: the rows. */
    int dims[2] = {0, 0}, periods[2] = {0, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid, row;
    rc = MPI_Cart_create(world, 2, dims, periods, 0, &grid);
    tc_label_comm(grid, "grid");
    tc_expect_constructor("Cart_create", world, grid);
    int remain[2] = {0, 1};
    rc = MPI_Cart_sub(grid, remain, &row);
    tc_say("Cart_sub rc=%d dims=%d,%d", rc, dims[0], dims[1]);
    tc_label_comm(row, "row");
    tc_expect_constructor("Cart_sub", grid, row);
    barrier(row, "row");

    /* Dist_graph_create: each rank gives the edge to its right, weighted. */
    MPI_Comm dist;
    int sources[1] = {rank}, degrees[1] = {1}, destinations[1] = {(rank + 1) % size};
    int weights[1] = {rank + 1};
    rc = MPI_Dist_graph_create(world, 1, sources, degrees, destinations, weights, MPI_INFO_NULL, 0,
                               &dist);
    tc_say("Dist_graph_create rc=%d", rc);
    tc_label_comm(dist, "dist");
    tc_expect_constructor("Dist_graph_create", world, dist);
    barrier(dist, "dist");

    /* Rank 0 gives every edge, unweighted, reorder allowed. */
    MPI_Comm dist_all;
    int all_sources[16], all_degrees[16], all_destinations[16];
    for (int r = 0; r < size; ++r)
        all_sources[r] = r, all_degrees[r] = 1, all_destinations[r] = (r + size - 1) % size;
    rc = MPI_Dist_graph_create(world, rank == 0 ? size : 0, all_sources, all_degrees,
                               all_destinations, unweighted(), MPI_INFO_NULL, 1, &dist_all);
    tc_say("Dist_graph_create reorder rc=%d", rc);
    tc_label_comm(dist_all, "dist_all");
    tc_expect_constructor("Dist_graph_create", world, dist_all);
    barrier(dist_all, "dist_all");

    /* Adjacent, weighted, reorder allowed: in from the left, out to the right. */
    MPI_Comm adjacent;
    int in[1] = {(rank + size - 1) % size}, out[1] = {(rank + 1) % size};
    int in_weights[1] = {2}, out_weights[1] = {2};
    rc = MPI_Dist_graph_create_adjacent(world, 1, in, in_weights, 1, out, out_weights,
                                        MPI_INFO_NULL, 1, &adjacent);
    tc_say("Dist_graph_create_adjacent rc=%d", rc);
    tc_label_comm(adjacent, "adjacent");
    tc_expect_constructor("Dist_graph_create_adjacent", world, adjacent);
    barrier(adjacent, "adjacent");

    tc_comm_free(&adjacent);
    tc_comm_free(&dist_all);
    tc_comm_free(&dist);
    tc_comm_free(&row);
    tc_comm_free(&grid);
    tc_comm_free(&idup);
    tc_comm_free(&withinfo);
    if (evencomm != MPI_COMM_NULL) tc_comm_free(&evencomm);
    if (some != MPI_COMM_NULL) tc_comm_free(&some);
    tc_comm_free(&node);
    tc_finalize();
    return 0;
}
