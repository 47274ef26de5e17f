/* rma.c: one-sided communication with every synchronisation mode. A window
 * made with Win_create on a communicator with reversed ranks (so that
 * target ranks must be translated to world ranks) goes through a fence
 * epoch, exclusive and shared locks, lock_all with the request-based calls
 * and every flush, and two post/start/complete/wait epochs (one completed
 * by Win_test). Then windows from Win_allocate, Win_allocate_shared and
 * Win_create_dynamic (with Win_attach/Win_detach). Needs at least 2 ranks,
 * all on one node (Win_allocate_shared). */
#include <stdio.h>
#include <string.h>

#include "expect.h"

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

/* Put, Get, the accumulates and their request forms. op and rid may be NULL. */
static void expect_data(const char *tag, int count, MPI_Datatype type, MPI_Comm comm, int target,
                        MPI_Aint disp, const char *win, const char *op, const char *rid) {
    ex_begin(tag);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_int("targetRank", tc_world_rank(comm, target));
    ex_int("disp", (long long)disp);
    ex_win("wid", win);
    if (op) ex_str("op", op);
    if (rid) ex_rid("rid", rid);
    ex_end();
}

/* A synchronisation call that writes only wid. */
static void expect_sync(const char *tag, const char *win) {
    ex_begin(tag);
    ex_win("wid", win);
    ex_end();
}

static void expect_sync_target(const char *tag, const char *win, MPI_Comm comm, int target) {
    ex_begin(tag);
    ex_win("wid", win);
    ex_int("targetRank", tc_world_rank(comm, target));
    ex_end();
}

static void expect_fence(const char *win, int assertion) {
    ex_begin("Win_fence");
    ex_win("wid", win);
    ex_int("assert", assertion);
    ex_end();
}

static void expect_creation(const char *tag, MPI_Comm comm, const char *win, long long size,
                            int disp_unit, const char *kind) {
    ex_begin(tag);
    ex_comm("cid", comm);
    ex_win("wid", win);
    if (strcmp(kind, "dynamic") != 0) {
        ex_int("size", size);
        ex_int("dispUnit", disp_unit);
    }
    ex_end();
    expect_win_line(win, comm, size, disp_unit, kind);
}

static void expect_free(const char *win) {
    expect_sync("Win_free", win);
}

/* --- The Win_create window on `rev`: every synchronisation mode. */
static void created_window(MPI_Comm rev) {
    const char *w = "w-create";
    int n = tc_size(), me = 0, rc;
    MPI_Comm_rank(rev, &me);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int memory[16], src[4], dst[4] = {0}, result[2] = {0};
    for (int i = 0; i < 16; ++i)
        memory[i] = 1000 * tc_rank() + i;
    for (int i = 0; i < 4; ++i)
        src[i] = 100 * (tc_rank() + 1) + i;

    MPI_Win win;
    rc = MPI_Win_create(memory, sizeof memory, sizeof(int), MPI_INFO_NULL, rev, &win);
    tc_say("Win_create rc=%d", rc);
    expect_creation("Win_create", rev, w, (long long)sizeof memory, (int)sizeof(int), "create");

    /* Fence epoch: Put, Get, Accumulate, a Put to MPI_PROC_NULL. */
    rc = MPI_Win_fence(0, win);
    tc_say("Win_fence rc=%d", rc);
    expect_fence(w, 0);
    rc = MPI_Put(src, 3, MPI_INT, right, 2, 3, MPI_INT, win);
    tc_say("Put rc=%d", rc);
    expect_data("Put", 3, MPI_INT, rev, right, 2, w, NULL, NULL);
    rc = MPI_Get(dst, 2, MPI_INT, left, 8, 2, MPI_INT, win);
    tc_say("Get rc=%d", rc);
    expect_data("Get", 2, MPI_INT, rev, left, 8, w, NULL, NULL);
    rc = MPI_Accumulate(src, 2, MPI_INT, right, 12, 2, MPI_INT, MPI_SUM, win);
    tc_say("Accumulate rc=%d", rc);
    expect_data("Accumulate", 2, MPI_INT, rev, right, 12, w, "MPI_SUM", NULL);
    rc = MPI_Put(src, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    tc_say("Put PROC_NULL rc=%d", rc);
    expect_data("Put", 1, MPI_INT, rev, MPI_PROC_NULL, 0, w, NULL, NULL);
    rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    tc_say("Win_fence rc=%d memory=%ld got=%ld", rc, tc_checksum(memory, 16), tc_checksum(dst, 2));
    expect_fence(w, MPI_MODE_NOSUCCEED);
    /* The left neighbour's lock epoch below writes this rank's memory: only
     * after the checksum above. */
    rc = MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();

    /* Passive target: an exclusive lock with Put, Compare_and_swap and
     * Fetch_and_op on the right neighbour, a shared lock with Get on the left. */
    rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    tc_say("Win_lock rc=%d", rc);
    ex_begin("Win_lock");
    ex_win("wid", w);
    ex_int("targetRank", tc_world_rank(rev, right));
    ex_str("lockType", "exclusive");
    ex_end();
    rc = MPI_Put(src + 1, 1, MPI_INT, right, 5, 1, MPI_INT, win);
    tc_say("Put rc=%d", rc);
    expect_data("Put", 1, MPI_INT, rev, right, 5, w, NULL, NULL);
    int swap_in = 77, compare = 1000 * tc_world_rank(rev, right) + 6, one = 1;
    rc = MPI_Compare_and_swap(&swap_in, &compare, &result[0], MPI_INT, right, 6, win);
    tc_say("Compare_and_swap rc=%d", rc);
    expect_data("Compare_and_swap", 1, MPI_INT, rev, right, 6, w, NULL, NULL);
    rc = MPI_Fetch_and_op(&one, &result[1], MPI_INT, right, 7, MPI_SUM, win);
    tc_say("Fetch_and_op rc=%d", rc);
    expect_data("Fetch_and_op", 1, MPI_INT, rev, right, 7, w, "MPI_SUM", NULL);
    rc = MPI_Win_unlock(right, win);
    tc_say("Win_unlock rc=%d fetched=%d,%d", rc, result[0], result[1]);
    expect_sync_target("Win_unlock", w, rev, right);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    tc_say("Win_lock rc=%d", rc);
    ex_begin("Win_lock");
    ex_win("wid", w);
    ex_int("targetRank", tc_world_rank(rev, left));
    ex_str("lockType", "shared");
    ex_end();
    rc = MPI_Get(dst, 2, MPI_INT, left, 0, 2, MPI_INT, win);
    tc_say("Get rc=%d", rc);
    expect_data("Get", 2, MPI_INT, rev, left, 0, w, NULL, NULL);
    rc = MPI_Win_unlock(left, win);
    tc_say("Win_unlock rc=%d got=%ld", rc, tc_checksum(dst, 2));
    expect_sync_target("Win_unlock", w, rev, left);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();

    /* lock_all: the request-based calls and every flush. */
    MPI_Request requests[3];
    rc = MPI_Win_lock_all(0, win);
    tc_say("Win_lock_all rc=%d", rc);
    expect_sync("Win_lock_all", w);
    rc = MPI_Rput(src, 2, MPI_INT, right, 10, 2, MPI_INT, win, &requests[0]);
    tc_say("Rput rc=%d", rc);
    expect_data("Rput", 2, MPI_INT, rev, right, 10, w, NULL, "rput");
    rc = MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    tc_say("Wait rc=%d", rc);
    ex_begin("Wait");
    ex_for("rput");
    ex_end();
    rc = MPI_Rget(dst, 2, MPI_INT, left, 0, 2, MPI_INT, win, &requests[0]);
    tc_say("Rget rc=%d", rc);
    expect_data("Rget", 2, MPI_INT, rev, left, 0, w, NULL, "rget");
    rc = MPI_Raccumulate(src + 2, 1, MPI_INT, right, 14, 1, MPI_INT, MPI_MAX, win, &requests[1]);
    tc_say("Raccumulate rc=%d", rc);
    expect_data("Raccumulate", 1, MPI_INT, rev, right, 14, w, "MPI_MAX", "raccumulate");
    /* MPI_NO_OP ignores the origin: the result side is logged. */
    rc = MPI_Rget_accumulate(NULL, 0, MPI_INT, &result[0], 1, MPI_INT, left, 15, 1, MPI_INT,
                             MPI_NO_OP, win, &requests[2]);
    tc_say("Rget_accumulate rc=%d", rc);
    expect_data("Rget_accumulate", 1, MPI_INT, rev, left, 15, w, "MPI_NO_OP", "rget_accumulate");
    rc = MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
    tc_say("Waitall rc=%d got=%ld", rc, tc_checksum(dst, 2));
    ex_begin("Waitall");
    ex_for("rget");
    ex_for("raccumulate");
    ex_for("rget_accumulate");
    ex_end();
    rc = MPI_Get_accumulate(src + 3, 1, MPI_INT, &result[1], 1, MPI_INT, right, 13, 1, MPI_INT,
                            MPI_SUM, win);
    tc_say("Get_accumulate rc=%d", rc);
    expect_data("Get_accumulate", 1, MPI_INT, rev, right, 13, w, "MPI_SUM", NULL);
    rc = MPI_Win_flush(right, win);
    tc_say("Win_flush rc=%d", rc);
    expect_sync_target("Win_flush", w, rev, right);
    rc = MPI_Win_flush_local(left, win);
    tc_say("Win_flush_local rc=%d", rc);
    expect_sync_target("Win_flush_local", w, rev, left);
    rc = MPI_Win_flush_all(win);
    tc_say("Win_flush_all rc=%d", rc);
    expect_sync("Win_flush_all", w);
    rc = MPI_Win_flush_local_all(win);
    tc_say("Win_flush_local_all rc=%d", rc);
    expect_sync("Win_flush_local_all", w);
    rc = MPI_Win_sync(win);
    tc_say("Win_sync rc=%d", rc);
    expect_sync("Win_sync", w);
    rc = MPI_Win_unlock_all(win);
    tc_say("Win_unlock_all rc=%d", rc);
    expect_sync("Win_unlock_all", w);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();

    /* Post/start/complete/wait with every other rank; then again, the
     * exposure epoch ended by Win_test (one element per call, as it went). */
    MPI_Group group, others;
    MPI_Comm_group(rev, &group);
    MPI_Group_excl(group, 1, &me, &others);
    char ranks[1024] = "";
    for (int l = 0; l < n; ++l)
        if (l != me)
            snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "%d;",
                     tc_world_rank(rev, l));
    for (int round = 0; round < 2; ++round) {
        rc = MPI_Win_post(others, 0, win);
        tc_say("Win_post rc=%d", rc);
        ex_begin("Win_post");
        ex_win("wid", w);
        ex_str("ranks", ranks);
        ex_end();
        rc = MPI_Win_start(others, 0, win);
        tc_say("Win_start rc=%d", rc);
        ex_begin("Win_start");
        ex_win("wid", w);
        ex_str("ranks", ranks);
        ex_end();
        for (int l = 0; l < n; ++l) {
            if (l == me) continue;
            rc = MPI_Put(&src[round], 1, MPI_INT, l, me, 1, MPI_INT, win);
            tc_check(rc, "MPI_Put");
            expect_data("Put", 1, MPI_INT, rev, l, me, w, NULL, NULL);
        }
        rc = MPI_Win_complete(win);
        tc_say("Win_complete rc=%d", rc);
        expect_sync("Win_complete", w);
        if (round == 0) {
            rc = MPI_Win_wait(win);
            tc_say("Win_wait rc=%d memory=%ld", rc, tc_checksum(memory, 16));
            expect_sync("Win_wait", w);
        } else {
            int flag = 0;
            do {
                rc = MPI_Win_test(win, &flag);
                tc_check(rc, "MPI_Win_test");
                ex_begin("Win_test");
                ex_win("wid", w);
                ex_int("flag", flag);
                ex_end();
            } while (!flag);
            tc_say("Win_test done memory=%ld", tc_checksum(memory, 16));
        }
    }
    MPI_Group_free(&others);
    MPI_Group_free(&group);

    rc = MPI_Win_free(&win);
    tc_say("Win_free rc=%d null=%d memory=%ld", rc, win == MPI_WIN_NULL, tc_checksum(memory, 16));
    expect_free(w);
}

/* --- Win_allocate on MPI_COMM_WORLD: doubles, displacement unit 8. */
static void allocated_window(void) {
    const char *w = "w-allocate";
    int n = tc_size(), me = tc_rank(), rc;
    int right = (me + 1) % n;
    double *base = NULL, value[2] = {0.5 + me, 1.5 + me};
    MPI_Win win;
    rc = MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                          &win);
    tc_say("Win_allocate rc=%d", rc);
    expect_creation("Win_allocate", MPI_COMM_WORLD, w, 4 * sizeof(double), sizeof(double),
                    "allocate");
    for (int i = 0; i < 4; ++i)
        base[i] = me;
    rc = MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    tc_say("Win_fence rc=%d", rc);
    expect_fence(w, MPI_MODE_NOPRECEDE);
    rc = MPI_Put(value, 2, MPI_DOUBLE, right, 1, 2, MPI_DOUBLE, win);
    tc_say("Put rc=%d", rc);
    expect_data("Put", 2, MPI_DOUBLE, MPI_COMM_WORLD, right, 1, w, NULL, NULL);
    rc = MPI_Accumulate(value, 1, MPI_DOUBLE, right, 3, 1, MPI_DOUBLE, MPI_PROD, win);
    tc_say("Accumulate rc=%d", rc);
    expect_data("Accumulate", 1, MPI_DOUBLE, MPI_COMM_WORLD, right, 3, w, "MPI_PROD", NULL);
    rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    tc_say("Win_fence rc=%d data=%g %g %g %g", rc, base[0], base[1], base[2], base[3]);
    expect_fence(w, MPI_MODE_NOSUCCEED);
    rc = MPI_Win_free(&win);
    tc_say("Win_free rc=%d", rc);
    expect_free(w);
}

/* --- Win_allocate_shared on MPI_COMM_WORLD: a part of its own size per rank. */
static void shared_window(void) {
    const char *w = "w-shared";
    int n = tc_size(), me = tc_rank(), rc;
    int right = (me + 1) % n;
    MPI_Aint size = (MPI_Aint)((me + 1) * sizeof(int));
    int *base = NULL, value = 500 + me;
    MPI_Win win;
    rc = MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    tc_say("Win_allocate_shared rc=%d", rc);
    expect_creation("Win_allocate_shared", MPI_COMM_WORLD, w, size, sizeof(int), "shared");
    rc = MPI_Win_fence(0, win);
    tc_say("Win_fence rc=%d", rc);
    expect_fence(w, 0);
    rc = MPI_Put(&value, 1, MPI_INT, right, right, 1, MPI_INT, win);
    tc_say("Put rc=%d", rc);
    expect_data("Put", 1, MPI_INT, MPI_COMM_WORLD, right, right, w, NULL, NULL);
    rc = MPI_Win_fence(0, win);
    tc_say("Win_fence rc=%d last=%d", rc, base[me]);
    expect_fence(w, 0);
    rc = MPI_Win_free(&win);
    tc_say("Win_free rc=%d", rc);
    expect_free(w);
}

/* --- Win_create_dynamic with attached memory: displacements are addresses. */
static void dynamic_window(void) {
    const char *w = "w-dynamic";
    int n = tc_size(), me = tc_rank(), rc;
    int right = (me + 1) % n;
    int memory[4] = {me, me, me, me}, value = 900 + me;
    MPI_Win win;
    rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    tc_say("Win_create_dynamic rc=%d", rc);
    expect_creation("Win_create_dynamic", MPI_COMM_WORLD, w, 0, 1, "dynamic");
    rc = MPI_Win_attach(win, memory, sizeof memory);
    tc_say("Win_attach rc=%d", rc);
    ex_begin("Win_attach");
    ex_win("wid", w);
    ex_int("size", (long long)sizeof memory);
    ex_end();
    MPI_Aint mine, addresses[64];
    MPI_Get_address(memory, &mine);
    rc = MPI_Allgather(&mine, sizeof mine, MPI_BYTE, addresses, sizeof mine, MPI_BYTE,
                       MPI_COMM_WORLD);
    tc_check(rc, "MPI_Allgather");
    ex_begin("Allgather");
    ex_int("size", (long long)sizeof mine);
    ex_int("recvSize", (long long)sizeof mine);
    ex_comm("cid", MPI_COMM_WORLD);
    ex_int("count", (long long)sizeof mine);
    ex_type("tid", MPI_BYTE);
    ex_int("recvCount", (long long)sizeof mine);
    ex_type("recvtid", MPI_BYTE);
    ex_end();
    rc = MPI_Win_fence(0, win);
    tc_say("Win_fence rc=%d", rc);
    expect_fence(w, 0);
    MPI_Aint disp = addresses[right] + 2 * (MPI_Aint)sizeof(int);
    rc = MPI_Put(&value, 1, MPI_INT, right, disp, 1, MPI_INT, win);
    tc_say("Put rc=%d", rc);
    expect_data("Put", 1, MPI_INT, MPI_COMM_WORLD, right, disp, w, NULL, NULL);
    rc = MPI_Win_fence(0, win);
    tc_say("Win_fence rc=%d data=%d %d %d %d", rc, memory[0], memory[1], memory[2], memory[3]);
    expect_fence(w, 0);
    rc = MPI_Win_detach(win, memory);
    tc_say("Win_detach rc=%d", rc);
    expect_sync("Win_detach", w);
    rc = MPI_Win_free(&win);
    tc_say("Win_free rc=%d", rc);
    expect_free(w);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size();
    if (size < 2 || size > 64) {
        fprintf(stderr, "rma: needs 2 to 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Reversed ranks: the target's local rank differs from its world rank. */
    MPI_Comm rev;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    tc_check(rc, "MPI_Comm_split");
    tc_label_comm(rev, "rev");
    ex_begin("Comm_split");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_comm("newCid", rev);
    ex_end();

    created_window(rev);
    allocated_window();
    shared_window();
    dynamic_window();

    ex_begin("Comm_free");
    ex_comm("cid", rev);
    ex_end();
    tc_forget_comm(rev);
    rc = MPI_Comm_free(&rev);
    tc_say("Comm_free rc=%d", rc);
    tc_finalize();
    return 0;
}
