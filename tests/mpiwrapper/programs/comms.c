/* comms.c: communicator constructors (Comm_dup, Comm_split with
 * MPI_UNDEFINED, Comm_create, Cart_create, Graph_create, Intercomm_create,
 * Intercomm_merge) and Comm_free, each communicator used by a Barrier, and a
 * Bcast on an intercommunicator (MPI_ROOT, MPI_PROC_NULL). Needs at least 2
 * ranks; 4 are best. */
#include "expect.h"

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size(), rc;
    MPI_Comm world = MPI_COMM_WORLD;

    MPI_Comm dup;
    rc = MPI_Comm_dup(world, &dup);
    tc_label_comm(dup, "dup");
    tc_expect_constructor("Comm_dup", world, dup);
    tc_barrier(dup, "dup");

    /* The last rank passes MPI_UNDEFINED and gets MPI_COMM_NULL. */
    MPI_Comm split;
    int colour = rank == size - 1 ? MPI_UNDEFINED : rank % 2;
    rc = MPI_Comm_split(world, colour, -rank, &split);
    tc_say("Comm_split rc=%d null=%d", rc, split == MPI_COMM_NULL);
    if (split != MPI_COMM_NULL) tc_label_comm(split, "split");
    tc_expect_constructor("Comm_split", world, split);
    if (split != MPI_COMM_NULL) tc_barrier(split, "split");

    /* Comm_create from the even world ranks in reversed order. */
    MPI_Group world_group, even_group;
    int evens[32], nevens = 0;
    for (int r = size - 1; r >= 0; --r)
        if (r % 2 == 0) evens[nevens++] = r;
    MPI_Comm_group(world, &world_group);
    MPI_Group_incl(world_group, nevens, evens, &even_group);
    MPI_Comm created;
    rc = MPI_Comm_create(world, even_group, &created);
    tc_say("Comm_create rc=%d null=%d", rc, created == MPI_COMM_NULL);
    if (created != MPI_COMM_NULL) tc_label_comm(created, "created");
    tc_expect_constructor("Comm_create", world, created);
    MPI_Group_free(&even_group);
    MPI_Group_free(&world_group);
    if (created != MPI_COMM_NULL) tc_barrier(created, "created");

    /* A communicator freed, then an identical one: a new cid. */
    tc_comm_free(&dup);
    MPI_Comm dup_again;
    rc = MPI_Comm_dup(world, &dup_again);
    tc_label_comm(dup_again, "dup_again");
    tc_expect_constructor("Comm_dup", world, dup_again);
    tc_barrier(dup_again, "dup_again");

    MPI_Comm cart;
    int dims[1] = {size}, periods[1] = {1};
    rc = MPI_Cart_create(world, 1, dims, periods, 0, &cart);
    tc_label_comm(cart, "cart");
    tc_expect_constructor("Cart_create", world, cart);
    tc_barrier(cart, "cart");

    MPI_Comm graph;
    int index[32], edges[64];
    for (int r = 0; r < size; ++r) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r + 1) % size;
        edges[2 * r + 1] = (r + size - 1) % size;
    }
    rc = MPI_Graph_create(world, size, index, edges, 0, &graph);
    tc_label_comm(graph, "graph");
    tc_expect_constructor("Graph_create", world, graph);
    tc_barrier(graph, "graph");

    /* An intercommunicator between the even and the odd world ranks. */
    MPI_Comm parity;
    rc = MPI_Comm_split(world, rank % 2, rank, &parity);
    tc_label_comm(parity, "parity");
    tc_expect_constructor("Comm_split", world, parity);
    MPI_Comm inter;
    rc = MPI_Intercomm_create(parity, 0, world, rank % 2 == 0 ? 1 : 0, 77, &inter);
    tc_say("Intercomm_create rc=%d", rc);
    tc_label_comm(inter, "inter");
    tc_expect_constructor("Intercomm_create", parity, inter);
    tc_barrier(inter, "inter");

    /* Bcast from the even group's rank 0 to the odd group. */
    int value = rank == 0 ? 4242 : -1;
    int parity_rank;
    MPI_Comm_rank(parity, &parity_rank);
    int root = rank % 2 == 0 ? (parity_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    rc = MPI_Bcast(&value, 1, MPI_INT, root, inter);
    tc_say("Bcast on inter rc=%d value=%d", rc, value);
    ex_begin("Bcast");
    ex_int("size", (long long)sizeof(int));
    ex_int("rootRank", tc_world_rank(inter, root));
    ex_comm("cid", inter);
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_end();

    MPI_Comm merged;
    rc = MPI_Intercomm_merge(inter, rank % 2, &merged);
    tc_label_comm(merged, "merged");
    tc_expect_constructor("Intercomm_merge", inter, merged);
    int merged_rank = -1;
    MPI_Comm_rank(merged, &merged_rank);
    tc_say("Intercomm_merge rc=%d rank=%d", rc, merged_rank);
    tc_barrier(merged, "merged");

    /* A communicator made behind the wrapper's back gets its id when first seen. */
    MPI_Comm hidden;
    PMPI_Comm_dup(world, &hidden);
    tc_label_comm(hidden, "hidden");
    tc_barrier(hidden, "hidden");
    tc_comm_free(&hidden);

    tc_comm_free(&merged);
    tc_comm_free(&inter);
    tc_comm_free(&parity);
    tc_comm_free(&graph);
    tc_comm_free(&cart);
    tc_comm_free(&dup_again);
    if (created != MPI_COMM_NULL) tc_comm_free(&created);
    if (split != MPI_COMM_NULL) tc_comm_free(&split);
    tc_finalize();
    return 0;
}
