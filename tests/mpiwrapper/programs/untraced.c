/* untraced.c: a program that also calls MPI functions the wrapper does not
 * trace (queries, MPI_Request_get_status, MPI_Cancel, and PMPI_Isend, which
 * goes around the wrapper) between and around traced nonblocking calls.
 * Every request a traced call created must still have its <For> in the
 * call that completes it; the request PMPI_Isend made completes without one
 * and is counted (HDTRACE_VERBOSE=1 reports it at MPI_Finalize). 2 to 4
 * ranks; even ranks send to the next odd rank. */
#include "expect.h"

static void expect_irecv(int source, int tag, const char *label) {
    ex_begin("Irecv");
    ex_int("fromRank", source);
    ex_int("fromTag", tag);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", label);
    ex_end();
}

static void expect_isend(int dest, int tag, const char *label) {
    ex_begin("Isend");
    ex_int("size", (long long)sizeof(int));
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_int("toRank", dest);
    ex_int("toTag", tag);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", label);
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size(), rc;
    int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    if (partner >= size) partner = MPI_PROC_NULL;
    int out[4] = {rank, rank + 10, rank + 20, rank + 30}, in[4] = {-1, -1, -1, -1};
    MPI_Request requests[3];
    MPI_Status statuses[3];
    int world_partner = partner == MPI_PROC_NULL ? -2 : partner;

    /* A traced Irecv, then untraced queries, then its Wait. */
    rc = MPI_Irecv(&in[0], 1, MPI_INT, partner, 1, MPI_COMM_WORLD, &requests[0]);
    expect_irecv(world_partner, 1, "irecv1");
    rc = MPI_Isend(&out[0], 1, MPI_INT, partner, 1, MPI_COMM_WORLD, &requests[1]);
    expect_isend(world_partner, 1, "isend1");
    int flag = 0, type_size = 0, me = -1;
    MPI_Type_size(MPI_INT, &type_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_free(&info);
    while (!flag)
        MPI_Request_get_status(requests[0], &flag, &statuses[0]);
    int count = -1;
    MPI_Get_count(&statuses[0], MPI_INT, &count);
    tc_say("Request_get_status flag=%d count=%d", flag, count);
    rc = MPI_Waitall(2, requests, statuses);
    tc_say("Waitall rc=%d in=%d", rc, in[0]);
    ex_begin("Waitall");
    ex_for("irecv1");
    ex_for("isend1");
    ex_end();

    /* A cancelled receive completes in its Wait like any other. */
    rc = MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &requests[0]);
    expect_irecv(-1, 999, "cancelled");
    MPI_Cancel(&requests[0]);
    rc = MPI_Wait(&requests[0], &statuses[0]);
    int cancelled = -1;
    MPI_Test_cancelled(&statuses[0], &cancelled);
    tc_say("cancelled Wait rc=%d cancelled=%d", rc, cancelled);
    ex_begin("Wait");
    ex_for("cancelled");
    ex_end();

    /* A send made behind the wrapper's back, in one Waitall with traced
     * requests: those keep their <For>, it has none (and is counted). */
    rc = MPI_Irecv(&in[2], 1, MPI_INT, partner, 2, MPI_COMM_WORLD, &requests[0]);
    expect_irecv(world_partner, 2, "irecv2");
    rc = PMPI_Isend(&out[2], 1, MPI_INT, partner, 2, MPI_COMM_WORLD, &requests[1]);
    rc = MPI_Irecv(&in[3], 1, MPI_INT, partner, 3, MPI_COMM_WORLD, &requests[2]);
    expect_irecv(world_partner, 3, "irecv3");
    rc = MPI_Send(&out[3], 1, MPI_INT, partner, 3, MPI_COMM_WORLD);
    ex_begin("Send");
    ex_int("size", (long long)sizeof(int));
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_int("toRank", world_partner);
    ex_int("toTag", 3);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
    rc = MPI_Waitall(3, requests, statuses);
    tc_say("Waitall mixed rc=%d in=%d %d", rc, in[2], in[3]);
    ex_begin("Waitall");
    ex_for("irecv2");
    ex_for("irecv3");
    ex_end();
    tc_finalize();
    return 0;
}
