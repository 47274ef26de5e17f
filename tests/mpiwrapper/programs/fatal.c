/*
 * fatal.c: a fatal MPI error ends the process. Every rank makes
 * an MPI_Allreduce and an MPI_Barrier and prints "r<rank> before"; then rank
 * 0 sends to rank size + 5 under the default error handler,
 * MPI_ERRORS_ARE_FATAL. (MPI_ERRORS_ABORT cannot be tried here: Open MPI
 * 4.1 lacks it, and MPICH 4.0.2 fails an assertion in
 * MPI_Comm_set_errhandler when given it, untraced too.)
 */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, one = 1, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("r%d before\n", rank);
    fflush(stdout);
    if (rank == 0) MPI_Send(&one, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("r%d after\n", rank);
    MPI_Finalize();
    return 0;
}
