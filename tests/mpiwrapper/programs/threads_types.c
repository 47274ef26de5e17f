/* threads_types.c: 4 threads make, use and free derived types at
 * the same time under MPI_THREAD_MULTIPLE, and use each other's. In each of
 * ITERATIONS rounds, thread t:
 *   - builds the HDF5-like chain contiguous(t+1 ints) -> vector(i+1, 1, 2)
 *     -> resized(0, 8*(i+2)) -> struct(1 block at 4*t), frees the three
 *     intermediate types and commits the struct;
 *   - sends one element of it to itself on MPI_COMM_SELF (MPI_Sendrecv, which writes the send
 * type);
 *   - after a barrier, does the same with the struct of thread t-1 (mod 4);
 *   - after another barrier, frees its own struct.
 * So a type's record must stay while another thread still declares it,
 * after its intermediate types are gone, and thread caches must not keep a
 * freed handle's type once the handle is reused. The test reads each
 * thread's Sendrecv tids through that thread's .info. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define THREADS 4
#define ITERATIONS 200

static MPI_Datatype published[THREADS];
static pthread_barrier_t roundDone;

static void check(int rc, const char *what, int t) {
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "thread %d: %s failed (%d)\n", t, what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static MPI_Datatype build(int t, int i) {
    MPI_Datatype element, strided, resized, placed;
    check(MPI_Type_contiguous(t + 1, MPI_INT, &element), "MPI_Type_contiguous", t);
    check(MPI_Type_vector(i + 1, 1, 2, element, &strided), "MPI_Type_vector", t);
    check(MPI_Type_create_resized(strided, 0, 8 * (MPI_Aint)(i + 2), &resized),
          "MPI_Type_create_resized", t);
    int one = 1;
    MPI_Aint start = 4 * (MPI_Aint)t;
    check(MPI_Type_create_struct(1, &one, &start, &resized, &placed), "MPI_Type_create_struct", t);
    MPI_Type_free(&element);
    MPI_Type_free(&strided);
    MPI_Type_free(&resized);
    check(MPI_Type_commit(&placed), "MPI_Type_commit", t);
    return placed;
}

static void use(MPI_Datatype type, int t) {
    /* The largest type: 4 ints per element, 200 elements 2 apart, placed at 12 bytes. */
    static __thread int out[4 * 2 * (ITERATIONS + 2) + 8], in[4 * 2 * (ITERATIONS + 2) + 8];
    check(MPI_Sendrecv(out, 1, type, 0, t, in, 1, type, 0, t, MPI_COMM_SELF, MPI_STATUS_IGNORE),
          "MPI_Sendrecv", t);
}

static void *work(void *argument) {
    const int t = (int)(long)argument;
    for (int i = 0; i < ITERATIONS; ++i) {
        MPI_Datatype own = build(t, i);
        use(own, t);
        published[t] = own;
        pthread_barrier_wait(&roundDone);
        use(published[(t + THREADS - 1) % THREADS], t);
        pthread_barrier_wait(&roundDone);
        MPI_Type_free(&own);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads_types: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_barrier_init(&roundDone, NULL, THREADS);
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; ++t)
        pthread_create(&threads[t], NULL, work, (void *)t);
    for (int t = 0; t < THREADS; ++t)
        pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&roundDone);
    printf("threads=%d iterations=%d\n", THREADS, ITERATIONS);
    MPI_Finalize();
    return 0;
}
