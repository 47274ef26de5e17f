/*
 * threads_churn.c: many short-lived threads that call MPI, as
 * in MPICH's threads/pt2pt/alltoall. On 2 ranks, under MPI_THREAD_MULTIPLE,
 *
 *   threads_churn [THREADS [AT_ONCE]]      (default 10000 threads, 4 at once)
 *
 * starts THREADS threads, AT_ONCE at a time; thread i exchanges its number
 * with the same thread of the other rank (MPI_Sendrecv, tag i) and again
 * through MPI_Isend, MPI_Irecv and MPI_Waitall (tag i). After each group
 * the program counts its open file descriptors (/proc/self/fd).
 * Prints "r<rank> threads <n>", "r<rank> fds-before <n>", "r<rank> fds-max <n>".
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

static int rank, peer;

static void *exchange(void *argument) {
    const int number = (int)(long)argument;
    int received = -1, again = -1;
    MPI_Sendrecv(&number, 1, MPI_INT, peer, number, &received, 1, MPI_INT, peer, number,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request requests[2];
    MPI_Irecv(&again, 1, MPI_INT, peer, number, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(&number, 1, MPI_INT, peer, number, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (received != number || again != number) {
        fprintf(stderr, "r%d thread %d received %d and %d\n", rank, number, received, again);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return NULL;
}

static int open_descriptors(void) {
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return -1;
    int count = -1; /* the directory's own descriptor */
    while (readdir(directory))
        ++count;
    closedir(directory);
    return count - 2; /* . and .. */
}

int main(int argc, char **argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 10000;
    const int at_once = argc > 2 ? atoi(argv[2]) : 4;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size != 2 || threads < 1 || at_once < 1) {
        fprintf(stderr, "threads_churn: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;
    const int before = open_descriptors();
    int most = before;
    pthread_t *running = malloc(sizeof(pthread_t) * (size_t)at_once);
    for (int first = 0; first < threads; first += at_once) {
        int started = 0;
        for (int i = first; i < threads && i < first + at_once; ++i)
            if (pthread_create(&running[started++], NULL, exchange, (void *)(long)i) != 0) {
                fprintf(stderr, "threads_churn: pthread_create failed\n");
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        for (int i = 0; i < started; ++i)
            pthread_join(running[i], NULL);
        const int now = open_descriptors();
        if (now > most) most = now;
    }
    free(running);
    printf("r%d threads %d\nr%d fds-before %d\nr%d fds-max %d\n", rank, threads, rank, before, rank,
           most);
    MPI_Finalize();
    return 0;
}
