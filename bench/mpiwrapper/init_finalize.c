/*
 * bench_mpi_init_finalize: MPI_Init, one Barrier, MPI_Finalize, nothing
 * else, for the start-up and end cost of the wrapper's clock measurement
 * (run-clock-sync).
 */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
