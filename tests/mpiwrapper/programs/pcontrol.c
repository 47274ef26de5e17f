/* pcontrol.c: MPI_Pcontrol(0) stops writing calls and MPI_Pcontrol(1)
 * resumes; while paused, a communicator and requests are created (and a
 * second Pcontrol(0) made), so that the calls after the pause must still
 * name the communicator by the cid it got in creation order, while the Wait
 * that completes the requests names none of them: their creation was not
 * written, so a <For> would name a request the trace never issued. Any
 * level other than 0 resumes (Pcontrol(2) here). 2 to 4 ranks. */
#include <stddef.h>

#include "expect.h"

static void pcontrol(int level, int written) {
    int rc = MPI_Pcontrol(level);
    tc_say("Pcontrol(%d) rc=%d", level, rc);
    if (!written) return;
    ex_begin("Pcontrol");
    ex_int("level", level);
    ex_end();
}

static void barrier(MPI_Comm comm, int written) {
    int rc = MPI_Barrier(comm);
    tc_say("Barrier rc=%d", rc);
    if (!written) return;
    ex_begin("Barrier");
    ex_comm("cid", comm);
    ex_end();
}

/* An Irecv from the left and an Isend to the right, written or not. */
static void exchange(MPI_Request requests[2], int *in, int *out, const char *recv_label,
                     const char *send_label, int written) {
    int rank = tc_rank(), size = tc_size();
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Irecv(in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &requests[1]);
    if (!written) return;
    ex_begin("Irecv");
    ex_int("fromRank", left);
    ex_int("fromTag", 3);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", recv_label);
    ex_end();
    ex_begin("Isend");
    ex_int("size", (long long)sizeof(int));
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_int("toRank", right);
    ex_int("toTag", 3);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", send_label);
    ex_end();
}

static void waitall(MPI_Request requests[2], const char *recv_label, const char *send_label) {
    int rc = MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    tc_say("Waitall rc=%d", rc);
    ex_begin("Waitall");
    if (recv_label) ex_for(recv_label);
    if (send_label) ex_for(send_label);
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank();
    int out = rank, in[3] = {-1, -1, -1};
    MPI_Request before[2], paused[2];

    exchange(before, &in[0], &out, "before_recv", "before_send", 1);
    waitall(before, "before_recv", "before_send");
    barrier(MPI_COMM_WORLD, 1);

    pcontrol(0, 1);
    pcontrol(0, 0); /* already paused: not written */
    MPI_Comm dup;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    tc_say("Comm_dup rc=%d", rc);
    tc_label_comm(dup, "dup");
    barrier(dup, 0);
    exchange(paused, &in[1], &out, "paused_recv", "paused_send", 0);
    int sum = -1;
    MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    tc_say("Allreduce while paused sum=%d", sum);
    pcontrol(1, 1);

    /* The requests made while paused complete now, without <For>. */
    waitall(paused, NULL, NULL);
    barrier(dup, 1);

    pcontrol(0, 1);
    barrier(MPI_COMM_WORLD, 0);
    pcontrol(2, 1);
    barrier(MPI_COMM_WORLD, 1);

    ex_begin("Comm_free");
    ex_comm("cid", dup);
    ex_end();
    tc_forget_comm(dup);
    MPI_Comm_free(&dup);
    tc_say("received %d %d", in[0], in[1]);
    tc_finalize();
    return 0;
}
