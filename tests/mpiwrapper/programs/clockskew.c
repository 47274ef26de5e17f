/* clockskew.c: messages whose order a skewed clock would reverse.
 *
 * 4 ranks, for about half a second: a ring of Irecv + Send + Wait (each rank
 * receives from its left neighbour), then rank 0 sends to every other rank,
 * which receives with MPI_ANY_SOURCE, then an Allreduce, then a pause of
 * 5 ms. With HDTRACE_CLOCK_SKEW the traces of the skewed ranks hold times
 * that are off by milliseconds, so receives seem to end before their sends
 * began; the tests check that the measured offsets put them back. */
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>

enum { kRounds = 100, kTag = 5 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long long sum = 0;
    for (int round = 0; round < kRounds; ++round) {
        int in = -1, out = rank * 1000 + round;
        MPI_Request request;
        MPI_Irecv(&in, 1, MPI_INT, left, kTag, MPI_COMM_WORLD, &request);
        MPI_Send(&out, 1, MPI_INT, right, kTag, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (in != left * 1000 + round) {
            fprintf(stderr, "rank %d: round %d got %d\n", rank, round, in);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) {
            for (int peer = 1; peer < size; ++peer)
                MPI_Send(&round, 1, MPI_INT, peer, kTag + 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, kTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        long long mine = round, total = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        sum += total;
        usleep(5000);
    }
    if (rank == 0) printf("sum %lld\n", sum);
    MPI_Finalize();
    return 0;
}
