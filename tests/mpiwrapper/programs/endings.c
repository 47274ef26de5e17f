/* endings.c: a Barrier, then the end given as argument: "exit" (exit(0)
 * without MPI_Finalize), "abort" (MPI_Abort), "segv" or "sigabrt" (a fatal
 * signal). The trace must be well-formed XML in every case. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "detach_output.h"
#include "expect.h"

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    const char *how = argc > 1 ? argv[1] : "";
    MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
    tc_say("ending by %s", how);
    if (strcmp(how, "exit") == 0) {
        detach_output_before_ending();
        exit(0);
    }
    if (strcmp(how, "abort") == 0) {
        ex_plain("Abort");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (strcmp(how, "segv") == 0) raise(SIGSEGV);
    if (strcmp(how, "sigabrt") == 0) raise(SIGABRT);
    if (strcmp(how, "oddname") == 0) {
        /* A control character and a byte that is not UTF-8 in a file name. */
        const char *name = "ctl\001-\377-name.dat";
        MPI_File file;
        tc_check(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &file),
                 "MPI_File_open");
        MPI_File_close(&file);
        MPI_File_delete(name, MPI_INFO_NULL);
    }
    if (strcmp(how, "oddname") == 0) {
        MPI_Finalize(); /* the file calls have no expectations */
        return 0;
    }
    tc_finalize();
    return 0;
}
