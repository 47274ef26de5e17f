/* threads_concurrent.c: 4 threads call MPI at the same time under
 * MPI_THREAD_MULTIPLE, each on its own duplicate of MPI_COMM_WORLD (made by
 * the main thread, in thread order). Thread t (0..3) runs ITERATIONS times:
 *     MPI_Irecv(t+1 ints, tag 1000*t+i), MPI_Isend(the same), MPI_Waitall,
 *     MPI_Allreduce(t+1 doubles), MPI_Iprobe(ANY_SOURCE, tag t).
 * Thread 0 ends with MPI_Wait on a request the main thread created (an
 * Irecv of tag 77 on MPI_COMM_WORLD): a request completed in another thread
 * than the one that created it. Each thread prints what it checked; the
 * test reads each thread's trace value by value. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define THREADS 4
#define ITERATIONS 300
#define MAX_COUNT THREADS

static MPI_Comm comms[THREADS];
static int rank, peer;
static MPI_Request mainRequest;
static int mainValue = -1;
static pthread_barrier_t allStarted;

static void check(int rc, const char *what, int t) {
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "r%d thread %d: %s failed (%d)\n", rank, t, what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void *work(void *argument) {
    const int t = (int)(long)argument;
    const int count = t + 1;
    int out[MAX_COUNT], in[MAX_COUNT];
    double values[MAX_COUNT], sums[MAX_COUNT];
    long errors = 0;
    for (int i = 0; i < ITERATIONS; ++i) {
        MPI_Request requests[2];
        for (int k = 0; k < count; ++k) {
            out[k] = 1000000 * rank + 1000 * t + i;
            values[k] = rank + 1;
        }
        check(MPI_Irecv(in, count, MPI_INT, peer, 1000 * t + i, comms[t], &requests[0]),
              "MPI_Irecv", t);
        /* every thread has made its first MPI call before any can end, so
         * that each has a trace of its own (none continues another's) */
        if (i == 0) pthread_barrier_wait(&allStarted);
        check(MPI_Isend(out, count, MPI_INT, peer, 1000 * t + i, comms[t], &requests[1]),
              "MPI_Isend", t);
        check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall", t);
        if (in[0] != 1000000 * peer + 1000 * t + i) ++errors;
        check(MPI_Allreduce(values, sums, count, MPI_DOUBLE, MPI_SUM, comms[t]), "MPI_Allreduce",
              t);
        if (sums[0] != 3.0) ++errors;
        int flag = 0;
        check(MPI_Iprobe(MPI_ANY_SOURCE, t, comms[t], &flag, MPI_STATUS_IGNORE), "MPI_Iprobe", t);
    }
    if (t == 0) {
        check(MPI_Wait(&mainRequest, MPI_STATUS_IGNORE), "MPI_Wait", t);
        if (mainValue != peer) ++errors;
    }
    printf("r%d thread %d errors=%ld\n", rank, t, errors);
    fflush(stdout);
    return NULL;
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "r%d: MPI_THREAD_MULTIPLE not provided (%d)\n", rank, provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    peer = 1 - rank;
    for (int t = 0; t < THREADS; ++t)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    MPI_Irecv(&mainValue, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &mainRequest);
    pthread_t threads[THREADS];
    pthread_barrier_init(&allStarted, NULL, THREADS);
    for (int t = 0; t < THREADS; ++t)
        pthread_create(&threads[t], NULL, work, (void *)(long)t);
    MPI_Send(&rank, 1, MPI_INT, peer, 77, MPI_COMM_WORLD);
    for (int t = 0; t < THREADS; ++t)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; ++t)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
