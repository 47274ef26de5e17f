/* crash_types.c: makes derived datatypes the way parallel HDF5
 * does for a collective transfer, then ends abruptly, so that the test can
 * check that the .info (written in blocks) holds every type the trace
 * refers to, with the values the program passed.
 *
 *     crash_types HOW ROUNDS [FILLER]
 *
 * Each of ROUNDS rounds builds an element (contiguous bytes), a vector of
 * it, the vector resized, a struct placing that at an offset, and, every
 * third round, a subarray and an hindexed too; it commits the last ones,
 * uses the struct in a file view (MPI_File_set_view on MPI_COMM_SELF) and
 * frees them all. Then it makes FILLER calls of MPI_Barrier on
 * MPI_COMM_SELF (enough to have the trace written out while the last
 * .info lines still wait in their buffer), and ends by HOW:
 *   segv      raise(SIGSEGV);
 *   abort     MPI_Abort;
 *   _exit     _exit(7) without MPI_Finalize;
 *   kill      raise(SIGKILL): nothing can close the trace;
 *   finalize  MPI_Finalize, as a reference.
 * Every expectation is on disk before the end (expect.c flushes each). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

static void commit(MPI_Datatype *type) {
    tc_check(MPI_Type_commit(type), "MPI_Type_commit");
    ex_begin("Type_commit");
    ex_type("tid", *type);
    ex_end();
}

static void release(MPI_Datatype *type) {
    tc_forget_type(*type);
    tc_check(MPI_Type_free(type), "MPI_Type_free");
    ex_plain("Type_free");
}

static MPI_Datatype t_byte_double[1];

static void round_of_types(int round, MPI_File file) {
    char label[64];
    MPI_Datatype element, vector, resized, placed;

    const int element_ints[1] = {8};
    tc_check(MPI_Type_contiguous(8, MPI_BYTE, &element), "MPI_Type_contiguous");
    ex_plain("Type_contiguous");
    snprintf(label, sizeof label, "element %d", round);
    t_byte_double[0] = MPI_BYTE;
    expect_typedef(element, label, "MPI_COMBINER_CONTIGUOUS", 1, element_ints, 0, NULL, 1,
                   t_byte_double);

    const int vector_ints[3] = {4 + round % 5, 1, 2};
    tc_check(MPI_Type_vector(vector_ints[0], 1, 2, element, &vector), "MPI_Type_vector");
    ex_begin("Type_vector");
    ex_type("oldTid", element);
    ex_end();
    snprintf(label, sizeof label, "vector %d", round);
    expect_typedef(vector, label, "MPI_COMBINER_VECTOR", 3, vector_ints, 0, NULL, 1, &element);

    const MPI_Aint resized_addrs[2] = {0, 64 + 8 * (MPI_Aint)(round % 7)};
    tc_check(MPI_Type_create_resized(vector, resized_addrs[0], resized_addrs[1], &resized),
             "MPI_Type_create_resized");
    ex_plain("Type_create_resized");
    snprintf(label, sizeof label, "resized %d", round);
    expect_typedef(resized, label, "MPI_COMBINER_RESIZED", 0, NULL, 2, resized_addrs, 1, &vector);

    const int struct_ints[2] = {1, 1};
    const MPI_Aint struct_addrs[1] = {8 * (MPI_Aint)round};
    tc_check(MPI_Type_create_struct(1, &struct_ints[1], struct_addrs, &resized, &placed),
             "MPI_Type_create_struct");
    ex_plain("Type_create_struct");
    snprintf(label, sizeof label, "struct %d", round);
    expect_typedef(placed, label, "MPI_COMBINER_STRUCT", 2, struct_ints, 1, struct_addrs, 1,
                   &resized);
    commit(&placed);

    tc_check(MPI_File_set_view(file, 0, MPI_BYTE, placed, "native", MPI_INFO_NULL),
             "MPI_File_set_view");
    ex_begin("File_set_view");
    ex_file("fid", "crash_types.out");
    ex_int("offset", 0);
    ex_type("etid", MPI_BYTE);
    ex_type("filetid", placed);
    ex_str("representation", "native");
    ex_end();

    if (round % 3 == 0) {
        MPI_Datatype subarray, hindexed;
        const int sizes[2] = {16, 8 + round % 4}, subsizes[2] = {4, 2}, starts[2] = {round % 12, 1};
        tc_check(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE,
                                          &subarray),
                 "MPI_Type_create_subarray");
        ex_plain("Type_create_subarray");
        const int subarray_ints[8] = {2,           sizes[0],  sizes[1],  subsizes[0],
                                      subsizes[1], starts[0], starts[1], MPI_ORDER_C};
        snprintf(label, sizeof label, "subarray %d", round);
        t_byte_double[0] = MPI_DOUBLE;
        expect_typedef(subarray, label, "MPI_COMBINER_SUBARRAY", 8, subarray_ints, 0, NULL, 1,
                       t_byte_double);
        commit(&subarray);

        const int lengths[3] = {1, 2, 1 + round % 3};
        const MPI_Aint displacements[3] = {0, 64, 128 + 8 * (MPI_Aint)round};
        tc_check(MPI_Type_create_hindexed(3, lengths, displacements, subarray, &hindexed),
                 "MPI_Type_create_hindexed");
        ex_plain("Type_create_hindexed");
        const int hindexed_ints[4] = {3, lengths[0], lengths[1], lengths[2]};
        snprintf(label, sizeof label, "hindexed %d", round);
        expect_typedef(hindexed, label, "MPI_COMBINER_HINDEXED", 4, hindexed_ints, 3, displacements,
                       1, &subarray);
        commit(&hindexed);
        release(&hindexed);
        release(&subarray);
    }
    release(&element);
    release(&vector);
    release(&resized);
    release(&placed);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    const char *how = argc > 1 ? argv[1] : "finalize";
    const int rounds = argc > 2 ? atoi(argv[2]) : 10;
    MPI_File file;
    expect_file_line("crash_types.out", 0);
    tc_check(MPI_File_open(MPI_COMM_SELF, "crash_types.out", MPI_MODE_CREATE | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &file),
             "MPI_File_open");
    ex_begin("File_open");
    ex_comm("cid", MPI_COMM_SELF);
    ex_str("name", "crash_types.out");
    ex_int("flags", MPI_MODE_CREATE | MPI_MODE_RDWR);
    ex_file("fid", "crash_types.out");
    ex_end();
    for (int round = 0; round < rounds; ++round)
        round_of_types(round, file);
    const int filler = argc > 3 ? atoi(argv[3]) : 0;
    for (int i = 0; i < filler; ++i) {
        tc_check(MPI_Barrier(MPI_COMM_SELF), "MPI_Barrier");
        ex_begin("Barrier");
        ex_comm("cid", MPI_COMM_SELF);
        ex_end();
    }
    tc_say("ending by %s after %d rounds", how, rounds);
    if (strcmp(how, "segv") == 0) raise(SIGSEGV);
    if (strcmp(how, "kill") == 0) raise(SIGKILL);
    if (strcmp(how, "_exit") == 0) _exit(7);
    if (strcmp(how, "abort") == 0) {
        ex_plain("Abort");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    tc_check(MPI_File_close(&file), "MPI_File_close");
    ex_begin("File_close");
    ex_file("fid", "crash_types.out");
    ex_end();
    tc_finalize();
    return 0;
}
