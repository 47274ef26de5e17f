/* rma_threads.c: a window made by the main thread on a duplicate of
 * MPI_COMM_WORLD and used by a second thread (fence, Put, fence), then freed
 * by the main thread: the second thread's .info must declare the window's
 * communicator and Win line itself before its first element names them. */
#include <pthread.h>
#include <stdio.h>

#include <mpi.h>

static MPI_Win win;
static int rank, size;

static void *epoch(void *unused) {
    (void)unused;
    double value = 10.0 + rank;
    int rc = MPI_Win_fence(0, win);
    printf("r%d thread 1 Win_fence rc=%d\n", rank, rc);
    rc = MPI_Put(&value, 1, MPI_DOUBLE, (rank + 1) % size, rank, 1, MPI_DOUBLE, win);
    printf("r%d thread 1 Put rc=%d\n", rank, rc);
    rc = MPI_Win_fence(0, win);
    printf("r%d thread 1 Win_fence rc=%d\n", rank, rc);
    fflush(stdout);
    return NULL;
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("r%d provided=%d\n", rank, provided >= MPI_THREAD_SERIALIZED);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double memory[8] = {0};
    int rc = MPI_Win_create(memory, sizeof memory, sizeof(double), MPI_INFO_NULL, dup, &win);
    printf("r%d Win_create rc=%d\n", rank, rc);
    pthread_t thread;
    pthread_create(&thread, NULL, epoch, NULL);
    pthread_join(thread, NULL);
    int left = (rank + size - 1) % size;
    printf("r%d memory[left]=%g\n", rank, memory[left]);
    rc = MPI_Win_free(&win);
    printf("r%d Win_free rc=%d\n", rank, rc);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
