/*
 * typecontents.c: the program decodes its own type with
 * MPI_Type_get_contents and frees the handles it gets back, as the standard
 * asks. MPICH hands back the program's own handle with its reference count
 * raised; the wrapper must keep the type under its id. Rank 0 sends the
 * inner type before and after, and prints whether the handle came back
 * the same ("same handle") or as another one ("new handle").
 */
#include <stdio.h>

#include <mpi.h>

static void sendInner(MPI_Datatype inner, int rank) {
    int data[4] = {rank, 1, 2, 3}, received[4];
    MPI_Sendrecv(data, 1, inner, 0, 7, received, 1, inner, 0, 7, MPI_COMM_SELF,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype inner, outer;
    MPI_Type_contiguous(4, MPI_INT, &inner);
    MPI_Type_commit(&inner);
    MPI_Type_vector(2, 1, 3, inner, &outer);
    MPI_Type_commit(&outer);
    sendInner(inner, rank);

    int integers[3], count = 0;
    MPI_Aint addresses[1];
    MPI_Datatype returned[1];
    for (int i = 0; i < 3; ++i) {
        MPI_Type_get_contents(outer, 3, 1, 1, integers, addresses, returned);
        if (i == 0 && rank == 0)
            printf("%s\n", returned[0] == inner ? "same handle" : "new handle");
        MPI_Type_free(&returned[0]);
        ++count;
    }
    sendInner(inner, rank);
    MPI_Type_free(&outer);
    sendInner(inner, rank);
    MPI_Type_free(&inner);
    MPI_Finalize();
    return count == 3 ? 0 : 1;
}
