/* threads.c: MPI_Init_thread, then two threads, one after the other, make
 * MPI calls on a duplicate of MPI_COMM_WORLD: the first gets trace 1, and the
 * second, started after the first ended, continues it (docs/format/trace.md,
 * "Threads"). */
#include <pthread.h>
#include <stdio.h>

#include <mpi.h>

static MPI_Comm dup;
static int rank;

static void *first_thread(void *unused) {
    (void)unused;
    int values[3] = {rank, 2, 3};
    int rc = MPI_Bcast(values, 3, MPI_INT, 0, dup);
    printf("r%d thread 1 Bcast rc=%d value=%d\n", rank, rc, values[0]);
    rc = MPI_Barrier(dup);
    printf("r%d thread 1 Barrier rc=%d\n", rank, rc);
    fflush(stdout);
    return NULL;
}

static void *second_thread(void *unused) {
    (void)unused;
    double in[2] = {rank, 1.0}, out[2];
    int rc = MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, dup);
    printf("r%d thread 2 Allreduce rc=%d sum=%g\n", rank, rc, out[0] + out[1]);
    fflush(stdout);
    return NULL;
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("r%d provided=%d\n", rank, provided == MPI_THREAD_MULTIPLE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    pthread_t thread;
    pthread_create(&thread, NULL, first_thread, NULL);
    pthread_join(thread, NULL);
    pthread_create(&thread, NULL, second_thread, NULL);
    pthread_join(thread, NULL);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
