/* posix_mixed.c: C library I/O beside MPI-IO, on every rank: a file of its
 * own through a descriptor (pwrite, write, lseek, read up to and past the
 * end, ftruncate, fsync), a stream (fwrite, fseek, fflush, fread), and a
 * shared file through MPI-IO, also opened with open() afterwards, which must
 * get the MPI file's id. Every C library call is printed as
 * "r<rank> <tag> <file> <offset> <asked> <size>" (offset, asked, size: -
 * where the call has none), in program order, for the test to compare with
 * the trace. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static int rank;

static void say(const char *tag, const char *file, long long offset, long long asked,
                long long size) {
    printf("r%d %s %s %lld %lld %lld\n", rank, tag, file, offset, asked, size);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char text[256];
    memset(text, 'x', sizeof text);

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "mixed_mpi.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                  &fh);
    MPI_File_write_at(fh, rank * 64, text, 64, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    char own[64];
    snprintf(own, sizeof own, "mixed_fd_%d.dat", rank);
    int fd = open(own, O_CREAT | O_TRUNC | O_RDWR, 0644);
    say("open", own, -1, -1, -1);
    long long done = pwrite(fd, text, 100, 0);
    say("pwrite", own, 0, 100, done);
    done = pwrite(fd, text, 50, 1000);
    say("pwrite", own, 1000, 50, done);
    done = write(fd, text, 10); /* the position is still 0 */
    say("write", own, 0, 10, done);
    long long position = lseek(fd, 0, SEEK_END);
    say("lseek", own, position, -1, -1);
    done = read(fd, text, 20); /* at the end: nothing */
    say("read", own, position, 20, done);
    done = pread(fd, text, 200, 990); /* 60 bytes are there */
    say("pread", own, 990, 200, done);
    ftruncate(fd, 2000);
    say("ftruncate", own, -1, -1, 2000);
    fsync(fd);
    say("fsync", own, -1, -1, -1);
    close(fd);
    say("close", own, -1, -1, -1);

    char stream_name[64];
    snprintf(stream_name, sizeof stream_name, "mixed_stdio_%d.txt", rank);
    FILE *stream = fopen(stream_name, "w+");
    say("fopen", stream_name, -1, -1, -1);
    for (int i = 0; i < 3; ++i) {
        done = (long long)fwrite(text, 7, 1, stream) * 7;
        say("fwrite", stream_name, 7 * i, 7, done);
    }
    fseek(stream, 2, SEEK_SET);
    say("fseek", stream_name, 2, -1, -1);
    fflush(stream);
    say("fflush", stream_name, -1, -1, -1);
    done = (long long)fread(text, 1, 5, stream);
    say("fread", stream_name, 2, 5, done);
    fclose(stream);
    say("fclose", stream_name, -1, -1, -1);

    MPI_Barrier(MPI_COMM_WORLD);
    fd = open("mixed_mpi.dat", O_RDONLY);
    say("open", "mixed_mpi.dat", -1, -1, -1);
    done = pread(fd, text, 64, rank * 64);
    say("pread", "mixed_mpi.dat", rank * 64, 64, done);
    close(fd);
    say("close", "mixed_mpi.dat", -1, -1, -1);
    MPI_Finalize();
    return 0;
}
