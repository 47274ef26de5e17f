/*
 * mpi-io-example: a small MPI-IO program to trace, in the spirit of the
 * mpi-io-test program of the PIOsim tracing design.
 *
 * Every rank writes its own block of a shared file and reads it back, first
 * with independent I/O at explicit offsets, then with collective I/O through
 * a file view, then with a split collective; the ranks also exchange a few
 * messages (a ring of Sendrecv, nonblocking sends to rank 0, a Bcast and an
 * Allreduce) and check every byte they read.
 *
 *     mpiexec -n 3 mpi-io-example [file] [block-bytes]
 *
 * Built twice (examples/mpi/CMakeLists.txt):
 *   mpi-io-example-traced  linked with libhdtracempi.a: always traced;
 *   mpi-io-example         plain: traced when run with
 *                          LD_PRELOAD=libhdtracempi.so.
 * The traces go to $HDTRACE_DIR (default: the working directory):
 * <program>_<host>_<rank>_<thread>.trc and .info per process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static char patternByte(int rank, long i) {
    return (char)('a' + (rank * 7 + i) % 26);
}

static int check(const char *what, const char *data, int rank, long bytes) {
    for (long i = 0; i < bytes; ++i)
        if (data[i] != patternByte(rank, i)) {
            fprintf(stderr, "rank %d: %s: byte %ld is wrong\n", rank, what, i);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "mpi-io-example.dat";
    const int block = argc > 2 ? atoi(argv[2]) : 65536;

    char *out = malloc((size_t)block);
    char *in = malloc((size_t)block);
    for (long i = 0; i < block; ++i)
        out[i] = patternByte(rank, i);
    int errors = 0;

    MPI_File fh;
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL); /* may fail: need not exist */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);

    /* Independent I/O at explicit offsets: block r at r * block. */
    const MPI_Offset mine = (MPI_Offset)rank * block;
    MPI_File_write_at(fh, mine, out, block, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, mine, in, block, MPI_CHAR, MPI_STATUS_IGNORE);
    errors += check("read_at", in, rank, block);

    /* Collective I/O through a view on the second half of the file: a vector
     * type interleaves the ranks' blocks in quarters. */
    MPI_Datatype quarters;
    MPI_Type_vector(4, block / 4, (block / 4) * size, MPI_CHAR, &quarters);
    MPI_Type_commit(&quarters);
    const MPI_Offset secondHalf = (MPI_Offset)size * block;
    MPI_File_set_view(fh, secondHalf + (MPI_Offset)rank * (block / 4), MPI_CHAR, quarters, "native",
                      MPI_INFO_NULL);
    MPI_File_write_all(fh, out, block, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    memset(in, 0, (size_t)block);
    MPI_File_read_all(fh, in, block, MPI_CHAR, MPI_STATUS_IGNORE);
    errors += check("read_all", in, rank, block);

    /* A split collective read of the same data. */
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    memset(in, 0, (size_t)block);
    MPI_File_read_all_begin(fh, in, block, MPI_CHAR);
    MPI_Status status;
    MPI_File_read_all_end(fh, in, &status);
    errors += check("read_all_begin/end", in, rank, block);
    MPI_File_close(&fh);
    MPI_Type_free(&quarters);

    /* A few messages: a ring, nonblocking sends to rank 0, Bcast, Allreduce. */
    int token = rank, received = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 1, &received, 1, MPI_INT,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (received != (rank + size - 1) % size) ++errors;
    if (rank == 0) {
        MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)size);
        int *values = malloc(sizeof(int) * (size_t)size);
        for (int peer = 1; peer < size; ++peer)
            MPI_Irecv(&values[peer], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &requests[peer - 1]);
        MPI_Waitall(size - 1, requests, MPI_STATUSES_IGNORE);
        for (int peer = 1; peer < size; ++peer)
            if (values[peer] != peer * peer) ++errors;
        free(requests);
        free(values);
    } else {
        int value = rank * rank;
        MPI_Request request;
        MPI_Isend(&value, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    int blockBytes = rank == 0 ? block : 0;
    MPI_Bcast(&blockBytes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (blockBytes != block) ++errors;
    int totalErrors = 0;
    MPI_Allreduce(&errors, &totalErrors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("# %d ranks, %d bytes per block, file %s\n", size, block, path);
        printf("%s\n", totalErrors == 0 ? "all blocks read back correctly" : "DATA ERRORS");
    }
    free(out);
    free(in);
    MPI_Finalize();
    return totalErrors == 0 ? 0 : 1;
}
