/* errors.c: erroneous calls under MPI_ERRORS_RETURN. The printed error
 * classes must be the same with and without the wrapper, and the program
 * must go on. */
#include <stdio.h>

#include "expect.h"

static void report(const char *what, int rc) {
    int error_class = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
    tc_say("%s rc_is_success=%d class=%d", what, rc == MPI_SUCCESS, error_class);
}

static int handler_calls;

/* A user error handler: counts and prints each invocation. */
static void count_errors(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    int error_class = -1;
    MPI_Error_class(*code, &error_class);
    ++handler_calls;
    tc_say("error handler called: class=%d", error_class);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int size = tc_size(), buffer[4] = {1, 2, 3, 4};
    MPI_Status status;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    report("Send to a rank outside the communicator",
           MPI_Send(buffer, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD));
    report("Send with a negative count", MPI_Send(buffer, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    report("Recv with a negative tag",
           MPI_Recv(buffer, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &status));
    report("Isend to a rank outside the communicator",
           MPI_Isend(buffer, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD, &request));
    report("Bcast of MPI_DATATYPE_NULL",
           MPI_Bcast(buffer, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    report("Reduce with a root outside the communicator",
           MPI_Reduce(buffer, buffer + 2, 1, MPI_INT, MPI_SUM, size + 2, MPI_COMM_WORLD));
#ifdef MPICH_VERSION
    /* MPICH 4.0 does not check this count and crashes in its pack code, with
     * or without the wrapper: the case runs on Open MPI only. */
    tc_say("Allreduce with a negative count: not run on MPICH");
#else
    report("Allreduce with a negative count",
           MPI_Allreduce(buffer, buffer + 2, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
#endif
    MPI_Datatype null_type = MPI_DATATYPE_NULL;
    report("Type_commit of MPI_DATATYPE_NULL", MPI_Type_commit(&null_type));
    MPI_File file;
    report("File_open of a missing file",
           MPI_File_open(MPI_COMM_WORLD, "no-such-dir/no-such-file.dat", MPI_MODE_RDONLY,
                         MPI_INFO_NULL, &file));
    /* A user error handler is called exactly as often as without the wrapper. */
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(count_errors, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    report("Send with a negative count (user handler)",
           MPI_Send(buffer, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    report("Bcast of MPI_DATATYPE_NULL (user handler)",
           MPI_Bcast(buffer, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    report("Gather with a bad root (user handler)",
           MPI_Gather(buffer, 1, MPI_INT, buffer + 1, 1, MPI_INT, -7, MPI_COMM_WORLD));
    tc_say("handler calls=%d", handler_calls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler);

    /* The program goes on afterwards. */
    int sum = 0;
    report("Allreduce after the errors",
           MPI_Allreduce(&buffer[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    tc_say("sum=%d", sum);
    tc_finalize();
    return 0;
}
