/* nested.c: MPI_hdT_Test_nested(depth) for depths 0, 3 and 20, between two
 * Barriers. Whether the nested calls appear (HDTRACE_NESTED) is checked by
 * the test itself; here only the top-level calls are expected. */
#include <hdtrace/hdtracempi.h>

#include "expect.h"

static void barrier(void) {
    MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    const int depths[] = {0, 3, 20};
    barrier();
    for (int i = 0; i < 3; ++i) {
        int rc = MPI_hdT_Test_nested(depths[i]);
        tc_say("hdT_Test_nested(%d) rc=%d", depths[i], rc);
        ex_begin("hdT_Test_nested");
        ex_int("depth", depths[i]);
        ex_end();
    }
    barrier();
    tc_finalize();
    return 0;
}
