/* training_start.h: what both training programs do first: start MPI and
 * read their arguments, DIRECTORY [ROUNDS]. */
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

/* Starts MPI and returns the rounds to run (ROUNDS, or default_rounds); path
 * becomes DIRECTORY/file_name. A missing DIRECTORY ends the run with 2. */
static inline int training_start(int *argc, char ***argv, const char *file_name, int default_rounds,
                                 char *path, size_t path_size) {
    MPI_Init(argc, argv);
    if (*argc < 2) {
        fprintf(stderr, "usage: %s DIRECTORY [ROUNDS]\n", (*argv)[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, path_size, "%s/%s", (*argv)[1], file_name);
    return *argc > 2 ? atoi((*argv)[2]) : default_rounds;
}
