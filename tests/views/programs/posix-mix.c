/* MPI-IO and the C library's own I/O in one program, for the tests of the
 * POSIX layer's views (tests/views/test_posix_real_run.py).
 *
 *   posix-mix DIR
 *
 * Every rank writes BLOCK bytes at offset rank * BLOCK of DIR/collective.dat
 * with MPI_File_write_at_all (the MPI library's MPI-IO layer issues the POSIX
 * writes), then PWRITES blocks of PIECE bytes with pwrite at offsets
 * k * STRIDE of DIR/pwrite-<rank>.dat, a file it opened itself, outside any
 * MPI call. Rank 0 also writes FWRITES records of RECORD bytes to
 * DIR/fwrite.dat with fwrite. The sizes are the test's: keep them equal. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

enum { BLOCK = 65536, PWRITES = 5, PIECE = 100, STRIDE = 1000, FWRITES = 7, RECORD = 33 };

static void fail(const char *what) {
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    static char data[BLOCK];
    memset(data, 'a' + rank % 26, sizeof data);

    snprintf(path, sizeof path, "%s/collective.dat", argv[1]);
    MPI_File file;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &file) != MPI_SUCCESS)
        fail("MPI_File_open");
    MPI_File_write_at_all(file, (MPI_Offset)rank * BLOCK, data, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&file);

    snprintf(path, sizeof path, "%s/pwrite-%d.dat", argv[1], rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) fail("open");
    for (int k = 0; k < PWRITES; k++)
        if (pwrite(fd, data, PIECE, (off_t)k * STRIDE) != PIECE) fail("pwrite");
    if (close(fd) != 0) fail("close");

    if (rank == 0) {
        snprintf(path, sizeof path, "%s/fwrite.dat", argv[1]);
        FILE *out = fopen(path, "w");
        if (!out) fail("fopen");
        for (int k = 0; k < FWRITES; k++)
            if (fwrite(data, 1, RECORD, out) != RECORD) fail("fwrite");
        if (fclose(out) != 0) fail("fclose");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
