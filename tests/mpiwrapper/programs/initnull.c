/* initnull.c: MPI_Init(NULL, NULL), as Fortran programs do: the trace is
 * named after /proc/self/exe. */
#include <stdio.h>

#include <mpi.h>

int main(void) {
    MPI_Init(NULL, NULL);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    printf("r%d Barrier rc=%d\n", rank, rc);
    MPI_Finalize();
    return 0;
}
