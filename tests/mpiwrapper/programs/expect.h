/*
 * expect.h: what a wrapper test program says it did.
 *
 * Every test program performs MPI calls and, for each call the wrapper must
 * trace, writes one JSON line into $HDTRACE_EXPECT_DIR/<world rank>.jsonl
 * with the element the trace must hold: its tag, each attribute in the
 * order of docs/format/calls.md (time and end are checked by the test itself) and its
 * children. Values the program cannot know (ids chosen by the wrapper) are
 * written symbolically and resolved by tracecheck.py through the .info:
 *
 *   {"named": "MPI_INT", "id": c2f}          a predefined datatype
 *   {"dtype": "label"}                       a derived datatype (see expect_typedef)
 *   {"comm": "label", "members": [...]}      a communicator: world ranks in local order
 *   {"file": "name"}                         the file opened under that name
 *   {"rid": "label"}                         a request (same label = same rid)
 *   {"str": "text"}, {"any": "int"}          a string; any integer
 *   {"range": [lo, hi]}                      an integer within lo..hi
 *   {"mid": "label"}                         a matched message (same label = same mid)
 *   {"win": "label"}                         a window (see expect_win_line)
 *
 * Without HDTRACE_EXPECT_DIR nothing is written, so the same program also
 * runs untraced. Everything the program prints on stdout (return codes,
 * statuses, data) is for the comparison of traced and untraced runs.
 */
#ifndef HDTRACE_TESTS_EXPECT_H
#define HDTRACE_TESTS_EXPECT_H

#include <mpi.h>

/* MPI_Init plus the expectation of <Init>, the first line of the .info, and
 * the registration of MPI_COMM_WORLD ("WORLD") and MPI_COMM_SELF ("SELF"). */
void tc_init(int *argc, char ***argv);
/* The expectation of <Finalize>, then MPI_Finalize. */
void tc_finalize(void);

int tc_rank(void);
int tc_size(void);
/* Print one line "r<rank> <text>" on stdout (the behaviour record). */
void tc_say(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Abort with a message when an MPI call returned an error. */
void tc_check(int rc, const char *what);
/* A position-weighted sum of n ints, printed to compare data traced and untraced. */
long tc_checksum(const int *v, int n);

/* One expected trace element: begin, attributes in order, children, end. */
void ex_begin(const char *tag);
void ex_int(const char *name, long long value);
void ex_any_int(const char *name);
/* An integer lo <= value <= hi (for values racing with other ranks). */
void ex_int_range(const char *name, long long lo, long long hi);
void ex_str(const char *name, const char *value);
void ex_type(const char *name, MPI_Datatype type);
void ex_comm(const char *name, MPI_Comm comm);
void ex_file(const char *name, const char *filename);
void ex_rid(const char *name, const char *label);
void ex_end(void);
/* Shorthands: an element with only time and end; a <For rid/> child. */
void ex_plain(const char *tag);
void ex_for(const char *label);
/* <Info key value/> children for each key of info, when HDTRACE_FILE_INFO=1. */
void ex_info_children(MPI_Info info);

/* A world rank as the wrapper writes it: MPI_ANY_SOURCE -1, MPI_PROC_NULL
 * -2, MPI_ROOT -3, otherwise the world rank of `rank` in comm. */
int tc_world_rank(MPI_Comm comm, int rank);
/* Gather, Gatherv, Scatter, Scatterv (and their I-forms): the root,
 * then rootRank with the same world rank (docs/format/trace.md). */
void ex_root(MPI_Comm comm, int root);

/* Name a communicator (after its creation) so that later ex_comm calls
 * describe it; tc_forget_comm before MPI_Comm_free. */
void tc_label_comm(MPI_Comm comm, const char *label);
void tc_forget_comm(MPI_Comm comm);

/* The steps the communicator programs share: the expectation of a
 * constructor's element (its input cid and newCid), a Barrier on a
 * communicator with its expectation and a line on stdout, and
 * MPI_Comm_free with its expectation and line. */
void tc_expect_constructor(const char *tag, MPI_Comm input, MPI_Comm created);
void tc_barrier(MPI_Comm comm, const char *name);
void tc_comm_free(MPI_Comm *comm);

/* Name a derived datatype and write what the program passed to its
 * constructor, in the order of MPI_Type_get_contents. */
void expect_typedef(MPI_Datatype type, const char *label, const char *combiner, int nints,
                    const int *ints, int naddrs, const MPI_Aint *addrs, int ntypes,
                    const MPI_Datatype *types);
void tc_forget_type(MPI_Datatype type);

/* The .info File line the first open of `filename` must produce. */
void expect_file_line(const char *filename, long long initial_size);

/* ---- Matched probes and one-sided communication ---- */
/* A message id (mid) given by a matched probe: same label, same mid. */
void ex_mid(const char *name, const char *label);
/* A window id (wid); the label must have an expect_win_line. */
void ex_win(const char *name, const char *label);
/* The .info Win line a window constructor must produce: its communicator,
 * the bytes of this rank's part, the displacement unit and the kind
 * ("create", "allocate", "shared", "dynamic"). */
void expect_win_line(const char *label, MPI_Comm comm, long long size, int disp_unit,
                     const char *kind);

/* Non-zero when the environment variable is set to "1". */
int tc_env_on(const char *name);

#endif
