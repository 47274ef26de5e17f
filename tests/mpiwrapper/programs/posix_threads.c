/* posix_threads.c: two threads write files of their own with pwrite while
 * the main thread writes with MPI_File_write_at (MPI_THREAD_MULTIPLE), each
 * ROUNDS times, 16 bytes at 16 * round. Rank 0 prints "r0 rounds=N
 * failures=N". */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

enum { ROUNDS = 40, BYTES = 16 };

/* Both writers are alive together, so that neither takes over the trace of
 * the other (a thread that ended leaves its trace to the next new thread). */
static pthread_barrier_t both_writing, both_done;

static void *write_own_file(void *argument) {
    char name[64], data[BYTES];
    snprintf(name, sizeof name, "thread_%d.dat", (int)(long)argument);
    memset(data, 't', sizeof data);
    int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    pthread_barrier_wait(&both_writing);
    int failed = 0;
    for (int round = 0; round < ROUNDS; ++round)
        failed |= pwrite(fd, data, BYTES, (off_t)round * BYTES) != BYTES;
    pthread_barrier_wait(&both_done);
    close(fd);
    return failed ? argument : NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE is not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File fh;
    MPI_File_open(MPI_COMM_SELF, "threads_mpi.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                  MPI_INFO_NULL, &fh);
    pthread_barrier_init(&both_writing, NULL, 2);
    pthread_barrier_init(&both_done, NULL, 2);
    pthread_t threads[2];
    for (long i = 0; i < 2; ++i)
        pthread_create(&threads[i], NULL, write_own_file, (void *)(i + 1));
    char data[BYTES];
    memset(data, 'm', sizeof data);
    for (int round = 0; round < ROUNDS; ++round)
        MPI_File_write_at(fh, (MPI_Offset)round * BYTES, data, BYTES, MPI_BYTE, MPI_STATUS_IGNORE);
    int failures = 0;
    for (int i = 0; i < 2; ++i) {
        void *result;
        pthread_join(threads[i], &result);
        failures += result != NULL;
    }
    MPI_File_close(&fh);
    if (rank == 0) printf("r0 rounds=%d failures=%d\n", ROUNDS, failures);
    MPI_Finalize();
    return 0;
}
