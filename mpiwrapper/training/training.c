/* training.c: the run whose branch counts the tracing libraries are
 * compiled with (cmake/HDTracePgo.cmake). One process, the traced library
 * preloaded, does what traced programs mostly do, many times over: point to
 * point messages, probes and completions, collectives, MPI-IO with the
 * C library's calls beneath it, and C library file calls of its own.
 *
 * Usage: hdtrace_training DIRECTORY [ROUNDS]; the file it writes there is
 * removed at the end. Exits non-zero when an MPI or C library call fails. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "training_start.h"

static void check(int result, const char *what) {
    if (result == MPI_SUCCESS) return;
    fprintf(stderr, "hdtrace_training: %s failed (%d)\n", what, result);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void messages(int rounds) {
    const int self = 0;
    int out[4] = {1, 2, 3, 4}, in[4];
    for (int round = 0; round < rounds; ++round) {
        MPI_Request requests[2];
        check(MPI_Irecv(in, 4, MPI_INT, self, 7, MPI_COMM_SELF, &requests[0]), "MPI_Irecv");
        check(MPI_Isend(out, 4, MPI_INT, self, 7, MPI_COMM_SELF, &requests[1]), "MPI_Isend");
        check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
        check(MPI_Sendrecv(out, 4, MPI_INT, self, 8, in, 4, MPI_INT, self, 8, MPI_COMM_SELF,
                           MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
        int flag;
        MPI_Status status;
        check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status),
              "MPI_Iprobe");
        MPI_Request request;
        check(MPI_Irecv(in, 4, MPI_INT, self, 9, MPI_COMM_SELF, &request), "MPI_Irecv");
        check(MPI_Send(out, 4, MPI_INT, self, 9, MPI_COMM_SELF), "MPI_Send");
        check(MPI_Wait(&request, &status), "MPI_Wait");
    }
}

static void collectives(int rounds) {
    double value = 1.0, sum;
    int block[8] = {0}, gathered[8];
    for (int round = 0; round < rounds; ++round) {
        check(MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        check(MPI_Bcast(block, 8, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        check(MPI_Allgather(block, 8, MPI_INT, gathered, 8, MPI_INT, MPI_COMM_WORLD),
              "MPI_Allgather");
        check(MPI_Reduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
    }
}

static void mpi_file(const char *path, int rounds) {
    MPI_File file;
    check(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file),
        "MPI_File_open");
    char data[16], back[16];
    memset(data, 'h', sizeof data);
    MPI_Status status;
    for (int round = 0; round < rounds; ++round) {
        const MPI_Offset offset = (MPI_Offset)round * (MPI_Offset)sizeof data;
        check(MPI_File_write_at(file, offset, data, sizeof data, MPI_BYTE, &status),
              "MPI_File_write_at");
        check(MPI_File_read_at(file, offset, back, sizeof back, MPI_BYTE, &status),
              "MPI_File_read_at");
        check(MPI_File_write(file, data, sizeof data, MPI_BYTE, &status), "MPI_File_write");
        if (round % 16 == 0)
            check(MPI_File_write_at_all(file, offset, data, sizeof data, MPI_BYTE, &status),
                  "MPI_File_write_at_all");
    }
    check(MPI_File_close(&file), "MPI_File_close");
}

static void posix_file(const char *path, int rounds) {
    char data[64];
    memset(data, 'p', sizeof data);
    const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    FILE *stream = fopen(path, "r+");
    if (fd < 0 || !stream) {
        perror("hdtrace_training: open");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int round = 0; round < rounds; ++round) {
        const off_t offset = (off_t)round * (off_t)sizeof data;
        if (pwrite(fd, data, sizeof data, offset) != (ssize_t)sizeof data ||
            pread(fd, data, sizeof data, offset) != (ssize_t)sizeof data ||
            write(fd, data, sizeof data) != (ssize_t)sizeof data ||
            fwrite(data, 1, sizeof data, stream) != sizeof data) {
            perror("hdtrace_training: write");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    fclose(stream);
    close(fd);
}

int main(int argc, char **argv) {
    char path[4096];
    const int rounds = training_start(&argc, &argv, "training.dat", 20000, path, sizeof path);
    messages(rounds);
    collectives(rounds);
    mpi_file(path, rounds);
    posix_file(path, rounds);
    MPI_Barrier(MPI_COMM_WORLD);
    unlink(path);
    MPI_Finalize();
    return 0;
}
