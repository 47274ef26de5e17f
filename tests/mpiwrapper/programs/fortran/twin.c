/* twin.c: the C twin of twin.F90 and twin_f08.f90. The same MPI calls, in
 * the same order, with the same arguments (Fortran datatypes included), so
 * that test_fortran.py can require the Fortran programs' traces to equal
 * this one's, call by call. Prints what it received: "r<rank> ..." lines,
 * the same with and without the wrapper. Needs at least 2 ranks. */
#include <stdarg.h>
#include <stdio.h>

#include <mpi.h>

static int rank;

/* One write per line, flushed: the launcher merges the ranks' outputs. */
static void say(const char *format, ...) {
    char line[256];
    int used = snprintf(line, sizeof line, "r%d ", rank);
    va_list args;
    va_start(args, format);
    used += vsnprintf(line + used, sizeof line - used - 1, format, args);
    va_end(args);
    line[used] = '\n';
    fwrite(line, 1, used + 1, stdout);
    fflush(stdout);
}

static void say_ints(const char *what, const int *v, int n) {
    char text[200];
    int used = snprintf(text, sizeof text, "%s", what);
    for (int i = 0; i < n; ++i)
        used += snprintf(text + used, sizeof text - used, " %d", v[i]);
    say("%s", text);
}

int main(int argc, char **argv) {
    int size, ints[4], got[4], both[8], value, sum;
    double doubles[5];
    MPI_Status status, statuses[4];
    MPI_Request requests[4];
    MPI_Comm world = MPI_COMM_WORLD, half, dup;
    MPI_Datatype vector;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 4; ++i)
        ints[i] = 100 * rank + i;

    /* Ring: even ranks send first. A receive from any source (the tag
     * tells the ring message from the later ones) with a status, then
     * one from the known neighbour with MPI_STATUS_IGNORE. */
    if (rank % 2 == 0) {
        MPI_Send(ints, 4, MPI_INTEGER, right, 10 + rank, world);
        MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, 10 + left, world, &status);
    } else {
        MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, 10 + left, world, &status);
        MPI_Send(ints, 4, MPI_INTEGER, right, 10 + rank, world);
    }
    say_ints("recv", got, 4);
    say("status source=%d tag=%d", status.MPI_SOURCE, status.MPI_TAG);
    if (rank % 2 == 0) {
        MPI_Send(ints, 2, MPI_INTEGER, left, 20, world);
        MPI_Recv(got, 2, MPI_INTEGER, right, 20, world, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(got, 2, MPI_INTEGER, right, 20, world, MPI_STATUS_IGNORE);
        MPI_Send(ints, 2, MPI_INTEGER, left, 20, world);
    }
    say_ints("recv2", got, 2);

    /* Both neighbours at once, twice: with statuses and with none. */
    for (int round = 0; round < 2; ++round) {
        MPI_Irecv(&both[0], 4, MPI_INTEGER, left, 30, world, &requests[0]);
        MPI_Irecv(&both[4], 4, MPI_INTEGER, right, 31, world, &requests[1]);
        MPI_Isend(ints, 4, MPI_INTEGER, right, 30, world, &requests[2]);
        MPI_Isend(ints, 4, MPI_INTEGER, left, 31, world, &requests[3]);
        if (round == 0) {
            MPI_Waitall(4, requests, statuses);
            say("waitall sources=%d,%d", statuses[0].MPI_SOURCE, statuses[1].MPI_SOURCE);
        } else {
            MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
        }
        say_ints("both", both, 8);
    }

    /* Waitany and Waitsome, where one request only can complete: their
     * indices (1-based in Fortran) name it. */
    MPI_Request any[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request some[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int index = -1, outcount = -1, indices[2] = {-1, -1};
    MPI_Isend(ints, 4, MPI_INTEGER, right, 40, world, &some[1]);
    MPI_Irecv(got, 4, MPI_INTEGER, left, 40, world, &any[1]);
    MPI_Waitany(3, any, &index, MPI_STATUS_IGNORE);
    MPI_Waitsome(2, some, &outcount, indices, MPI_STATUSES_IGNORE);
    say("any index=%d some=%d,%d", index, outcount, indices[0]);

    /* Collectives, one of them in place. */
    for (int i = 0; i < 5; ++i)
        doubles[i] = rank == 0 ? 0.5 * i : -1.0;
    MPI_Bcast(doubles, 5, MPI_DOUBLE_PRECISION, 0, world);
    say("bcast %.1f %.1f", doubles[1], doubles[4]);
    value = rank + 1;
    MPI_Allreduce(&value, &sum, 1, MPI_INTEGER, MPI_SUM, world);
    MPI_Allreduce(MPI_IN_PLACE, ints, 4, MPI_INTEGER, MPI_MAX, world);
    int gathered[4] = {0, 0, 0, 0};
    gathered[rank] = 10 + rank;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INTEGER, world);
    say_ints("allgather", gathered, size);
    say("allreduce %d", sum);
    say_ints("inplace", ints, 4);

    /* A derived datatype: every second INTEGER of six. */
    int spread[6] = {0, 0, 0, 0, 0, 0};
    if (rank == 0)
        for (int i = 0; i < 6; ++i)
            spread[i] = 7 * (i + 1);
    MPI_Type_vector(3, 1, 2, MPI_INTEGER, &vector);
    MPI_Type_commit(&vector);
    MPI_Bcast(spread, 1, vector, 0, world);
    MPI_Type_free(&vector);
    say_ints("vector", spread, 6);

    /* Communicators: a split in halves with reversed order, a duplicate. */
    MPI_Comm_split(world, rank % 2, size - rank, &half);
    MPI_Allreduce(&value, &sum, 1, MPI_INTEGER, MPI_SUM, half);
    say("halfsum %d", sum);
    MPI_Comm_dup(world, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);

    /* Errors returned, not fatal; a receive from MPI_PROC_NULL. */
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    int code = MPI_Send(ints, 1, MPI_INTEGER, size + 5, 1, world), class = -1;
    MPI_Error_class(code, &class);
    MPI_Recv(got, 4, MPI_INTEGER, MPI_PROC_NULL, 5, world, &status);
    say("errors send=%d proc_null source=%d tag=%d", class, status.MPI_SOURCE, status.MPI_TAG);

    /* MPI-IO: each rank writes its block, then reads its right neighbour's. */
    MPI_File_open(world, "twin.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INTEGER, MPI_INTEGER, "native", MPI_INFO_NULL);
    for (int i = 0; i < 4; ++i)
        ints[i] = 1000 * rank + i;
    MPI_File_write_at(fh, (MPI_Offset)4 * rank, ints, 4, MPI_INTEGER, &status);
    MPI_File_sync(fh);
    MPI_Barrier(world);
    MPI_File_sync(fh);
    MPI_File_read_at_all(fh, (MPI_Offset)4 * right, got, 4, MPI_INTEGER, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    say_ints("file", got, 4);

    MPI_Finalize();
    return 0;
}
