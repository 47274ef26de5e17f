/* grequest.c: generalized requests. Grequest_start's rid reappears in
 * Grequest_complete and in the <For> of the Wait or Test that completes
 * the request: a lone Wait, a Test before and after the completion, a
 * Waitall mixing a generalized request with Isend/Irecv, and a Waitany.
 * The callbacks make no MPI calls. Runs on any number of ranks. */
#include <stddef.h>

#include "expect.h"

static int query_calls, free_calls;

static int query(void *extra_state, MPI_Status *status) {
    ++query_calls;
    MPI_Status_set_elements(status, MPI_BYTE, *(int *)extra_state);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int release(void *extra_state) {
    (void)extra_state;
    ++free_calls;
    return MPI_SUCCESS;
}

static int cancel(void *extra_state, int complete) {
    (void)extra_state;
    (void)complete;
    return MPI_SUCCESS;
}

static void start(int *bytes, MPI_Request *request, const char *label) {
    int rc = MPI_Grequest_start(query, release, cancel, bytes, request);
    tc_say("Grequest_start rc=%d", rc);
    ex_begin("Grequest_start");
    ex_rid("rid", label);
    ex_end();
}

static void complete(MPI_Request request, const char *label) {
    int rc = MPI_Grequest_complete(request);
    tc_say("Grequest_complete rc=%d", rc);
    ex_begin("Grequest_complete");
    ex_rid("rid", label);
    ex_end();
}

static void say_status(const char *what, int rc, const MPI_Status *status) {
    int count = -7;
    MPI_Get_count(status, MPI_BYTE, &count);
    tc_say("%s rc=%d count=%d", what, rc, count);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    int bytes[3] = {12, 34, 56};
    MPI_Request requests[3];
    MPI_Status status, statuses[3];
    int rc, flag;

    /* Completed, then waited for. */
    start(&bytes[0], &requests[0], "g-wait");
    complete(requests[0], "g-wait");
    rc = MPI_Wait(&requests[0], &status);
    say_status("Wait", rc, &status);
    tc_say("null=%d", requests[0] == MPI_REQUEST_NULL);
    ex_begin("Wait");
    ex_for("g-wait");
    ex_end();

    /* Tested before (nothing completes) and after its completion. */
    start(&bytes[1], &requests[0], "g-test");
    rc = MPI_Test(&requests[0], &flag, &status);
    tc_say("Test rc=%d flag=%d", rc, flag);
    ex_plain("Test");
    complete(requests[0], "g-test");
    rc = MPI_Test(&requests[0], &flag, &status);
    say_status("Test", rc, &status);
    tc_say("flag=%d", flag);
    ex_begin("Test");
    ex_for("g-test");
    ex_end();

    /* In a Waitall with a ring of Isend/Irecv. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, out = rank, in = -1;
    start(&bytes[2], &requests[0], "g-waitall");
    rc = MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &requests[1]);
    tc_say("Irecv rc=%d", rc);
    ex_begin("Irecv");
    ex_int("fromRank", left);
    ex_int("fromTag", 7);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", "irecv");
    ex_end();
    rc = MPI_Isend(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &requests[2]);
    tc_say("Isend rc=%d", rc);
    ex_begin("Isend");
    ex_int("size", 4);
    ex_int("count", 1);
    ex_type("tid", MPI_INT);
    ex_int("toRank", right);
    ex_int("toTag", 7);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_rid("rid", "isend");
    ex_end();
    complete(requests[0], "g-waitall");
    rc = MPI_Waitall(3, requests, statuses);
    tc_say("Waitall rc=%d in=%d", rc, in);
    say_status("Waitall[0]", rc, &statuses[0]);
    ex_begin("Waitall");
    ex_for("g-waitall");
    ex_for("irecv");
    ex_for("isend");
    ex_end();

    /* Waitany over a null request and a generalized one. */
    requests[0] = MPI_REQUEST_NULL;
    start(&bytes[0], &requests[1], "g-waitany");
    complete(requests[1], "g-waitany");
    int index = -1;
    rc = MPI_Waitany(2, requests, &index, &status);
    say_status("Waitany", rc, &status);
    tc_say("index=%d", index);
    ex_begin("Waitany");
    ex_for("g-waitany");
    ex_end();

    tc_say("query_calls=%d free_calls=%d", query_calls, free_calls);
    tc_finalize();
    return 0;
}
