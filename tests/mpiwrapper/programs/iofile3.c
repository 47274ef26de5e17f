/* iofile3.c: the MPI-3 file calls: the nonblocking collective accesses
 * File_iwrite_at_all, File_iwrite_all, File_iread_all, File_iread_at_all
 * (each completed by a Wait with its <For rid/>), and the queries
 * File_get_amode, File_get_atomicity, File_get_group, File_get_info,
 * File_get_view (predefined and derived file types), File_get_byte_offset and
 * File_get_type_extent. 1 to 4 ranks. Not named fileio*: it runs with the MPI
 * library's default MPI-IO (OMPIO on Open MPI), since Open MPI 4.1.4's ROMIO
 * crashes in MPI_File_iwrite_at_all (a null function pointer), also untraced. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "expect.h"

static MPI_File fh;
static const char *data_name = "iofile3.dat";

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static long long file_size_on_disk(const char *name) {
    struct stat st;
    return stat(name, &st) == 0 ? (long long)st.st_size : 0;
}

/* fid offset size count tid rid, then the Wait with its <For>. */
static void expect_access_wait(const char *tag, long long offset, int count, MPI_Datatype type,
                               const char *label, MPI_Request *request) {
    ex_begin(tag);
    ex_file("fid", data_name);
    ex_int("offset", offset);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_rid("rid", label);
    ex_end();
    MPI_Status status;
    int rc = MPI_Wait(request, &status);
    int received = -7;
    MPI_Get_count(&status, type, &received);
    tc_say("%s Wait rc=%d count=%d null=%d", tag, rc, received, *request == MPI_REQUEST_NULL);
    ex_begin("Wait");
    ex_for(label);
    ex_end();
}

static struct {
    MPI_Datatype type;
    int forget;
} to_free[8];
static int nto_free;

/* Labels a datatype MPI made (and, first, the derived types it is built
 * from, down to `known`, the program's own) with what MPI_Type_get_contents
 * says of it, so that the checker compares the wrapper's Type lines with it. */
static void describe_type(MPI_Datatype type, const char *label, MPI_Datatype known) {
    static const struct {
        int combiner;
        const char *name;
    } combiners[] = {{MPI_COMBINER_DUP, "MPI_COMBINER_DUP"},
                     {MPI_COMBINER_CONTIGUOUS, "MPI_COMBINER_CONTIGUOUS"},
                     {MPI_COMBINER_VECTOR, "MPI_COMBINER_VECTOR"}};
    int nints = 0, naddrs = 0, ntypes = 0, combiner = -1;
    if (type == known) return;
    MPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner);
    if (combiner == MPI_COMBINER_NAMED) return;
    const char *name = NULL;
    for (size_t i = 0; i < sizeof combiners / sizeof combiners[0]; ++i)
        if (combiners[i].combiner == combiner) name = combiners[i].name;
    if (!name || nints > 8 || naddrs > 0 || ntypes != 1 || nto_free == 8)
        tc_check(MPI_ERR_OTHER, "describe_type: a type this program cannot describe");
    int ints[8] = {0};
    MPI_Aint addrs[1];
    MPI_Datatype inner;
    MPI_Type_get_contents(type, nints, naddrs, ntypes, ints, addrs, &inner);
    char inner_label[64];
    snprintf(inner_label, sizeof inner_label, "%s.inner", label);
    describe_type(inner, inner_label, known);
    expect_typedef(type, label, name, nints, ints, 0, NULL, 1, &inner);
    /* A derived type MPI_Type_get_contents returns is the caller's to free. */
    int inner_combiner = -1;
    MPI_Type_get_envelope(inner, &nints, &naddrs, &ntypes, &inner_combiner);
    /* MPICH hands back the program's own handle (counted twice): freed, but
     * its label stays, as the program still holds it. */
    if (inner_combiner != MPI_COMBINER_NAMED) {
        to_free[nto_free].type = inner;
        to_free[nto_free++].forget = inner != known;
    }
}

/* Frees what describe_type collected (after the call it described). */
static void free_described(void) {
    while (nto_free > 0) {
        --nto_free;
        MPI_Datatype type = to_free[nto_free].type;
        ex_plain("Type_free");
        if (to_free[nto_free].forget) tc_forget_type(type);
        MPI_Type_free(&type);
    }
}

static void seek(long long offset) {
    int rc = MPI_File_seek(fh, (MPI_Offset)offset, MPI_SEEK_SET);
    tc_say("File_seek rc=%d", rc);
    ex_begin("File_seek");
    ex_file("fid", data_name);
    ex_int("relative-offset", offset);
    ex_str("whence", "Set");
    ex_int("offset", offset * (long long)sizeof(int)); /* the view's etype is MPI_INT */
    ex_end();
}

static void expect_get_view(long long disp, MPI_Datatype etype, MPI_Datatype filetype) {
    ex_begin("File_get_view");
    ex_file("fid", data_name);
    ex_int("offset", disp);
    ex_type("etid", etype);
    ex_type("filetid", filetype);
    ex_str("representation", "native");
    ex_end();
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size(), rc;
    MPI_Comm world = MPI_COMM_WORLD;
    int out[16], in[16];
    for (int i = 0; i < 16; ++i)
        out[i] = rank * 1000 + i, in[i] = -1;

    expect_file_line(data_name, file_size_on_disk(data_name));
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    rc = MPI_File_open(world, data_name, amode, MPI_INFO_NULL, &fh);
    tc_check(rc, "MPI_File_open");
    ex_begin("File_open");
    ex_comm("cid", world);
    ex_str("name", data_name);
    ex_int("flags", amode);
    ex_file("fid", data_name);
    ex_end();

    /* ---- queries ---- */
    int got_amode = -1;
    rc = MPI_File_get_amode(fh, &got_amode);
    tc_say("File_get_amode rc=%d amode=%d", rc, got_amode);
    ex_begin("File_get_amode");
    ex_file("fid", data_name);
    ex_int("flags", got_amode);
    ex_end();

    for (int set = 0; set <= 1; ++set) {
        if (set) {
            rc = MPI_File_set_atomicity(fh, 1);
            tc_say("File_set_atomicity rc=%d", rc);
            ex_begin("File_set_atomicity");
            ex_file("fid", data_name);
            ex_int("flag", 1);
            ex_end();
        }
        int flag = -1;
        rc = MPI_File_get_atomicity(fh, &flag);
        tc_say("File_get_atomicity rc=%d flag=%d", rc, flag);
        ex_begin("File_get_atomicity");
        ex_file("fid", data_name);
        ex_int("flag", flag);
        ex_end();
    }

    MPI_Group group;
    rc = MPI_File_get_group(fh, &group);
    int group_size = -1;
    MPI_Group_size(group, &group_size);
    tc_say("File_get_group rc=%d size=%d", rc, group_size);
    char ranks[256] = "";
    for (int r = 0; r < size; ++r)
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "%d;", r);
    ex_begin("File_get_group");
    ex_file("fid", data_name);
    ex_str("ranks", ranks);
    ex_end();
    MPI_Group_free(&group);

    MPI_Info used;
    rc = MPI_File_get_info(fh, &used);
    int nkeys = -1;
    MPI_Info_get_nkeys(used, &nkeys);
    tc_say("File_get_info rc=%d", rc);
    ex_begin("File_get_info");
    ex_file("fid", data_name);
    ex_info_children(used);
    ex_end();
    MPI_Info_free(&used);

    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    tc_say("File_set_view rc=%d", rc);
    ex_begin("File_set_view");
    ex_file("fid", data_name);
    ex_int("offset", 0);
    ex_type("etid", MPI_INT);
    ex_type("filetid", MPI_INT);
    ex_str("representation", "native");
    ex_end();
    MPI_Offset disp = -1;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING] = "";
    rc = MPI_File_get_view(fh, &disp, &etype, &filetype, datarep);
    tc_say("File_get_view rc=%d disp=%lld rep=%s int=%d,%d", rc, (long long)disp, datarep,
           etype == MPI_INT, filetype == MPI_INT);
    expect_get_view(0, MPI_INT, MPI_INT);

    /* A derived file type: MPI returns its own copy of it, a new handle that
     * the wrapper decodes as MPI describes it (Open MPI's OMPIO: a DUP of its
     * own copy of the program's type; MPICH's ROMIO: a CONTIGUOUS of one). */
    MPI_Datatype strided, copy;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    ex_begin("Type_vector");
    ex_type("oldTid", MPI_INT);
    ex_end();
    const int strided_ints[3] = {2, 1, 2};
    const MPI_Datatype t_int = MPI_INT;
    expect_typedef(strided, "strided", "MPI_COMBINER_VECTOR", 3, strided_ints, 0, NULL, 1, &t_int);
    MPI_Type_commit(&strided);
    ex_begin("Type_commit");
    ex_type("tid", strided);
    ex_end();
    rc = MPI_File_set_view(fh, 8, MPI_INT, strided, "native", MPI_INFO_NULL);
    tc_say("File_set_view strided rc=%d", rc);
    ex_begin("File_set_view");
    ex_file("fid", data_name);
    ex_int("offset", 8);
    ex_type("etid", MPI_INT);
    ex_type("filetid", strided);
    ex_str("representation", "native");
    ex_end();
    rc = MPI_File_get_view(fh, &disp, &etype, &copy, datarep);
    tc_say("File_get_view strided rc=%d disp=%lld same=%d", rc, (long long)disp, copy == strided);
    describe_type(copy, "view_copy", strided);
    expect_get_view(8, MPI_INT, copy);
    free_described();
    ex_plain("Type_free");
    tc_forget_type(copy);
    MPI_Type_free(&copy);
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    ex_begin("File_set_view");
    ex_file("fid", data_name);
    ex_int("offset", 0);
    ex_type("etid", MPI_INT);
    ex_type("filetid", MPI_INT);
    ex_str("representation", "native");
    ex_end();
    ex_plain("Type_free");
    tc_forget_type(strided);
    MPI_Type_free(&strided);

    MPI_Offset byte_offset = -1;
    rc = MPI_File_get_byte_offset(fh, 3, &byte_offset);
    tc_say("File_get_byte_offset rc=%d bytes=%lld", rc, (long long)byte_offset);
    ex_begin("File_get_byte_offset");
    ex_file("fid", data_name);
    ex_int("offset", 3);
    ex_int("byteOffset", 3 * (long long)sizeof(int));
    ex_end();

    MPI_Aint extent = -1;
    rc = MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent);
    tc_say("File_get_type_extent rc=%d extent=%ld", rc, (long)extent);
    ex_begin("File_get_type_extent");
    ex_file("fid", data_name);
    ex_type("tid", MPI_DOUBLE);
    ex_int("extent", (long long)extent);
    ex_end();

    /* ---- nonblocking collective accesses (offsets in ints) ---- */
    MPI_Request request;
    rc = MPI_File_iwrite_at_all(fh, (MPI_Offset)(4 * rank), out, 4, MPI_INT, &request);
    tc_say("File_iwrite_at_all rc=%d", rc);
    expect_access_wait("File_iwrite_at_all", 4 * rank, 4, MPI_INT, "iwrite_at_all", &request);

    const long long second = 4LL * size + 4 * rank;
    seek(second);
    rc = MPI_File_iwrite_all(fh, out + 4, 4, MPI_INT, &request);
    tc_say("File_iwrite_all rc=%d", rc);
    expect_access_wait("File_iwrite_all", second * (long long)sizeof(int), 4, MPI_INT, "iwrite_all",
                       &request);

    /* Atomic mode: a barrier makes every rank's writes visible to the reads. */
    MPI_Barrier(world);
    ex_begin("Barrier");
    ex_comm("cid", world);
    ex_end();
    seek(second);
    rc = MPI_File_iread_all(fh, in, 4, MPI_INT, &request);
    tc_say("File_iread_all rc=%d", rc);
    expect_access_wait("File_iread_all", second * (long long)sizeof(int), 4, MPI_INT, "iread_all",
                       &request);
    tc_say("File_iread_all data=%ld", tc_checksum(in, 4));

    rc = MPI_File_iread_at_all(fh, (MPI_Offset)(4 * ((rank + 1) % size)), in + 4, 4, MPI_INT,
                               &request);
    tc_say("File_iread_at_all rc=%d", rc);
    expect_access_wait("File_iread_at_all", 4 * ((rank + 1) % size), 4, MPI_INT, "iread_at_all",
                       &request);
    tc_say("File_iread_at_all data=%ld", tc_checksum(in + 4, 4));

    rc = MPI_File_close(&fh);
    tc_say("File_close rc=%d", rc);
    ex_begin("File_close");
    ex_file("fid", data_name);
    ex_end();
    MPI_Barrier(world);
    ex_begin("Barrier");
    ex_comm("cid", world);
    ex_end();
    if (rank == 0) {
        rc = MPI_File_delete(data_name, MPI_INFO_NULL);
        tc_say("File_delete rc=%d", rc);
        ex_begin("File_delete");
        ex_file("fid", data_name);
        ex_end();
    }
    tc_finalize();
    return 0;
}
