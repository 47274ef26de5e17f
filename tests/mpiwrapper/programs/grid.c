/* grid.c: the communicators of a 2-D decomposition. The world ranks form a
 * grid two ranks wide, row by row; MPI_Comm_split makes each rank's row,
 * its column (world ranks c, c+2, c+4, ...), the column in reverse order,
 * and an intercommunicator joins the two columns. Each is used by a Barrier.
 * Needs an even number of ranks; 6 give columns of 3. */
#include "expect.h"

static MPI_Comm split(int colour, int key, const char *label) {
    MPI_Comm made;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, colour, key, &made);
    tc_check(rc, "MPI_Comm_split");
    tc_label_comm(made, label);
    tc_expect_constructor("Comm_split", MPI_COMM_WORLD, made);
    int rank_in = -1;
    MPI_Comm_rank(made, &rank_in);
    tc_say("%s: rank %d", label, rank_in);
    tc_barrier(made, label);
    return made;
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    const int rank = tc_rank();
    const int width = 2;

    MPI_Comm row = split(rank / width, rank, "row");
    MPI_Comm column = split(rank % width, rank, "column");
    MPI_Comm upwards = split(rank % width, -rank, "upwards");

    MPI_Comm columns;
    int rc =
        MPI_Intercomm_create(column, 0, MPI_COMM_WORLD, rank % width == 0 ? 1 : 0, 31, &columns);
    tc_check(rc, "MPI_Intercomm_create");
    tc_label_comm(columns, "columns");
    tc_expect_constructor("Intercomm_create", column, columns);
    tc_barrier(columns, "columns");

    tc_comm_free(&columns);
    tc_comm_free(&upwards);
    tc_comm_free(&column);
    tc_comm_free(&row);
    tc_finalize();
    return 0;
}
