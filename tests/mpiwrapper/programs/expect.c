/* expect.c: the expectation writer of expect.h (JSON Lines, one per call). */
#include "expect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *expect_file;
static int my_rank = -1, world_size = 0;

/* ---- JSON text of the record being built ---- */
static char record[1 << 16];
static size_t record_len;
enum { MAX_NESTING = 8 };
static struct { int attrs_closed, nattrs, nchildren; } open_elements[MAX_NESTING];
static int nesting;

static void die(const char *what) {
    fprintf(stderr, "test program: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

static void put(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(record + record_len, sizeof record - record_len, format, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof record - record_len) die("expectation record too long");
    record_len += (size_t)n;
}

static void put_json_string(const char *s) {
    put("\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            put("\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            put("\\u%04x", *p); /* bytes, read back as code points 0..255 */
        else
            put("%c", *p);
    }
    put("\"");
}

void tc_check(int rc, const char *what) {
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        fprintf(stderr, "test program: %s failed: %s\n", what, text);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

long tc_checksum(const int *v, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i)
        s += (long)v[i] * (i + 1);
    return s;
}

int tc_rank(void) {
    return my_rank;
}
int tc_size(void) {
    return world_size;
}

void tc_say(const char *format, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, format);
    vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    printf("r%d %s\n", my_rank, line);
    fflush(stdout);
}

int tc_env_on(const char *name) {
    const char *value = getenv(name);
    return value && strcmp(value, "1") == 0;
}

/* ---- registries of labelled communicators and datatypes ---- */
enum { MAX_OBJECTS = 256, MAX_MEMBERS = 64 };
static struct {
    MPI_Comm comm;
    char label[64];
    int nlocal, local[MAX_MEMBERS];
    int nremote, remote[MAX_MEMBERS];
} comms[MAX_OBJECTS];
static int ncomms;
static struct {
    MPI_Datatype type;
    char label[64];
} types[MAX_OBJECTS];
static int ntypes;

static int group_to_world(MPI_Group group, int *world_ranks) {
    int n = 0;
    MPI_Group world;
    MPI_Group_size(group, &n);
    if (n > MAX_MEMBERS) die("communicator too large for the test registry");
    int local[MAX_MEMBERS];
    for (int i = 0; i < n; ++i)
        local[i] = i;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, n, local, world, world_ranks);
    MPI_Group_free(&world);
    return n;
}

void tc_label_comm(MPI_Comm comm, const char *label) {
    if (ncomms == MAX_OBJECTS) die("too many communicators");
    int i = ncomms++;
    comms[i].comm = comm;
    snprintf(comms[i].label, sizeof comms[i].label, "%s", label);
    MPI_Group group;
    MPI_Comm_group(comm, &group);
    comms[i].nlocal = group_to_world(group, comms[i].local);
    MPI_Group_free(&group);
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    comms[i].nremote = -1;
    if (inter) {
        MPI_Comm_remote_group(comm, &group);
        comms[i].nremote = group_to_world(group, comms[i].remote);
        MPI_Group_free(&group);
    }
}

static int find_comm(MPI_Comm comm) {
    for (int i = ncomms - 1; i >= 0; --i)
        if (comms[i].comm == comm) return i;
    die("communicator without a label");
    return -1;
}

void tc_forget_comm(MPI_Comm comm) {
    int i = find_comm(comm);
    comms[i] = comms[--ncomms];
}

void tc_expect_constructor(const char *tag, MPI_Comm input, MPI_Comm created) {
    ex_begin(tag);
    ex_comm("cid", input);
    ex_comm("newCid", created);
    ex_end();
}

void tc_barrier(MPI_Comm comm, const char *name) {
    int rc = MPI_Barrier(comm);
    tc_say("Barrier on %s rc=%d", name, rc);
    ex_begin("Barrier");
    ex_comm("cid", comm);
    ex_end();
}

void tc_comm_free(MPI_Comm *comm) {
    ex_begin("Comm_free");
    ex_comm("cid", *comm);
    ex_end();
    tc_forget_comm(*comm);
    int rc = MPI_Comm_free(comm);
    tc_say("Comm_free rc=%d null=%d", rc, *comm == MPI_COMM_NULL);
}

int tc_world_rank(MPI_Comm comm, int rank) {
    if (rank == MPI_ANY_SOURCE) return -1;
    if (rank == MPI_PROC_NULL) return -2;
    if (rank == MPI_ROOT) return -3;
    int i = find_comm(comm);
    const int *members = comms[i].nremote >= 0 ? comms[i].remote : comms[i].local;
    int n = comms[i].nremote >= 0 ? comms[i].nremote : comms[i].nlocal;
    if (rank < 0 || rank >= n) die("rank outside its communicator");
    return members[rank];
}

void ex_root(MPI_Comm comm, int root) {
    ex_int("root", tc_world_rank(comm, root));
    ex_int("rootRank", tc_world_rank(comm, root));
}

static int find_type(MPI_Datatype type) {
    for (int i = ntypes - 1; i >= 0; --i)
        if (types[i].type == type) return i;
    return -1;
}

void tc_forget_type(MPI_Datatype type) {
    int i = find_type(type);
    if (i < 0) die("forgetting an unknown type");
    types[i] = types[--ntypes];
}

static const struct {
    MPI_Datatype type;
    const char *name;
} named_types[] = {
    {MPI_INT, "MPI_INT"},     {MPI_DOUBLE, "MPI_DOUBLE"},     {MPI_CHAR, "MPI_CHAR"},
    {MPI_BYTE, "MPI_BYTE"},   {MPI_FLOAT, "MPI_FLOAT"},       {MPI_LONG, "MPI_LONG"},
    {MPI_SHORT, "MPI_SHORT"}, {MPI_UNSIGNED, "MPI_UNSIGNED"},
};

static void put_type_value(MPI_Datatype type) {
    int i = find_type(type);
    if (i >= 0) {
        put("{\"dtype\":");
        put_json_string(types[i].label);
        put("}");
        return;
    }
    for (size_t k = 0; k < sizeof named_types / sizeof named_types[0]; ++k)
        if (named_types[k].type == type) {
            /* The .info line carries size and extent. */
            int size = 0;
            MPI_Aint lb = 0, extent = 0;
            MPI_Type_size(type, &size);
            MPI_Type_get_extent(type, &lb, &extent);
            put("{\"named\":\"%s\",\"id\":%d,\"size\":%d,\"extent\":%ld}", named_types[k].name,
                (int)MPI_Type_c2f(type), size, (long)extent);
            return;
        }
    die("datatype neither predefined in the table nor labelled");
}

static void put_int_array(int n, const int *v) {
    put("[");
    for (int i = 0; i < n; ++i)
        put("%s%d", i ? "," : "", v[i]);
    put("]");
}

static void write_record(void) {
    if (expect_file) {
        fwrite(record, 1, record_len, expect_file);
        fputc('\n', expect_file);
        fflush(expect_file);
    }
    record_len = 0;
}

void expect_typedef(MPI_Datatype type, const char *label, const char *combiner, int nints,
                    const int *ints, int naddrs, const MPI_Aint *addrs, int ntypes_passed,
                    const MPI_Datatype *passed) {
    if (nesting) die("expect_typedef inside an element");
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    MPI_Type_get_name(type, name, &len);
    put("{\"kind\":\"typedef\",\"label\":");
    put_json_string(label);
    put(",\"combiner\":\"%s\",\"name\":", combiner);
    put_json_string(name);
    put(",\"integers\":");
    put_int_array(nints, ints);
    put(",\"addresses\":[");
    for (int i = 0; i < naddrs; ++i)
        put("%s%lld", i ? "," : "", (long long)addrs[i]);
    put("],\"types\":[");
    for (int i = 0; i < ntypes_passed; ++i) {
        if (i) put(",");
        put_type_value(passed[i]);
    }
    put("]}");
    write_record();
    if (ntypes == MAX_OBJECTS) die("too many datatypes");
    types[ntypes].type = type;
    snprintf(types[ntypes].label, sizeof types[ntypes].label, "%s", label);
    ++ntypes;
}

void expect_file_line(const char *filename, long long initial_size) {
    put("{\"kind\":\"file\",\"name\":");
    put_json_string(filename);
    put(",\"size\":%lld}", initial_size);
    write_record();
}

/* ---- elements ---- */
static void close_attrs(void) {
    if (!open_elements[nesting - 1].attrs_closed) {
        put("],\"children\":[");
        open_elements[nesting - 1].attrs_closed = 1;
    }
}

void ex_begin(const char *tag) {
    if (nesting == MAX_NESTING) die("expected elements nested too deeply");
    if (nesting > 0) {
        close_attrs();
        if (open_elements[nesting - 1].nchildren++) put(",");
        put("{\"tag\":");
    } else {
        put("{\"kind\":\"call\",\"tag\":");
    }
    put_json_string(tag);
    put(",\"attrs\":[");
    open_elements[nesting].attrs_closed = 0;
    open_elements[nesting].nattrs = 0;
    open_elements[nesting].nchildren = 0;
    ++nesting;
}

static void begin_attr(const char *name) {
    if (nesting == 0 || open_elements[nesting - 1].attrs_closed)
        die("attribute outside an element or after its children");
    if (open_elements[nesting - 1].nattrs++) put(",");
    put("[");
    put_json_string(name);
    put(",");
}

void ex_int(const char *name, long long value) {
    begin_attr(name);
    put("%lld]", value);
}

void ex_any_int(const char *name) {
    begin_attr(name);
    put("{\"any\":\"int\"}]");
}

void ex_int_range(const char *name, long long lo, long long hi) {
    begin_attr(name);
    put("{\"range\":[%lld,%lld]}]", lo, hi);
}

void ex_str(const char *name, const char *value) {
    begin_attr(name);
    put("{\"str\":");
    put_json_string(value);
    put("}]");
}

void ex_type(const char *name, MPI_Datatype type) {
    begin_attr(name);
    if (type == MPI_DATATYPE_NULL) { /* docs/format/trace.md: written as -1 */
        put("-1]");
        return;
    }
    put_type_value(type);
    put("]");
}

void ex_comm(const char *name, MPI_Comm comm) {
    begin_attr(name);
    if (comm == MPI_COMM_NULL) {
        put("-1]");
        return;
    }
    int i = find_comm(comm);
    put("{\"comm\":");
    put_json_string(comms[i].label);
    put(",\"members\":");
    put_int_array(comms[i].nlocal, comms[i].local);
    if (comms[i].nremote >= 0) {
        put(",\"remote\":");
        put_int_array(comms[i].nremote, comms[i].remote);
    }
    put("}]");
}

void ex_file(const char *name, const char *filename) {
    begin_attr(name);
    put("{\"file\":");
    put_json_string(filename);
    put("}]");
}

void ex_rid(const char *name, const char *label) {
    begin_attr(name);
    put("{\"rid\":");
    put_json_string(label);
    put("}]");
}

void ex_end(void) {
    if (nesting == 0) die("ex_end without ex_begin");
    close_attrs();
    put("]}");
    if (--nesting == 0) write_record();
}

void ex_plain(const char *tag) {
    ex_begin(tag);
    ex_end();
}

void ex_for(const char *label) {
    ex_begin("For");
    ex_rid("rid", label);
    ex_end();
}

void ex_info_children(MPI_Info info) {
    if (!tc_env_on("HDTRACE_FILE_INFO") || info == MPI_INFO_NULL) return;
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        ex_begin("Info");
        ex_str("key", key);
        ex_str("value", value);
        ex_end();
    }
}

/* ---- matched probes and one-sided communication ---- */
void ex_mid(const char *name, const char *label) {
    begin_attr(name);
    put("{\"mid\":");
    put_json_string(label);
    put("}]");
}

void ex_win(const char *name, const char *label) {
    begin_attr(name);
    put("{\"win\":");
    put_json_string(label);
    put("}]");
}

void expect_win_line(const char *label, MPI_Comm comm, long long size, int disp_unit,
                     const char *kind) {
    if (nesting) die("expect_win_line inside an element");
    int i = find_comm(comm);
    put("{\"kind\":\"win\",\"label\":");
    put_json_string(label);
    put(",\"comm\":{\"comm\":");
    put_json_string(comms[i].label);
    put(",\"members\":");
    put_int_array(comms[i].nlocal, comms[i].local);
    put("},\"size\":%lld,\"dispUnit\":%d,\"winKind\":", size, disp_unit);
    put_json_string(kind);
    put("}");
    write_record();
}

/* ---- start and end ---- */
void tc_init(int *argc, char ***argv) {
    tc_check(MPI_Init(argc, argv), "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *dir = getenv("HDTRACE_EXPECT_DIR");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.jsonl", dir, my_rank);
        expect_file = fopen(path, "w");
        if (!expect_file) die("cannot write the expectation file");
    }
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(library, &len);
    library[strcspn(library, "\n")] = '\0';
    put("{\"kind\":\"mpi\",\"library\":");
    put_json_string(library);
    put(",\"order_c\":%d,\"order_fortran\":%d,\"distribute_block\":%d,"
        "\"distribute_cyclic\":%d,\"distribute_none\":%d,\"distribute_dflt_darg\":%d,"
        "\"world_size\":%d}",
        MPI_ORDER_C, MPI_ORDER_FORTRAN, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
        MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG, world_size);
    write_record();
    tc_label_comm(MPI_COMM_WORLD, "WORLD");
    tc_label_comm(MPI_COMM_SELF, "SELF");
    ex_plain("Init");
}

void tc_finalize(void) {
    ex_plain("Finalize");
    if (expect_file) fclose(expect_file);
    expect_file = NULL;
    tc_say("done");
    MPI_Finalize();
}
