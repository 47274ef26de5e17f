/* typeids.c: one MPI_Bcast per predefined type, printing each type's
 * MPI_Type_c2f value and handle, so that the test can compare the tids of
 * the trace with both (on MPICH, the tid is the handle, as in the PIOsim design's examples). */
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_BYTE, MPI_FLOAT};
    const char *names[] = {"MPI_INT", "MPI_DOUBLE", "MPI_CHAR", "MPI_BYTE", "MPI_FLOAT"};
    char buffer[64] = {0};
    for (int i = 0; i < 5; ++i) {
        MPI_Bcast(buffer, 1, types[i], 0, MPI_COMM_WORLD);
        printf("%s c2f=%d handle=%lld\n", names[i], (int)MPI_Type_c2f(types[i]),
               (long long)(intptr_t)types[i]);
    }
    MPI_Finalize();
    return 0;
}
