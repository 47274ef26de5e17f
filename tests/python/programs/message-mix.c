/* A run for the Dask tests (tests/python/test_dask.py): every kind of
 * point-to-point message match_messages pairs, collectives and file I/O.
 * Usage: message-mix FILE ITERATIONS, on an even number of ranks >= 2. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "message-mix.dat";
    int iterations = argc > 2 ? atoi(argv[2]) : 10;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[64], in[64];
    for (int i = 0; i < 64; i++) out[i] = rank * 100 + i;

    /* Even and odd ranks, each in reverse order: local ranks differ from world ranks. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int half_rank, half_size;
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_size(half, &half_size);

    for (int i = 0; i < iterations; i++) {
        MPI_Sendrecv(out, 8, MPI_DOUBLE, right, 1, in, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Request requests[4];
        MPI_Irecv(in, 4, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(in + 4, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &requests[1]);
        MPI_Isend(out, 4, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &requests[2]);
        MPI_Isend(out + 4, 2, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &requests[3]);
        MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
        if (half_size > 1 && half_rank == 0)
            MPI_Send(out, 1 + i % 3, MPI_DOUBLE, 1, i, half);
        else if (half_size > 1 && half_rank == 1)
            MPI_Recv(in, 3, MPI_DOUBLE, 0, MPI_ANY_TAG, half, MPI_STATUS_IGNORE);
        MPI_Send(out, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double sum;
        MPI_Allreduce(&out[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    /* Persistent requests: started together, then one by one. */
    MPI_Request persistent[2];
    MPI_Send_init(out, 16, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &persistent[0]);
    MPI_Recv_init(in, 16, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &persistent[1]);
    for (int i = 0; i < 3; i++) {
        MPI_Startall(2, persistent);
        MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&persistent[1]);
    MPI_Start(&persistent[0]);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    MPI_Request_free(&persistent[0]);
    MPI_Request_free(&persistent[1]);

    /* Matched probes: rank 1 probes two messages of one envelope and receives them
     * in the other order. */
    if (rank == 0) {
        MPI_Send(out, 2, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
        MPI_Send(out, 3, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Message first, second;
        MPI_Mprobe(0, 9, MPI_COMM_WORLD, &first, MPI_STATUS_IGNORE);
        MPI_Mprobe(0, 9, MPI_COMM_WORLD, &second, MPI_STATUS_IGNORE);
        MPI_Mrecv(in, 3, MPI_DOUBLE, &second, MPI_STATUS_IGNORE);
        MPI_Mrecv(in, 2, MPI_DOUBLE, &first, MPI_STATUS_IGNORE);
    }

    /* Wildcard receives from two senders, sent in the order rank 1, rank 2, rank 1:
     * the second receive takes rank 2's message, the earliest pending one. */
    for (int step = 0; step < 3; step++) {
        if ((step != 1 && rank == 1) || (step == 1 && rank == 2))
            MPI_Send(out, 1 + step, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) { /* Irecv: a blocking Recv logs the source its status names */
        MPI_Request wildcards[3];
        for (int step = 0; step < 3; step++)
            MPI_Irecv(in + 3 * step, 3, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD,
                      &wildcards[step]);
        MPI_Waitall(3, wildcards, MPI_STATUSES_IGNORE);
    }

    /* A send no one receives, a receive no one sends to (cancelled), and an Isend
     * whose request is freed: unmatched and incomplete calls. */
    if (rank == 1) MPI_Send(out, 1, MPI_DOUBLE, 2, 13, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request cancelled;
        MPI_Irecv(in, 1, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD, &cancelled);
        MPI_Cancel(&cancelled);
        MPI_Wait(&cancelled, MPI_STATUS_IGNORE);
    }
    if (rank == 3) {
        MPI_Request freed;
        MPI_Isend(out, 1, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &freed);
        MPI_Request_free(&freed);
    }
    if (rank == 0) MPI_Recv(in, 1, MPI_DOUBLE, 3, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File file;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
    MPI_File_write_at(file, rank * 64 * sizeof(double), out, 64, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(file, (size + rank) * 64 * sizeof(double), out, 32, MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
    MPI_File_read_at(file, left * 64 * sizeof(double), in, 16, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&file);

    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
