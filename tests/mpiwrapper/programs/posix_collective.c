/* posix_collective.c: collective writes on every rank, whose POSIX writes
 * the MPI-IO layer makes (ROMIO or OMPIO): one block per rank with
 * MPI_File_write_at_all, then blocks interleaved between the ranks through
 * a strided view with MPI_File_write_all, covering the file without holes.
 * Rank 0 prints "r0 bytes=N" (what all ranks wrote together) and
 * "r0 size=N" (the file's size after the close). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mpi.h>

enum { BLOCK = 4096, PIECE = 512, PIECES = 8 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *name = argc > 1 ? argv[1] : "collective.dat";
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    char *data = malloc(BLOCK);
    memset(data, 'a' + rank, BLOCK);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * BLOCK, data, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);

    MPI_Datatype strided, filetype;
    MPI_Type_vector(PIECES, PIECE, PIECE * size, MPI_BYTE, &strided);
    MPI_Type_create_resized(strided, 0, (MPI_Aint)PIECES * PIECE * size, &filetype);
    MPI_Type_commit(&filetype);
    MPI_File_set_view(fh, (MPI_Offset)size * BLOCK + (MPI_Offset)rank * PIECE, MPI_BYTE, filetype,
                      "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, data, PIECES * PIECE, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Type_free(&filetype);
    MPI_Type_free(&strided);
    free(data);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct stat status;
        const long long on_disk = stat(name, &status) == 0 ? (long long)status.st_size : -1;
        printf("r0 bytes=%lld\nr0 size=%lld\n", (long long)size * (BLOCK + PIECES * PIECE),
               on_disk);
    }
    MPI_Finalize();
    return 0;
}
