/* mprobe.c: matched probes (Mprobe, Improbe, Mrecv, Imrecv) between the
 * ranks of each pair (0-1, 2-3, ...): exact and wildcard source and tag,
 * MPI_STATUS_IGNORE, zero counts, a communicator with reversed ranks, a
 * Improbe that finds nothing, and MPI_PROC_NULL sources, which give
 * MPI_MESSAGE_NO_PROC. An odd last rank does only the MPI_PROC_NULL part. */
#include <stddef.h>

#include "expect.h"

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static void expect_send(int count, MPI_Datatype type, MPI_Comm comm, int dest, int msgtag) {
    ex_begin("Send");
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("toRank", tc_world_rank(comm, dest));
    ex_int("toTag", msgtag);
    ex_comm("cid", comm);
    ex_end();
}

/* A probe that matched a message from `source` (local rank in comm) with `msgtag`. */
static void expect_probe(const char *tag, MPI_Comm comm, int source, int msgtag, const char *mid,
                         int flag) {
    ex_begin(tag);
    ex_int("fromRank", tc_world_rank(comm, source));
    ex_int("fromTag", msgtag);
    ex_comm("cid", comm);
    if (mid)
        ex_mid("mid", mid);
    else
        ex_int("mid", -1);
    if (flag >= 0) ex_int("flag", flag);
    ex_end();
}

/* Mrecv/Imrecv of a message of `message_bytes` probed from source with msgtag. */
static void expect_receive(const char *tag, long long message_bytes, int count, MPI_Datatype type,
                           MPI_Comm comm, int source, int msgtag, const char *mid,
                           const char *rid) {
    ex_begin(tag);
    ex_int("size", message_bytes);
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("fromRank", tc_world_rank(comm, source));
    ex_int("fromTag", msgtag);
    if (comm == MPI_COMM_NULL)
        ex_int("cid", -1);
    else
        ex_comm("cid", comm);
    if (mid)
        ex_mid("mid", mid);
    else
        ex_int("mid", -1);
    if (rid) ex_rid("rid", rid);
    ex_end();
}

static void say_status(const char *what, int rc, const MPI_Status *status, MPI_Datatype type) {
    int count = -7;
    MPI_Get_count(status, type, &count);
    tc_say("%s rc=%d source=%d tag=%d count=%d", what, rc, status->MPI_SOURCE, status->MPI_TAG,
           count);
}

/* The receiving side of one pair: every kind of matched probe. */
static void receive_side(MPI_Comm world, MPI_Comm rev, int partner, int rev_partner) {
    int got[16] = {0};
    double got_doubles[8] = {0};
    MPI_Message message;
    MPI_Status status;
    MPI_Request request;
    int rc, flag;

    /* Mprobe with an exact source and tag, Mrecv with a status. */
    rc = MPI_Mprobe(partner, 21, world, &message, &status);
    say_status("Mprobe", rc, &status, MPI_INT);
    expect_probe("Mprobe", world, partner, 21, "m-exact", -1);
    rc = MPI_Mrecv(got, 16, MPI_INT, &message, &status);
    say_status("Mrecv", rc, &status, MPI_INT);
    tc_say("data=%ld consumed=%d", tc_checksum(got, 10), message == MPI_MESSAGE_NULL);
    expect_receive("Mrecv", bytes(10, MPI_INT), 16, MPI_INT, world, partner, 21, "m-exact", NULL);

    /* Both wildcards and MPI_STATUS_IGNORE: the matched source and tag are logged. */
    rc = MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, world, &message, MPI_STATUS_IGNORE);
    tc_say("Mprobe wildcard rc=%d", rc);
    expect_probe("Mprobe", world, partner, 22, "m-wild", -1);
    rc = MPI_Mrecv(got_doubles, 8, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
    tc_say("Mrecv rc=%d data=%g consumed=%d", rc, got_doubles[0] + got_doubles[4],
           message == MPI_MESSAGE_NULL);
    expect_receive("Mrecv", bytes(5, MPI_DOUBLE), 8, MPI_DOUBLE, world, partner, 22, "m-wild",
                   NULL);

    /* Improbe on a tag nobody sends: flag 0, the requested source and tag, mid -1. */
    rc = MPI_Improbe(partner, 999, world, &flag, &message, &status);
    tc_say("Improbe nothing rc=%d flag=%d", rc, flag);
    expect_probe("Improbe", world, partner, 999, NULL, 0);

    /* Improbe until the message is there: one element per call, as it went. */
    int calls = 0;
    do {
        rc = MPI_Improbe(MPI_ANY_SOURCE, 23, world, &flag, &message, MPI_STATUS_IGNORE);
        tc_check(rc, "MPI_Improbe");
        ++calls;
        if (flag)
            expect_probe("Improbe", world, partner, 23, "m-imp", 1);
        else
            expect_probe("Improbe", world, MPI_ANY_SOURCE, 23, NULL, 0);
    } while (!flag);
    tc_say("Improbe found it rc=%d", rc);
    rc = MPI_Imrecv(got, 16, MPI_INT, &message, &request);
    tc_say("Imrecv rc=%d consumed=%d", rc, message == MPI_MESSAGE_NULL);
    expect_receive("Imrecv", bytes(7, MPI_INT), 16, MPI_INT, world, partner, 23, "m-imp", "imrecv");
    rc = MPI_Wait(&request, &status);
    say_status("Wait", rc, &status, MPI_INT);
    tc_say("data=%ld", tc_checksum(got, 7));
    ex_begin("Wait");
    ex_for("imrecv");
    ex_end();

    /* A zero-count message on the communicator with reversed ranks; Imrecv
     * completed by a Test loop (one element per call). */
    rc = MPI_Mprobe(rev_partner, 24, rev, &message, &status);
    say_status("Mprobe rev", rc, &status, MPI_INT);
    expect_probe("Mprobe", rev, rev_partner, 24, "m-rev", -1);
    rc = MPI_Imrecv(got, 0, MPI_INT, &message, &request);
    tc_say("Imrecv rc=%d", rc);
    expect_receive("Imrecv", 0, 0, MPI_INT, rev, rev_partner, 24, "m-rev", "imrecv-rev");
    do {
        rc = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        tc_check(rc, "MPI_Test");
        ex_begin("Test");
        if (flag) ex_for("imrecv-rev");
        ex_end();
    } while (!flag);
    tc_say("Test done null=%d", request == MPI_REQUEST_NULL);

    /* Two messages probed before either is received, received in reverse order. */
    MPI_Message first, second;
    rc = MPI_Mprobe(partner, 25, world, &first, &status);
    say_status("Mprobe first", rc, &status, MPI_INT);
    expect_probe("Mprobe", world, partner, 25, "m-first", -1);
    rc = MPI_Mprobe(partner, 26, world, &second, &status);
    say_status("Mprobe second", rc, &status, MPI_INT);
    expect_probe("Mprobe", world, partner, 26, "m-second", -1);
    rc = MPI_Mrecv(got, 16, MPI_INT, &second, &status);
    say_status("Mrecv second", rc, &status, MPI_INT);
    expect_receive("Mrecv", bytes(2, MPI_INT), 16, MPI_INT, world, partner, 26, "m-second", NULL);
    rc = MPI_Mrecv(got, 16, MPI_INT, &first, &status);
    say_status("Mrecv first", rc, &status, MPI_INT);
    expect_receive("Mrecv", bytes(3, MPI_INT), 16, MPI_INT, world, partner, 25, "m-first", NULL);

    /* The same, with one envelope (tag 27) for both: only the mid tells which
     * message (3 or 5 ints) each receive takes. */
    rc = MPI_Mprobe(partner, 27, world, &first, &status);
    say_status("Mprobe same first", rc, &status, MPI_INT);
    expect_probe("Mprobe", world, partner, 27, "m-same-first", -1);
    rc = MPI_Mprobe(partner, 27, world, &second, &status);
    say_status("Mprobe same second", rc, &status, MPI_INT);
    expect_probe("Mprobe", world, partner, 27, "m-same-second", -1);
    rc = MPI_Mrecv(got, 16, MPI_INT, &second, &status);
    say_status("Mrecv same second", rc, &status, MPI_INT);
    expect_receive("Mrecv", bytes(5, MPI_INT), 16, MPI_INT, world, partner, 27, "m-same-second",
                   NULL);
    rc = MPI_Mrecv(got, 16, MPI_INT, &first, &status);
    say_status("Mrecv same first", rc, &status, MPI_INT);
    expect_receive("Mrecv", bytes(3, MPI_INT), 16, MPI_INT, world, partner, 27, "m-same-first",
                   NULL);
}

static void send_side(MPI_Comm world, MPI_Comm rev, int partner, int rev_partner) {
    int ints[16];
    double doubles[5] = {1.5, 2.5, 3.5, 4.5, 5.5};
    for (int i = 0; i < 16; ++i)
        ints[i] = 10 * tc_rank() + i;
    int rc = MPI_Send(ints, 10, MPI_INT, partner, 21, world);
    tc_say("Send rc=%d", rc);
    expect_send(10, MPI_INT, world, partner, 21);
    rc = MPI_Send(doubles, 5, MPI_DOUBLE, partner, 22, world);
    tc_say("Send rc=%d", rc);
    expect_send(5, MPI_DOUBLE, world, partner, 22);
    rc = MPI_Send(ints + 1, 7, MPI_INT, partner, 23, world);
    tc_say("Send rc=%d", rc);
    expect_send(7, MPI_INT, world, partner, 23);
    rc = MPI_Send(ints, 0, MPI_INT, rev_partner, 24, rev);
    tc_say("Send rc=%d", rc);
    expect_send(0, MPI_INT, rev, rev_partner, 24);
    rc = MPI_Send(ints + 3, 3, MPI_INT, partner, 25, world);
    tc_say("Send rc=%d", rc);
    expect_send(3, MPI_INT, world, partner, 25);
    rc = MPI_Send(ints + 5, 2, MPI_INT, partner, 26, world);
    tc_say("Send rc=%d", rc);
    expect_send(2, MPI_INT, world, partner, 26);
    rc = MPI_Send(ints, 3, MPI_INT, partner, 27, world);
    tc_say("Send rc=%d", rc);
    expect_send(3, MPI_INT, world, partner, 27);
    rc = MPI_Send(ints + 8, 5, MPI_INT, partner, 27, world);
    tc_say("Send rc=%d", rc);
    expect_send(5, MPI_INT, world, partner, 27);
}

/* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, received at once with the null status. */
static void proc_null_part(MPI_Comm world) {
    int got[4] = {0};
    MPI_Message message;
    MPI_Status status;
    MPI_Request request;
    int rc, flag = -1;

    rc = MPI_Mprobe(MPI_PROC_NULL, 5, world, &message, &status);
    say_status("Mprobe PROC_NULL", rc, &status, MPI_INT);
    tc_say("no_proc=%d", message == MPI_MESSAGE_NO_PROC);
    expect_probe("Mprobe", world, MPI_PROC_NULL, -1, NULL, -1);
    status.MPI_SOURCE = 12345;
    rc = MPI_Mrecv(got, 4, MPI_INT, &message, &status);
    say_status("Mrecv NO_PROC", rc, &status, MPI_INT);
    tc_say("null=%d", message == MPI_MESSAGE_NULL);
    expect_receive("Mrecv", 0, 4, MPI_INT, MPI_COMM_NULL, MPI_PROC_NULL, -1, NULL, NULL);

    rc = MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, world, &flag, &message, MPI_STATUS_IGNORE);
    tc_say("Improbe PROC_NULL rc=%d flag=%d no_proc=%d", rc, flag, message == MPI_MESSAGE_NO_PROC);
    expect_probe("Improbe", world, MPI_PROC_NULL, -1, NULL, 1);
    rc = MPI_Imrecv(got, 4, MPI_INT, &message, &request);
    tc_say("Imrecv NO_PROC rc=%d null_request=%d", rc, request == MPI_REQUEST_NULL);
    expect_receive("Imrecv", 0, 4, MPI_INT, MPI_COMM_NULL, MPI_PROC_NULL, -1, NULL, "imrecv-null");
    rc = MPI_Wait(&request, &status);
    say_status("Wait NO_PROC", rc, &status, MPI_INT);
    ex_begin("Wait");
    ex_for("imrecv-null");
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    MPI_Comm world = MPI_COMM_WORLD;

    /* Reversed ranks: the local rank differs from the world rank. */
    MPI_Comm rev;
    int rc = MPI_Comm_split(world, 0, size - rank, &rev);
    tc_check(rc, "MPI_Comm_split");
    tc_label_comm(rev, "rev");
    ex_begin("Comm_split");
    ex_comm("cid", world);
    ex_comm("newCid", rev);
    ex_end();

    int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    int rev_partner = size - 1 - partner;
    if (partner < size) {
        if (rank % 2 == 0)
            send_side(world, rev, partner, rev_partner);
        else
            receive_side(world, rev, partner, rev_partner);
    }
    proc_null_part(world);

    ex_begin("Comm_free");
    ex_comm("cid", rev);
    ex_end();
    tc_forget_comm(rev);
    rc = MPI_Comm_free(&rev);
    tc_say("Comm_free rc=%d", rc);
    tc_finalize();
    return 0;
}
