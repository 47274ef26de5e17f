/* nonblocking.c: Isend, Ibsend, Irsend, Issend, Irecv and their completion
 * by Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome
 * (with MPI_STATUS(ES)_IGNORE and MPI_REQUEST_NULL entries), persistent
 * requests (Send_init, Bsend_init, Ssend_init, Recv_init, Start, Startall,
 * Request_free) and Iprobe. Ranks work in pairs (even sends, odd receives);
 * needs at least 2 ranks. */
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

static MPI_Comm world;
static int partner;

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static void expect_isend(const char *tag, int count, MPI_Datatype type, int msgtag,
                         const char *rid) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("toRank", tc_world_rank(world, partner));
    ex_int("toTag", msgtag);
    ex_comm("cid", world);
    ex_rid("rid", rid);
    ex_end();
}

static void expect_irecv(const char *tag, int source, int msgtag, const char *rid) {
    ex_begin(tag);
    ex_int("fromRank", tc_world_rank(world, source));
    ex_int("fromTag", msgtag == MPI_ANY_TAG ? -1 : msgtag);
    ex_comm("cid", world);
    ex_rid("rid", rid);
    ex_end();
}

static void say_status(const char *what, MPI_Status *status) {
    int count = -7;
    MPI_Get_count(status, MPI_INT, &count);
    tc_say("%s source=%d tag=%d count=%d", what, status->MPI_SOURCE, status->MPI_TAG, count);
}

/* <tag> with one <For> per completed index, in array order. */
static void expect_completion(const char *tag, int n, const int *done, const char **labels) {
    ex_begin(tag);
    for (int i = 0; i < n; ++i)
        if (done[i]) ex_for(labels[i]);
    ex_end();
}

/* Testsome until every active request of the array completed. */
static void testsome_all(int n, MPI_Request *requests, const char **labels) {
    int remaining = 0;
    for (int i = 0; i < n; ++i)
        remaining += requests[i] != MPI_REQUEST_NULL;
    while (remaining > 0) {
        int outcount = 0, indices[8], done[8] = {0};
        MPI_Status statuses[8];
        int rc = MPI_Testsome(n, requests, &outcount, indices, statuses);
        tc_check(rc, "MPI_Testsome");
        for (int k = 0; k < outcount; ++k)
            done[indices[k]] = 1;
        expect_completion("Testsome", n, done, labels);
        remaining -= outcount;
    }
    tc_say("Testsome complete");
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    world = MPI_COMM_WORLD;
    int rank = tc_rank(), size = tc_size(), rc;
    partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    int sender = rank % 2 == 0;
    int out[32], in[32];
    for (int i = 0; i < 32; ++i)
        out[i] = rank * 1000 + i, in[i] = -1;
    MPI_Status status, statuses[4];

    /* Completing MPI_REQUEST_NULL: returns at once, no <For>. */
    MPI_Request null_request = MPI_REQUEST_NULL;
    rc = MPI_Wait(&null_request, &status);
    tc_say("Wait(NULL) rc=%d source=%d tag=%d", rc, status.MPI_SOURCE, status.MPI_TAG);
    ex_plain("Wait");
    int flag = -1;
    rc = MPI_Test(&null_request, &flag, MPI_STATUS_IGNORE);
    tc_say("Test(NULL) rc=%d flag=%d", rc, flag);
    ex_plain("Test");
    MPI_Request nulls[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    rc = MPI_Waitall(2, nulls, MPI_STATUSES_IGNORE);
    tc_say("Waitall(NULL, NULL) rc=%d", rc);
    ex_plain("Waitall");
    int index = -5;
    rc = MPI_Waitany(2, nulls, &index, &status);
    tc_say("Waitany(NULL, NULL) rc=%d index=%d undefined=%d", rc, index, index == MPI_UNDEFINED);
    ex_plain("Waitany");

    if (partner < size && sender) {
        /* Isend, Ibsend, Issend; Wait for one, Waitall for two. */
        MPI_Request r[3];
        int bufsize = 0;
        MPI_Pack_size(2, MPI_DOUBLE, world, &bufsize);
        bufsize = 4 * (bufsize + MPI_BSEND_OVERHEAD);
        void *buffer = malloc((size_t)bufsize);
        MPI_Buffer_attach(buffer, bufsize);
        double d[2] = {0.25, 0.5};
        rc = MPI_Isend(out, 4, MPI_INT, partner, 1, world, &r[0]);
        tc_say("Isend rc=%d", rc);
        expect_isend("Isend", 4, MPI_INT, 1, "isend");
        rc = MPI_Ibsend(d, 2, MPI_DOUBLE, partner, 2, world, &r[1]);
        tc_say("Ibsend rc=%d", rc);
        expect_isend("Ibsend", 2, MPI_DOUBLE, 2, "ibsend");
        rc = MPI_Issend(out, 3, MPI_INT, partner, 3, world, &r[2]);
        tc_say("Issend rc=%d", rc);
        expect_isend("Issend", 3, MPI_INT, 3, "issend");
        rc = MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        tc_say("Wait rc=%d null=%d", rc, r[0] == MPI_REQUEST_NULL);
        ex_begin("Wait");
        ex_for("isend");
        ex_end();
        rc = MPI_Waitall(2, &r[1], statuses);
        tc_say("Waitall rc=%d", rc);
        ex_begin("Waitall");
        ex_for("ibsend");
        ex_for("issend");
        ex_end();

        /* Irsend after the receiver's handshake; completed by Test. */
        rc = MPI_Recv(NULL, 0, MPI_INT, partner, 99, world, &status);
        say_status("Recv handshake", &status);
        ex_begin("Recv");
        ex_int("fromRank", partner);
        ex_int("fromTag", 99);
        ex_comm("cid", world);
        ex_end();
        MPI_Request request;
        rc = MPI_Irsend(out, 5, MPI_INT, partner, 4, world, &request);
        tc_say("Irsend rc=%d", rc);
        expect_isend("Irsend", 5, MPI_INT, 4, "irsend");
        do {
            rc = MPI_Test(&request, &flag, &status);
            tc_check(rc, "MPI_Test");
            ex_begin("Test");
            if (flag) ex_for("irsend");
            ex_end();
        } while (!flag);
        tc_say("Test done null=%d", request == MPI_REQUEST_NULL);

        /* Testany over an array with a null entry. */
        MPI_Request some[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        rc = MPI_Isend(out, 6, MPI_INT, partner, 5, world, &some[1]);
        expect_isend("Isend", 6, MPI_INT, 5, "testany-send");
        do {
            rc = MPI_Testany(2, some, &index, &flag, &status);
            tc_check(rc, "MPI_Testany");
            ex_begin("Testany");
            if (flag && index != MPI_UNDEFINED) ex_for("testany-send");
            ex_end();
        } while (!flag);
        tc_say("Testany index=%d", index);

        /* Testsome over two sends. */
        const char *labels[2] = {"testsome-send-a", "testsome-send-b"};
        rc = MPI_Isend(out, 7, MPI_INT, partner, 6, world, &some[0]);
        expect_isend("Isend", 7, MPI_INT, 6, labels[0]);
        rc = MPI_Isend(out, 8, MPI_INT, partner, 7, world, &some[1]);
        expect_isend("Isend", 8, MPI_INT, 7, labels[1]);
        testsome_all(2, some, labels);

        /* Waitall with null entries and MPI_STATUSES_IGNORE. */
        MPI_Request mixed[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        rc = MPI_Isend(out, 1, MPI_INT, partner, 8, world, &mixed[1]);
        expect_isend("Isend", 1, MPI_INT, 8, "mixed-send");
        rc = MPI_Waitall(3, mixed, MPI_STATUSES_IGNORE);
        tc_say("Waitall mixed rc=%d", rc);
        ex_begin("Waitall");
        ex_for("mixed-send");
        ex_end();

        /* Persistent sends: Start twice, then Startall. */
        MPI_Request p[3];
        rc = MPI_Send_init(out, 2, MPI_INT, partner, 10, world, &p[0]);
        tc_say("Send_init rc=%d", rc);
        expect_isend("Send_init", 2, MPI_INT, 10, "persistent-send");
        rc = MPI_Bsend_init(d, 1, MPI_DOUBLE, partner, 11, world, &p[1]);
        tc_say("Bsend_init rc=%d", rc);
        expect_isend("Bsend_init", 1, MPI_DOUBLE, 11, "persistent-bsend");
        rc = MPI_Ssend_init(out, 3, MPI_INT, partner, 12, world, &p[2]);
        tc_say("Ssend_init rc=%d", rc);
        expect_isend("Ssend_init", 3, MPI_INT, 12, "persistent-ssend");
        for (int round = 0; round < 2; ++round) {
            out[0] = round;
            rc = MPI_Start(&p[0]);
            tc_say("Start rc=%d", rc);
            ex_begin("Start");
            ex_rid("rid", "persistent-send");
            ex_end();
            rc = MPI_Wait(&p[0], &status);
            tc_say("Wait persistent rc=%d null=%d", rc, p[0] == MPI_REQUEST_NULL);
            ex_begin("Wait");
            ex_for("persistent-send");
            ex_end();
        }
        /* An inactive persistent request completes at once, without <For>. */
        rc = MPI_Wait(&p[0], &status);
        tc_say("Wait inactive rc=%d", rc);
        ex_plain("Wait");
        rc = MPI_Startall(3, p);
        tc_say("Startall rc=%d", rc);
        ex_begin("Startall");
        ex_for("persistent-send");
        ex_for("persistent-bsend");
        ex_for("persistent-ssend");
        ex_end();
        rc = MPI_Waitall(3, p, statuses);
        tc_say("Waitall persistent rc=%d", rc);
        ex_begin("Waitall");
        ex_for("persistent-send");
        ex_for("persistent-bsend");
        ex_for("persistent-ssend");
        ex_end();
        for (int i = 0; i < 3; ++i) {
            rc = MPI_Request_free(&p[i]);
            tc_say("Request_free rc=%d null=%d", rc, p[i] == MPI_REQUEST_NULL);
        }

        /* Rsend_init, started once the receiver has posted its receive. */
        rc = MPI_Recv(NULL, 0, MPI_INT, partner, 98, world, &status);
        ex_begin("Recv");
        ex_int("fromRank", partner);
        ex_int("fromTag", 98);
        ex_comm("cid", world);
        ex_end();
        MPI_Request ready;
        rc = MPI_Rsend_init(out, 4, MPI_INT, partner, 14, world, &ready);
        tc_say("Rsend_init rc=%d", rc);
        expect_isend("Rsend_init", 4, MPI_INT, 14, "persistent-rsend");
        rc = MPI_Start(&ready);
        ex_begin("Start");
        ex_rid("rid", "persistent-rsend");
        ex_end();
        rc = MPI_Wait(&ready, MPI_STATUS_IGNORE);
        ex_begin("Wait");
        ex_for("persistent-rsend");
        ex_end();
        rc = MPI_Request_free(&ready);
        tc_say("Request_free rc=%d", rc);

        /* A message for the receiver's Iprobe. */
        rc = MPI_Send(out, 9, MPI_INT, partner, 13, world);
        ex_begin("Send");
        ex_int("size", bytes(9, MPI_INT));
        ex_int("count", 9);
        ex_type("tid", MPI_INT);
        ex_int("toRank", partner);
        ex_int("toTag", 13);
        ex_comm("cid", world);
        ex_end();
        MPI_Buffer_detach(&buffer, &bufsize);
        free(buffer);
    } else if (partner < size) {
        /* Three receives; Waitany, then Waitsome for the rest. */
        MPI_Request r[3];
        const char *labels[3] = {"irecv-any-source", "irecv-2", "irecv-any-tag"};
        double d[2];
        rc = MPI_Irecv(in, 4, MPI_INT, MPI_ANY_SOURCE, 1, world, &r[0]);
        expect_irecv("Irecv", MPI_ANY_SOURCE, 1, labels[0]);
        rc = MPI_Irecv(d, 2, MPI_DOUBLE, partner, 2, world, &r[1]);
        expect_irecv("Irecv", partner, 2, labels[1]);
        rc = MPI_Irecv(in + 4, 3, MPI_INT, partner, MPI_ANY_TAG, world, &r[2]);
        expect_irecv("Irecv", partner, MPI_ANY_TAG, labels[2]);
        tc_say("Irecv rc=%d", rc);
        rc = MPI_Waitany(3, r, &index, &status);
        /* Which request completes first is up to MPI: print nothing of it. */
        tc_say("Waitany rc=%d", rc);
        int done[3] = {0, 0, 0};
        done[index] = 1;
        expect_completion("Waitany", 3, done, labels);
        int remaining = 2;
        while (remaining > 0) {
            int outcount = 0, indices[3], now[3] = {0, 0, 0};
            rc = MPI_Waitsome(3, r, &outcount, indices, statuses);
            tc_check(rc, "MPI_Waitsome");
            for (int k = 0; k < outcount; ++k)
                now[indices[k]] = 1;
            expect_completion("Waitsome", 3, now, labels);
            remaining -= outcount;
        }
        tc_say("data=%d %d %g", in[0] + in[3], in[4] + in[6], d[0] + d[1]);

        /* The receive for the Irsend, posted before the handshake. */
        MPI_Request request;
        rc = MPI_Irecv(in, 5, MPI_INT, partner, 4, world, &request);
        expect_irecv("Irecv", partner, 4, "irsend-receive");
        rc = MPI_Send(NULL, 0, MPI_INT, partner, 99, world);
        ex_begin("Send");
        ex_int("size", 0);
        ex_int("count", 0);
        ex_type("tid", MPI_INT);
        ex_int("toRank", partner);
        ex_int("toTag", 99);
        ex_comm("cid", world);
        ex_end();
        do {
            rc = MPI_Testall(1, &request, &flag, MPI_STATUSES_IGNORE);
            tc_check(rc, "MPI_Testall");
            ex_begin("Testall");
            if (flag) ex_for("irsend-receive");
            ex_end();
        } while (!flag);
        tc_say("Testall data=%d", in[0] + in[4]);

        /* Testany's message, received with Wait and a status. */
        rc = MPI_Irecv(in, 6, MPI_INT, partner, 5, world, &request);
        expect_irecv("Irecv", partner, 5, "testany-receive");
        rc = MPI_Wait(&request, &status);
        say_status("Wait", &status);
        ex_begin("Wait");
        ex_for("testany-receive");
        ex_end();

        /* Testsome's messages, received by Testsome. */
        const char *some_labels[2] = {"testsome-receive-a", "testsome-receive-b"};
        MPI_Request some[2];
        rc = MPI_Irecv(in, 7, MPI_INT, partner, 6, world, &some[0]);
        expect_irecv("Irecv", partner, 6, some_labels[0]);
        rc = MPI_Irecv(in + 8, 8, MPI_INT, partner, 7, world, &some[1]);
        expect_irecv("Irecv", partner, 7, some_labels[1]);
        testsome_all(2, some, some_labels);

        /* The mixed Waitall's message. */
        rc = MPI_Irecv(in, 1, MPI_INT, partner, 8, world, &request);
        expect_irecv("Irecv", partner, 8, "mixed-receive");
        rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
        ex_begin("Wait");
        ex_for("mixed-receive");
        ex_end();

        /* Persistent receives. */
        MPI_Request p[3];
        rc = MPI_Recv_init(in, 2, MPI_INT, partner, 10, world, &p[0]);
        tc_say("Recv_init rc=%d", rc);
        expect_irecv("Recv_init", partner, 10, "persistent-receive");
        rc = MPI_Recv_init(d, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 11, world, &p[1]);
        expect_irecv("Recv_init", MPI_ANY_SOURCE, 11, "persistent-receive-b");
        rc = MPI_Recv_init(in + 2, 3, MPI_INT, partner, MPI_ANY_TAG, world, &p[2]);
        expect_irecv("Recv_init", partner, MPI_ANY_TAG, "persistent-receive-s");
        for (int round = 0; round < 2; ++round) {
            rc = MPI_Start(&p[0]);
            ex_begin("Start");
            ex_rid("rid", "persistent-receive");
            ex_end();
            rc = MPI_Wait(&p[0], &status);
            say_status("Wait persistent", &status);
            tc_say("round data=%d", in[0]);
            ex_begin("Wait");
            ex_for("persistent-receive");
            ex_end();
        }
        rc = MPI_Startall(3, p);
        ex_begin("Startall");
        ex_for("persistent-receive");
        ex_for("persistent-receive-b");
        ex_for("persistent-receive-s");
        ex_end();
        rc = MPI_Waitall(3, p, statuses);
        for (int i = 0; i < 3; ++i)
            say_status("Waitall persistent", &statuses[i]);
        ex_begin("Waitall");
        ex_for("persistent-receive");
        ex_for("persistent-receive-b");
        ex_for("persistent-receive-s");
        ex_end();
        for (int i = 0; i < 3; ++i)
            MPI_Request_free(&p[i]);

        /* The receive for the Rsend_init, posted before the handshake. */
        rc = MPI_Irecv(in, 4, MPI_INT, partner, 14, world, &request);
        expect_irecv("Irecv", partner, 14, "rsend-init-receive");
        rc = MPI_Send(NULL, 0, MPI_INT, partner, 98, world);
        ex_begin("Send");
        ex_int("size", 0);
        ex_int("count", 0);
        ex_type("tid", MPI_INT);
        ex_int("toRank", partner);
        ex_int("toTag", 98);
        ex_comm("cid", world);
        ex_end();
        rc = MPI_Wait(&request, &status);
        say_status("Wait for Rsend_init", &status);
        ex_begin("Wait");
        ex_for("rsend-init-receive");
        ex_end();

        /* Iprobe until the message is there, then receive it. */
        do {
            rc = MPI_Iprobe(MPI_ANY_SOURCE, 13, world, &flag, &status);
            tc_check(rc, "MPI_Iprobe");
            ex_begin("Iprobe");
            ex_int("source", -1);
            ex_int("tag", 13);
            ex_comm("cid", world);
            ex_end();
        } while (!flag);
        say_status("Iprobe", &status);
        rc = MPI_Iprobe(partner, MPI_ANY_TAG, world, &flag, &status);
        ex_begin("Iprobe");
        ex_int("source", partner);
        ex_int("tag", -1);
        ex_comm("cid", world);
        ex_end();
        tc_say("Iprobe any tag flag=%d", flag);
        rc = MPI_Recv(in, 9, MPI_INT, partner, 13, world, &status);
        say_status("Recv", &status);
        ex_begin("Recv");
        ex_int("fromRank", partner);
        ex_int("fromTag", 13);
        ex_comm("cid", world);
        ex_end();
    }
    tc_finalize();
    return 0;
}
