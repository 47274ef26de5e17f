/* run-probe: the program tests/run traces with `hdtrace run`.
 *
 *   run-probe io FILE BYTES   every rank preallocates, sets and gets the size
 *                             of FILE, writes BYTES bytes at rank*BYTES and
 *                             reads them back; rank 0 then copies stdin to
 *                             stdout and writes the bytes 0..255 after it
 *   run-probe exit N          rank 0 exits with status N after MPI_Finalize
 *   run-probe signal N        rank 0 sends itself signal N after a barrier
 *                             (the other ranks wait in a second barrier)
 *   run-probe env NAME...     rank 0 prints NAME=value (or NAME unset) for each
 *   run-probe sleep SECONDS   after a barrier rank 0 prints "ready", then every
 *                             rank sleeps (to be signalled from outside)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static void check(int result, const char *what) {
    if (result != MPI_SUCCESS) {
        fprintf(stderr, "run-probe: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
}

static void copy_stdin_then_all_bytes(void) {
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, stdin)) > 0)
        fwrite(buffer, 1, got, stdout);
    for (int value = 0; value < 256; ++value)
        putchar(value);
    fflush(stdout);
}

static void file_calls(const char *path, int rank, int bytes) {
    MPI_File file;
    check(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file),
        "File_open");
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* Preallocate before set_size: the other order can hang Open MPI's ROMIO. */
    check(MPI_File_preallocate(file, (MPI_Offset)bytes * ranks * 2), "File_preallocate");
    check(MPI_File_set_size(file, (MPI_Offset)bytes * ranks), "File_set_size");
    MPI_Offset size = 0;
    check(MPI_File_get_size(file, &size), "File_get_size");
    char *data = malloc((size_t)bytes);
    for (int i = 0; i < bytes; ++i)
        data[i] = (char)(rank + i);
    MPI_Offset offset = (MPI_Offset)rank * bytes;
    check(MPI_File_write_at(file, offset, data, bytes, MPI_BYTE, MPI_STATUS_IGNORE),
          "File_write_at");
    check(MPI_File_sync(file), "File_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_read_at(file, offset, data, bytes, MPI_BYTE, MPI_STATUS_IGNORE), "File_read_at");
    check(MPI_File_get_size(file, &size), "File_get_size");
    check(MPI_File_close(&file), "File_close");
    free(data);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc == 4 && strcmp(argv[1], "io") == 0) {
        file_calls(argv[2], rank, atoi(argv[3]));
        if (rank == 0) copy_stdin_then_all_bytes();
        MPI_Finalize();
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "exit") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return rank == 0 ? atoi(argv[2]) : 0;
    }
    if (argc == 3 && strcmp(argv[1], "signal") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) raise(atoi(argv[2]));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "sleep") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            printf("ready\n");
            fflush(stdout);
        }
        sleep((unsigned)atoi(argv[2]));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "env") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 2; rank == 0 && i < argc; ++i) {
            const char *value = getenv(argv[i]);
            if (value)
                printf("%s=%s\n", argv[i], value);
            else
                printf("%s unset\n", argv[i]);
        }
        MPI_Finalize();
        return 0;
    }
    if (rank == 0)
        fprintf(stderr,
                "usage: run-probe io FILE BYTES | exit N | signal N | env NAME... | sleep S\n");
    MPI_Finalize();
    return 2;
}
