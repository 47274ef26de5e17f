/*
 * firsthandles.c: the wrapper makes no MPI object of its own.
 *
 *   firsthandles KIND FILE
 *
 * Right after MPI_Init the program creates its first communicator (KIND:
 * dup, split, cart, distgraph, distgraph_adjacent), then a second one, a
 * datatype, a group, a window, a file (FILE.<world rank of the
 * communicator's rank 0>, deleted on close) and a
 * request, and prints each Fortran handle: "r<rank> <what> <handle>".
 * Traced and untraced runs must print the same handles. With
 * FIRSTHANDLES_HIDE_LAUNCHER set, the program first removes the launcher's
 * count of ranks per node from its environment.
 *
 * The program also counts, per phase, the calls that the program or the
 * wrapper make to the library's object-creating PMPI_ entry points: it
 * defines them itself (they interpose on libmpi's, for the wrapper linked
 * in or preloaded) and forwards to the library. It prints "r<rank> calls <phase> <name>:<n> ...".
 * The library never calls these symbols for the program's MPI_X calls
 * (Open MPI's MPI_X do not call PMPI_X; MPICH's are the same function), so
 * a traced run may show exactly one call more than an untraced run, that of
 * the phase's own function forwarded by the wrapper, and nothing else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int rank, size;

/* ---- counting interposers */
enum {
    kCommSplitType,
    kCommSplit,
    kCommDup,
    kCommDupWithInfo,
    kCommCreate,
    kCommCreateGroup,
    kCartCreate,
    kCartSub,
    kGraphCreate,
    kDistGraphCreate,
    kDistGraphCreateAdjacent,
    kIntercommCreate,
    kIntercommMerge,
    kCommFree,
    kTypeContiguous,
    kTypeDup,
    kTypeFree,
    kWinCreate,
    kWinAllocate,
    kWinFree,
    kFileOpen,
    kFileClose,
    kIsend,
    kIrecv,
    kRequestFree,
    kCounted
};
static const char *const kNames[kCounted] = {"Comm_split_type",
                                             "Comm_split",
                                             "Comm_dup",
                                             "Comm_dup_with_info",
                                             "Comm_create",
                                             "Comm_create_group",
                                             "Cart_create",
                                             "Cart_sub",
                                             "Graph_create",
                                             "Dist_graph_create",
                                             "Dist_graph_create_adjacent",
                                             "Intercomm_create",
                                             "Intercomm_merge",
                                             "Comm_free",
                                             "Type_contiguous",
                                             "Type_dup",
                                             "Type_free",
                                             "Win_create",
                                             "Win_allocate",
                                             "Win_free",
                                             "File_open",
                                             "File_close",
                                             "Isend",
                                             "Irecv",
                                             "Request_free"};
static long counts[kCounted];

/* Whether the call comes from the program's own code or the wrapper's
 * (linked in, or preloaded as libhdtracempi.so), not from inside the MPI
 * library: MPICH's ROMIO, entered through PMPI_File_open, itself calls
 * PMPI_Comm_dup and PMPI_Type_free, which are the library's business. */
static int from_program_or_wrapper(void *return_address) {
    Dl_info caller, program;
    if (!dladdr(return_address, &caller) || !dladdr((void *)&from_program_or_wrapper, &program))
        return 1;
    return caller.dli_fbase == program.dli_fbase ||
           (caller.dli_fname && strstr(caller.dli_fname, "libhdtracempi"));
}

static void *next_symbol(const char *name) {
    void *symbol = dlsym(RTLD_NEXT, name);
    if (!symbol) {
        fprintf(stderr, "firsthandles: %s not found after the program\n", name);
        abort();
    }
    return symbol;
}

#define COUNTED(index, name, params, args)                                         \
    int P##name params {                                                           \
        static int(*next) params;                                                  \
        if (!next) next = (int(*) params)next_symbol("P" #name);                   \
        if (from_program_or_wrapper(__builtin_return_address(0))) ++counts[index]; \
        return next args;                                                          \
    }

COUNTED(kCommSplitType, MPI_Comm_split_type,
        (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out),
        (comm, type, key, info, out))
COUNTED(kCommSplit, MPI_Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *out),
        (comm, color, key, out))
COUNTED(kCommDup, MPI_Comm_dup, (MPI_Comm comm, MPI_Comm *out), (comm, out))
COUNTED(kCommDupWithInfo, MPI_Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *out),
        (comm, info, out))
COUNTED(kCommCreate, MPI_Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *out),
        (comm, group, out))
COUNTED(kCommCreateGroup, MPI_Comm_create_group,
        (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out), (comm, group, tag, out))
COUNTED(kCartCreate, MPI_Cart_create,
        (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
         MPI_Comm *out),
        (comm, ndims, dims, periods, reorder, out))
COUNTED(kCartSub, MPI_Cart_sub, (MPI_Comm comm, const int remain[], MPI_Comm *out),
        (comm, remain, out))
COUNTED(kGraphCreate, MPI_Graph_create,
        (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
         MPI_Comm *out),
        (comm, nnodes, index, edges, reorder, out))
COUNTED(kDistGraphCreate, MPI_Dist_graph_create,
        (MPI_Comm comm, int n, const int sources[], const int degrees[], const int dests[],
         const int weights[], MPI_Info info, int reorder, MPI_Comm *out),
        (comm, n, sources, degrees, dests, weights, info, reorder, out))
COUNTED(kDistGraphCreateAdjacent, MPI_Dist_graph_create_adjacent,
        (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[], int outdegree,
         const int dests[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *out),
        (comm, indegree, sources, sourceweights, outdegree, dests, destweights, info, reorder, out))
COUNTED(kIntercommCreate, MPI_Intercomm_create,
        (MPI_Comm local, int leader, MPI_Comm peer, int remote, int tag, MPI_Comm *out),
        (local, leader, peer, remote, tag, out))
COUNTED(kIntercommMerge, MPI_Intercomm_merge, (MPI_Comm inter, int high, MPI_Comm *out),
        (inter, high, out))
COUNTED(kCommFree, MPI_Comm_free, (MPI_Comm * comm), (comm))
COUNTED(kTypeContiguous, MPI_Type_contiguous, (int count, MPI_Datatype old, MPI_Datatype *out),
        (count, old, out))
COUNTED(kTypeDup, MPI_Type_dup, (MPI_Datatype old, MPI_Datatype *out), (old, out))
COUNTED(kTypeFree, MPI_Type_free, (MPI_Datatype * type), (type))
COUNTED(kWinCreate, MPI_Win_create,
        (void *base, MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
        (base, bytes, unit, info, comm, win))
COUNTED(kWinAllocate, MPI_Win_allocate,
        (MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
        (bytes, unit, info, comm, base, win))
COUNTED(kWinFree, MPI_Win_free, (MPI_Win * win), (win))
COUNTED(kFileOpen, MPI_File_open,
        (MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh),
        (comm, name, amode, info, fh))
COUNTED(kFileClose, MPI_File_close, (MPI_File * fh), (fh))
COUNTED(kIsend, MPI_Isend,
        (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
         MPI_Request *request),
        (buf, count, type, dest, tag, comm, request))
COUNTED(kIrecv, MPI_Irecv,
        (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Request *request),
        (buf, count, type, source, tag, comm, request))
COUNTED(kRequestFree, MPI_Request_free, (MPI_Request * request), (request))

/* Prints the calls counted since the previous phase, as one write: MPICH
 * makes stdout unbuffered in MPI_Init. */
static void phase(const char *name) {
    static long before[kCounted];
    char line[2048];
    int length = snprintf(line, sizeof line, "r%d calls %s", rank, name);
    for (int i = 0; i < kCounted; ++i) {
        if (counts[i] != before[i] && length < (int)sizeof line)
            length += snprintf(line + length, sizeof line - (size_t)length, " %s:%ld", kNames[i],
                               counts[i] - before[i]);
        before[i] = counts[i];
    }
    if (length > (int)sizeof line - 2) length = (int)sizeof line - 2;
    line[length++] = '\n';
    fwrite(line, 1, (size_t)length, stdout);
}

static void say(const char *what, long value) {
    printf("r%d %s %ld\n", rank, what, value);
}

static MPI_Comm first_comm(const char *kind) {
    MPI_Comm comm = MPI_COMM_NULL;
    int next[1] = {(rank + 1) % size}, previous[1] = {(rank + size - 1) % size};
    if (strcmp(kind, "dup") == 0) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    } else if (strcmp(kind, "split") == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &comm);
    } else if (strcmp(kind, "cart") == 0) {
        int dims[1] = {size}, periods[1] = {1};
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &comm);
    } else if (strcmp(kind, "distgraph") == 0) {
        int sources[1] = {rank}, degrees[1] = {1};
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources, degrees, next, MPI_UNWEIGHTED,
                              MPI_INFO_NULL, 0, &comm);
    } else if (strcmp(kind, "distgraph_adjacent") == 0) {
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, previous, MPI_UNWEIGHTED, 1, next,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
    } else {
        fprintf(stderr, "firsthandles: unknown KIND '%s'\n", kind);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return comm;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: firsthandles KIND FILE\n");
        return 2;
    }
    /* As under a launcher that does not say how many ranks share a node:
     * the wrapper then counts them itself. */
    if (getenv("FIRSTHANDLES_HIDE_LAUNCHER")) {
        unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
        unsetenv("MPI_LOCALNRANKS");
        unsetenv("PALS_LOCAL_SIZE");
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    phase("init");

    MPI_Comm comm = first_comm(argv[1]);
    phase(argv[1]);
    say("comm", (long)MPI_Comm_c2f(comm));
    /* a second one: the agreement on context ids goes on from the first */
    MPI_Comm second;
    MPI_Comm_dup(comm, &second);
    phase("dup");
    say("second-comm", (long)MPI_Comm_c2f(second));

    MPI_Datatype type;
    MPI_Type_contiguous(3, MPI_INT, &type);
    MPI_Type_commit(&type);
    phase("contiguous");
    say("type", (long)MPI_Type_c2f(type));

    MPI_Group group, first_member;
    int members[1] = {0};
    MPI_Comm_group(comm, &group);
    MPI_Group_incl(group, 1, members, &first_member);
    say("group", (long)MPI_Group_c2f(first_member));

    int cell = rank;
    MPI_Win win;
    MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, comm, &win);
    phase("win_create");
    say("win", (long)MPI_Win_c2f(win));

    /* one file per communicator: the halves of a split must not share it */
    int leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, comm);
    char name[4096];
    snprintf(name, sizeof name, "%s.%d", argv[2], leader);
    MPI_File file;
    MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &file);
    phase("file_open");
    say("file", (long)MPI_File_c2f(file));

    int received = -1;
    MPI_Request request;
    MPI_Irecv(&received, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &request);
    phase("irecv");
    say("request", (long)MPI_Request_c2f(request));
    MPI_Wait(&request, MPI_STATUS_IGNORE);

    MPI_File_close(&file);
    MPI_Win_free(&win);
    MPI_Group_free(&first_member);
    MPI_Group_free(&group);
    MPI_Type_free(&type);
    MPI_Comm_free(&second);
    MPI_Comm_free(&comm);
    phase("frees");
    MPI_Finalize();
    return 0;
}
