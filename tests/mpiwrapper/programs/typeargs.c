/*
 * typeargs.c: the wrapper describes a type made by a traced
 * constructor from the constructor's arguments, and any other type through
 * MPI_Type_get_contents. Both must give the same .info line. Every case
 * below makes one type through the traced MPI_ name and its twin with the
 * same arguments through the PMPI_ name (which the wrapper does not see,
 * so it decodes the twin through MPI_Type_get_contents), then commits the
 * traced one and its twin, in that order, through the traced
 * MPI_Type_commit: the trace's Type_commit elements come in pairs. Each
 * twin is named "twin" (through PMPI_, unseen): the wrapper gives identical
 * definitions one id, and the twin's line must stay a line of its own.
 * Rank 0 prints "pairs=N" and the name of each case, one per line.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#define MAX_PAIRS 64

static MPI_Datatype traced[MAX_PAIRS], twins[MAX_PAIRS];
static const char *names[MAX_PAIRS];
static int pairs;

static void check(int result, const char *what) {
    if (result != MPI_SUCCESS) {
        fprintf(stderr, "typeargs: %s failed (%d)\n", what, result);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Both calls of a case: the first through MPI_, the second through PMPI_. */
#define PAIR(label, call, pcall)                                               \
    do {                                                                       \
        check(call, "MPI_" label);                                             \
        check(pcall, "PMPI_" label);                                           \
        check(PMPI_Type_set_name(twins[pairs], "twin"), "PMPI_Type_set_name"); \
        names[pairs++] = label;                                                \
        if (pairs == MAX_PAIRS) MPI_Abort(MPI_COMM_WORLD, 4);                  \
    } while (0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* A derived input for the cases built on one, made once through MPI_. */
    MPI_Datatype pair;
    check(MPI_Type_contiguous(2, MPI_INT, &pair), "MPI_Type_contiguous");

    int n = pairs;
    PAIR("Type_contiguous", MPI_Type_contiguous(3, MPI_DOUBLE, &traced[n]),
         PMPI_Type_contiguous(3, MPI_DOUBLE, &twins[n]));
    n = pairs;
    PAIR("Type_contiguous of a derived type", MPI_Type_contiguous(4, pair, &traced[n]),
         PMPI_Type_contiguous(4, pair, &twins[n]));
    n = pairs;
    PAIR("Type_vector", MPI_Type_vector(2, 3, -5, MPI_INT, &traced[n]),
         PMPI_Type_vector(2, 3, -5, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_hvector", MPI_Type_create_hvector(2, 1, -24, pair, &traced[n]),
         PMPI_Type_create_hvector(2, 1, -24, pair, &twins[n]));
    int lengths[3] = {1, 2, 3}, displacements[3] = {0, 5, 11};
    n = pairs;
    PAIR("Type_indexed", MPI_Type_indexed(3, lengths, displacements, MPI_INT, &traced[n]),
         PMPI_Type_indexed(3, lengths, displacements, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_indexed with no blocks",
         MPI_Type_indexed(0, lengths, displacements, MPI_INT, &traced[n]),
         PMPI_Type_indexed(0, lengths, displacements, MPI_INT, &twins[n]));
    MPI_Aint byteDisplacements[3] = {0, 40, -16};
    n = pairs;
    PAIR("Type_create_hindexed",
         MPI_Type_create_hindexed(3, lengths, byteDisplacements, pair, &traced[n]),
         PMPI_Type_create_hindexed(3, lengths, byteDisplacements, pair, &twins[n]));
    n = pairs;
    PAIR("Type_create_indexed_block",
         MPI_Type_create_indexed_block(3, 2, displacements, MPI_SHORT, &traced[n]),
         PMPI_Type_create_indexed_block(3, 2, displacements, MPI_SHORT, &twins[n]));
    n = pairs;
    PAIR("Type_create_hindexed_block",
         MPI_Type_create_hindexed_block(3, 2, byteDisplacements, MPI_FLOAT, &traced[n]),
         PMPI_Type_create_hindexed_block(3, 2, byteDisplacements, MPI_FLOAT, &twins[n]));
    MPI_Datatype members[3] = {MPI_CHAR, pair, MPI_DOUBLE};
    n = pairs;
    PAIR("Type_create_struct",
         MPI_Type_create_struct(3, lengths, byteDisplacements, members, &traced[n]),
         PMPI_Type_create_struct(3, lengths, byteDisplacements, members, &twins[n]));
    int sizes[3] = {10, 20, 30}, subsizes[3] = {2, 3, 4}, starts[3] = {1, 0, 7};
    n = pairs;
    PAIR("Type_create_subarray C order",
         MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &traced[n]),
         PMPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_subarray Fortran order",
         MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, pair, &traced[n]),
         PMPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, pair, &twins[n]));
    int gsizes[2] = {8, 9}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 3};
    n = pairs;
    PAIR("Type_create_darray",
         MPI_Type_create_darray(6, 4, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                                &traced[n]),
         PMPI_Type_create_darray(6, 4, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                                 &twins[n]));
    n = pairs;
    PAIR("Type_create_resized", MPI_Type_create_resized(pair, -8, 100, &traced[n]),
         PMPI_Type_create_resized(pair, -8, 100, &twins[n]));
    n = pairs;
    PAIR("Type_dup of a predefined type", MPI_Type_dup(MPI_LONG, &traced[n]),
         PMPI_Type_dup(MPI_LONG, &twins[n]));
    n = pairs;
    PAIR("Type_dup of a derived type", MPI_Type_dup(pair, &traced[n]),
         PMPI_Type_dup(pair, &twins[n]));
    /* A name set after the constructor, before the type is first used. */
    n = pairs;
    PAIR("Type_vector named", MPI_Type_vector(1, 2, 3, MPI_BYTE, &traced[n]),
         PMPI_Type_vector(1, 2, 3, MPI_BYTE, &twins[n]));
    check(MPI_Type_set_name(traced[n], "named 'type' <&>"), "MPI_Type_set_name");
    check(MPI_Type_set_name(twins[n], "named twin"), "MPI_Type_set_name");
    /* Built on a traced type of this list, freed before the new type is
     * used: the line still refers to the input's id. */
    MPI_Datatype input, inputTwin;
    check(MPI_Type_vector(2, 1, 2, MPI_INT, &input), "MPI_Type_vector");
    check(MPI_Type_vector(2, 1, 2, MPI_INT, &inputTwin), "MPI_Type_vector");
    n = pairs;
    PAIR("Type_contiguous of a freed input", MPI_Type_contiguous(2, input, &traced[n]),
         PMPI_Type_contiguous(2, inputTwin, &twins[n]));
    MPI_Type_free(&input);
    MPI_Type_free(&inputTwin);
#if MPI_VERSION >= 4
    /* The large-count constructors (MPICH; Open MPI 4 has none). */
    MPI_Count countLengths[2] = {2, 1}, countDisplacements[2] = {0, 64};
    MPI_Count countSizes[2] = {10, 20}, countSubsizes[2] = {2, 3}, countStarts[2] = {1, 4};
    MPI_Count countGsizes[2] = {8, 9};
    MPI_Datatype countMembers[2] = {MPI_INT, pair};
    n = pairs;
    PAIR("Type_contiguous_c", MPI_Type_contiguous_c(5, MPI_INT, &traced[n]),
         PMPI_Type_contiguous_c(5, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_vector_c", MPI_Type_vector_c(2, 1, 3, pair, &traced[n]),
         PMPI_Type_vector_c(2, 1, 3, pair, &twins[n]));
    n = pairs;
    PAIR("Type_create_hvector_c", MPI_Type_create_hvector_c(2, 1, 48, MPI_INT, &traced[n]),
         PMPI_Type_create_hvector_c(2, 1, 48, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_indexed_c",
         MPI_Type_indexed_c(2, countLengths, countDisplacements, MPI_INT, &traced[n]),
         PMPI_Type_indexed_c(2, countLengths, countDisplacements, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_hindexed_c",
         MPI_Type_create_hindexed_c(2, countLengths, countDisplacements, MPI_INT, &traced[n]),
         PMPI_Type_create_hindexed_c(2, countLengths, countDisplacements, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_indexed_block_c",
         MPI_Type_create_indexed_block_c(2, 3, countDisplacements, MPI_INT, &traced[n]),
         PMPI_Type_create_indexed_block_c(2, 3, countDisplacements, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_hindexed_block_c",
         MPI_Type_create_hindexed_block_c(2, 3, countDisplacements, MPI_INT, &traced[n]),
         PMPI_Type_create_hindexed_block_c(2, 3, countDisplacements, MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_struct_c",
         MPI_Type_create_struct_c(2, countLengths, countDisplacements, countMembers, &traced[n]),
         PMPI_Type_create_struct_c(2, countLengths, countDisplacements, countMembers, &twins[n]));
    n = pairs;
    PAIR("Type_create_subarray_c",
         MPI_Type_create_subarray_c(2, countSizes, countSubsizes, countStarts, MPI_ORDER_C, MPI_INT,
                                    &traced[n]),
         PMPI_Type_create_subarray_c(2, countSizes, countSubsizes, countStarts, MPI_ORDER_C,
                                     MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_darray_c",
         MPI_Type_create_darray_c(6, 4, 2, countGsizes, distribs, dargs, psizes, MPI_ORDER_C,
                                  MPI_INT, &traced[n]),
         PMPI_Type_create_darray_c(6, 4, 2, countGsizes, distribs, dargs, psizes, MPI_ORDER_C,
                                   MPI_INT, &twins[n]));
    n = pairs;
    PAIR("Type_create_resized_c", MPI_Type_create_resized_c(pair, -8, 100, &traced[n]),
         PMPI_Type_create_resized_c(pair, -8, 100, &twins[n]));
#endif

    for (int i = 0; i < pairs; ++i) {
        check(MPI_Type_commit(&traced[i]), "MPI_Type_commit");
        check(MPI_Type_commit(&twins[i]), "MPI_Type_commit");
    }
    if (rank == 0) {
        printf("pairs=%d\n", pairs);
        for (int i = 0; i < pairs; ++i)
            printf("%s\n", names[i]);
    }
    for (int i = 0; i < pairs; ++i) {
        MPI_Type_free(&traced[i]);
        MPI_Type_free(&twins[i]);
    }
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
