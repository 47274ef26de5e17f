/* fileio.c: MPI-IO calls: open/close/delete, sizes, atomicity, info,
 * views (contiguous and strided), explicit offsets, the individual and the
 * shared file pointer, collective, split collective and nonblocking
 * reads and writes, on 1 to 4 ranks. Expected offsets come from
 * MPI_File_get_position[_shared] and PMPI_File_get_byte_offset (around the
 * wrapper: MPI_File_get_byte_offset is traced, and tested in iofile3.c). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "expect.h"

static MPI_File fh;
static const char *data_name = "fileio.dat";
static int split_number;

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static long long file_size_on_disk(const char *name) {
    struct stat st;
    return stat(name, &st) == 0 ? (long long)st.st_size : 0;
}

/* File_get_position[_shared] are traced (ordinary calls). Their
 * expectations are written by positions_done(), so that a seek's own
 * expectation can come first when the position is read after the seek. */
static const char *pending_positions[4];
static int npending;

static void positions_done(void) {
    for (int i = 0; i < npending; ++i)
        ex_plain(pending_positions[i]);
    npending = 0;
}

/* The individual file pointer in bytes. */
static long long individual_offset(void) {
    MPI_Offset position, byte_offset;
    MPI_File_get_position(fh, &position);
    pending_positions[npending++] = "File_get_position";
    PMPI_File_get_byte_offset(fh, position, &byte_offset);
    return (long long)byte_offset;
}

static long long shared_offset(void) {
    MPI_Offset position, byte_offset;
    MPI_File_get_position_shared(fh, &position);
    pending_positions[npending++] = "File_get_position_shared";
    PMPI_File_get_byte_offset(fh, position, &byte_offset);
    return (long long)byte_offset;
}

/* The offset an individual-pointer access must log: the pointer before it. */
static long long offset_before_access(void) {
    long long offset = individual_offset();
    positions_done();
    return offset;
}

/* fid offset size count tid */
static void expect_access(const char *tag, const char *name, long long offset, int count,
                          MPI_Datatype type) {
    ex_begin(tag);
    ex_file("fid", name);
    ex_int("offset", offset);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_end();
}

/* fid size count tid (shared pointer calls) */
static void expect_shared(const char *tag, int count, MPI_Datatype type) {
    ex_begin(tag);
    ex_file("fid", data_name);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_end();
}

static void expect_fid_rid(const char *tag, const char *rid) {
    ex_begin(tag);
    ex_file("fid", data_name);
    ex_rid("rid", rid);
    ex_end();
}

/* any_offset > 0: the offset may lie anywhere in offset..offset + any_offset
 * (the shared pointer, which ranks that began first may have moved). */
static void expect_data(long long offset, int count, MPI_Datatype type, long long any_offset) {
    ex_begin("Data");
    if (any_offset)
        ex_int_range("offset", offset, offset + any_offset);
    else
        ex_int("offset", offset);
    ex_int("size", bytes(count, type));
    ex_int("count", count);
    ex_type("tid", type);
    ex_end();
}

/* A *_begin with fid and rid plus <Data>; returns the rid label. */
static const char *expect_begin_call(const char *tag, long long offset, int count,
                                     MPI_Datatype type, long long any_offset) {
    static char label[32];
    snprintf(label, sizeof label, "split:%d", ++split_number);
    ex_begin(tag);
    ex_file("fid", data_name);
    ex_rid("rid", label);
    expect_data(offset, count, type, any_offset);
    ex_end();
    return label;
}

static void expect_end_call(const char *label) {
    ex_begin("Wait");
    ex_for(label);
    ex_end();
}

static void expect_seek(const char *tag, long long relative, const char *whence, long long offset) {
    ex_begin(tag);
    ex_file("fid", data_name);
    ex_int("relative-offset", relative);
    ex_str("whence", whence);
    ex_int("offset", offset);
    ex_end();
}

static void expect_set_view(long long disp, MPI_Datatype etype, MPI_Datatype filetype,
                            MPI_Info info) {
    ex_begin("File_set_view");
    ex_file("fid", data_name);
    ex_int("offset", disp);
    ex_type("etid", etype);
    ex_type("filetid", filetype);
    ex_str("representation", "native");
    ex_info_children(info);
    ex_end();
}

static void barrier(void) {
    MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
}

static void say_io(const char *what, int rc, MPI_Status *status) {
    int count = -7;
    MPI_Get_count(status, MPI_INT, &count);
    tc_say("%s rc=%d count=%d", what, rc, count);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int rank = tc_rank(), size = tc_size(), rc;
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_Status status;
    int out[64], in[64];
    for (int i = 0; i < 64; ++i)
        out[i] = rank * 1000 + i;
    long long position;

    MPI_Info info, view_info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_mostly");
    MPI_Info_set(info, "hdtrace_test", "a&b<c>'d\"e");
    MPI_Info_create(&view_info);
    MPI_Info_set(view_info, "hdtrace_view", "strided");

    /* ---- open, sizes, atomicity, info ---- */
    expect_file_line(data_name, file_size_on_disk(data_name));
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    rc = MPI_File_open(world, data_name, amode, info, &fh);
    tc_check(rc, "MPI_File_open");
    ex_begin("File_open");
    ex_comm("cid", world);
    ex_str("name", data_name);
    ex_int("flags", amode);
    ex_file("fid", data_name);
    ex_info_children(info);
    ex_end();

    rc = MPI_File_preallocate(fh, 4096);
    tc_say("File_preallocate rc=%d", rc);
    ex_begin("File_preallocate");
    ex_file("fid", data_name);
    ex_int("size", 4096);
    ex_end();
    rc = MPI_File_set_size(fh, 8192);
    tc_say("File_set_size rc=%d", rc);
    ex_begin("File_set_size");
    ex_file("fid", data_name);
    ex_int("size", 8192);
    ex_end();
    MPI_Offset file_size = -1;
    rc = MPI_File_get_size(fh, &file_size);
    tc_say("File_get_size rc=%d size=%lld", rc, (long long)file_size);
    ex_begin("File_get_size");
    ex_file("fid", data_name);
    ex_int("size", (long long)file_size);
    ex_end();
    for (int flag = 1; flag >= 0; --flag) {
        rc = MPI_File_set_atomicity(fh, flag);
        tc_say("File_set_atomicity rc=%d", rc);
        ex_begin("File_set_atomicity");
        ex_file("fid", data_name);
        ex_int("flag", flag);
        ex_end();
    }
    rc = MPI_File_set_info(fh, info);
    tc_say("File_set_info rc=%d", rc);
    ex_begin("File_set_info");
    ex_file("fid", data_name);
    ex_info_children(info);
    ex_end();

    /* ---- a contiguous view of ints after a 64-byte header ---- */
    rc = MPI_File_set_view(fh, 64, MPI_INT, MPI_INT, "native", view_info);
    tc_say("File_set_view rc=%d", rc);
    expect_set_view(64, MPI_INT, MPI_INT, view_info);

    /* explicit offsets, in etype units as passed */
    rc = MPI_File_write_at(fh, rank * 8, out, 8, MPI_INT, &status);
    say_io("File_write_at", rc, &status);
    expect_access("File_write_at", data_name, rank * 8, 8, MPI_INT);
    rc = MPI_File_write_at_all(fh, 100 + rank * 4, out + 8, 4, MPI_INT, &status);
    say_io("File_write_at_all", rc, &status);
    expect_access("File_write_at_all", data_name, 100 + rank * 4, 4, MPI_INT);
    MPI_Barrier(world);
    ex_begin("Barrier");
    ex_comm("cid", world);
    ex_end();
    rc = MPI_File_read_at(fh, ((rank + 1) % size) * 8, in, 8, MPI_INT, &status);
    say_io("File_read_at", rc, &status);
    tc_say("data=%ld", tc_checksum(in, 8));
    expect_access("File_read_at", data_name, ((rank + 1) % size) * 8, 8, MPI_INT);
    rc = MPI_File_read_at_all(fh, 100, in, 4 * size, MPI_INT, &status);
    say_io("File_read_at_all", rc, &status);
    tc_say("data=%ld", tc_checksum(in, 4 * size));
    expect_access("File_read_at_all", data_name, 100, 4 * size, MPI_INT);

    /* the individual file pointer: seeks (Set, Cur, End), reads, writes */
    rc = MPI_File_seek(fh, 40 + rank * 16, MPI_SEEK_SET);
    tc_say("File_seek rc=%d", rc);
    expect_seek("File_seek", 40 + rank * 16, "Set", individual_offset());
    positions_done();
    position = offset_before_access();
    rc = MPI_File_write(fh, out, 4, MPI_INT, &status);
    say_io("File_write", rc, &status);
    expect_access("File_write", data_name, position, 4, MPI_INT);
    rc = MPI_File_seek(fh, -4, MPI_SEEK_CUR);
    tc_say("File_seek rc=%d", rc);
    expect_seek("File_seek", -4, "Cur", individual_offset());
    positions_done();
    position = offset_before_access();
    rc = MPI_File_read(fh, in, 4, MPI_INT, &status);
    say_io("File_read", rc, &status);
    tc_say("data=%ld", tc_checksum(in, 4));
    expect_access("File_read", data_name, position, 4, MPI_INT);
    position = offset_before_access();
    rc = MPI_File_write_all(fh, out + 4, 3, MPI_INT, &status);
    say_io("File_write_all", rc, &status);
    expect_access("File_write_all", data_name, position, 3, MPI_INT);
    position = offset_before_access();
    rc = MPI_File_read_all(fh, in, 0, MPI_INT, &status); /* zero count */
    say_io("File_read_all", rc, &status);
    expect_access("File_read_all", data_name, position, 0, MPI_INT);
    rc = MPI_File_seek(fh, -8, MPI_SEEK_END);
    tc_say("File_seek rc=%d", rc);
    expect_seek("File_seek", -8, "End", individual_offset());
    positions_done();
    position = offset_before_access();
    rc = MPI_File_read(fh, in, 8, MPI_INT, &status);
    say_io("File_read at the end", rc, &status);
    expect_access("File_read", data_name, position, 8, MPI_INT);

    /* the shared file pointer */
    rc = MPI_File_seek_shared(fh, 10, MPI_SEEK_SET);
    tc_say("File_seek_shared rc=%d", rc);
    expect_seek("File_seek_shared", 10, "Set", shared_offset());
    positions_done();
    /* Nobody moves the shared pointer before every rank has read it. */
    barrier();
    rc = MPI_File_write_shared(fh, out, 2, MPI_INT, &status);
    say_io("File_write_shared", rc, &status);
    expect_shared("File_write_shared", 2, MPI_INT);
    rc = MPI_File_write_ordered(fh, out, 3, MPI_INT, &status);
    say_io("File_write_ordered", rc, &status);
    expect_shared("File_write_ordered", 3, MPI_INT);
    rc = MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    expect_seek("File_seek_shared", 0, "Set", shared_offset());
    positions_done();
    barrier();
    rc = MPI_File_read_ordered(fh, in, 2, MPI_INT, &status);
    say_io("File_read_ordered", rc, &status);
    expect_shared("File_read_ordered", 2, MPI_INT);
    rc = MPI_File_read_shared(fh, in, 1, MPI_INT, &status);
    say_io("File_read_shared", rc, &status);
    expect_shared("File_read_shared", 1, MPI_INT);

    /* split collectives: the *_end is a <Wait> for the begin's rid */
    const char *label;
    position = offset_before_access();
    rc = MPI_File_write_all_begin(fh, out, 2, MPI_INT);
    tc_say("File_write_all_begin rc=%d", rc);
    label = expect_begin_call("File_write_all_begin", position, 2, MPI_INT, 0);
    rc = MPI_File_write_all_end(fh, out, &status);
    say_io("File_write_all_end", rc, &status);
    expect_end_call(label);
    position = offset_before_access();
    rc = MPI_File_read_all_begin(fh, in, 3, MPI_INT);
    label = expect_begin_call("File_read_all_begin", position, 3, MPI_INT, 0);
    rc = MPI_File_read_all_end(fh, in, &status);
    say_io("File_read_all_end", rc, &status);
    expect_end_call(label);
    rc = MPI_File_write_at_all_begin(fh, 200 + rank * 2, out, 2, MPI_INT);
    label = expect_begin_call("File_write_at_all_begin", 200 + rank * 2, 2, MPI_INT, 0);
    rc = MPI_File_write_at_all_end(fh, out, &status);
    say_io("File_write_at_all_end", rc, &status);
    expect_end_call(label);
    rc = MPI_File_read_at_all_begin(fh, 200, in, 2 * size, MPI_INT);
    /* This begin has the access attributes as well (docs/format/trace.md). */
    {
        static char read_at_label[32];
        snprintf(read_at_label, sizeof read_at_label, "split:%d", ++split_number);
        ex_begin("File_read_at_all_begin");
        ex_file("fid", data_name);
        ex_rid("rid", read_at_label);
        ex_int("offset", 200);
        ex_int("size", bytes(2 * size, MPI_INT));
        ex_int("count", 2 * size);
        ex_type("tid", MPI_INT);
        expect_data(200, 2 * size, MPI_INT, 0);
        ex_end();
        rc = MPI_File_read_at_all_end(fh, in, &status);
        say_io("File_read_at_all_end", rc, &status);
        tc_say("data=%ld", tc_checksum(in, 2 * size));
        expect_end_call(read_at_label);
    }
    /* Ordered begins log the shared pointer read just before the call, in
     * bytes. It is read here before a Barrier, so nobody has moved it yet; by
     * the time the wrapper reads it, lower ranks may have added their parts. */
    position = shared_offset();
    positions_done();
    barrier();
    rc = MPI_File_write_ordered_begin(fh, out, 1, MPI_INT);
    label = expect_begin_call("File_write_ordered_begin", position, 1, MPI_INT,
                              (size - 1) * (long long)sizeof(int));
    rc = MPI_File_write_ordered_end(fh, out, &status);
    say_io("File_write_ordered_end", rc, &status);
    expect_end_call(label);
    position = shared_offset();
    positions_done();
    barrier();
    rc = MPI_File_read_ordered_begin(fh, in, 1, MPI_INT);
    label = expect_begin_call("File_read_ordered_begin", position, 1, MPI_INT,
                              (size - 1) * (long long)sizeof(int));
    rc = MPI_File_read_ordered_end(fh, in, &status);
    say_io("File_read_ordered_end", rc, &status);
    expect_end_call(label);

    /* nonblocking */
    MPI_Request requests[2];
    position = offset_before_access();
    rc = MPI_File_iwrite(fh, out, 5, MPI_INT, &requests[0]);
    tc_say("File_iwrite rc=%d", rc);
    ex_begin("File_iwrite");
    ex_file("fid", data_name);
    ex_rid("rid", "iwrite");
    ex_int("offset", position);
    ex_int("size", bytes(5, MPI_INT));
    ex_int("count", 5);
    ex_type("tid", MPI_INT);
    ex_end();
    rc = MPI_Wait(&requests[0], &status);
    say_io("Wait iwrite", rc, &status);
    ex_begin("Wait");
    ex_for("iwrite");
    ex_end();
    position = offset_before_access();
    rc = MPI_File_iread(fh, in, 2, MPI_INT, &requests[0]);
    ex_begin("File_iread");
    ex_file("fid", data_name);
    ex_rid("rid", "iread");
    ex_int("offset", position);
    ex_int("size", bytes(2, MPI_INT));
    ex_int("count", 2);
    ex_type("tid", MPI_INT);
    ex_end();
    rc = MPI_File_iwrite_at(fh, 300 + rank * 3, out, 3, MPI_INT, &requests[1]);
    ex_begin("File_iwrite_at");
    ex_file("fid", data_name);
    ex_rid("rid", "iwrite_at");
    ex_int("offset", 300 + rank * 3);
    ex_int("size", bytes(3, MPI_INT));
    ex_int("count", 3);
    ex_type("tid", MPI_INT);
    ex_end();
    rc = MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    tc_say("Waitall rc=%d", rc);
    ex_begin("Waitall");
    ex_for("iread");
    ex_for("iwrite_at");
    ex_end();
    rc = MPI_File_iread_at(fh, 300 + rank * 3, in, 3, MPI_INT, &requests[0]);
    ex_begin("File_iread_at");
    ex_file("fid", data_name);
    ex_rid("rid", "iread_at");
    ex_int("offset", 300 + rank * 3);
    ex_int("size", bytes(3, MPI_INT));
    ex_int("count", 3);
    ex_type("tid", MPI_INT);
    ex_end();
    rc = MPI_Wait(&requests[0], &status);
    say_io("Wait iread_at", rc, &status);
    tc_say("data=%ld", tc_checksum(in, 3));
    ex_begin("Wait");
    ex_for("iread_at");
    ex_end();
    rc = MPI_File_iwrite_shared(fh, out, 1, MPI_INT, &requests[0]);
    expect_fid_rid("File_iwrite_shared", "iwrite_shared");
    rc = MPI_File_iread_shared(fh, in, 1, MPI_INT, &requests[1]);
    expect_fid_rid("File_iread_shared", "iread_shared");
    rc = MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    tc_say("Waitall shared rc=%d", rc);
    ex_begin("Waitall");
    ex_for("iwrite_shared");
    ex_for("iread_shared");
    ex_end();

    /* ---- a strided view: every rank owns 2 of each 2*size ints ---- */
    MPI_Datatype blocks, filetype;
    rc = MPI_Type_vector(4, 2, 2 * size, MPI_INT, &blocks);
    ex_begin("Type_vector");
    ex_type("oldTid", MPI_INT);
    ex_end();
    int vector_ints[3] = {4, 2, 2 * size};
    MPI_Datatype int_type = MPI_INT;
    expect_typedef(blocks, "blocks", "MPI_COMBINER_VECTOR", 3, vector_ints, 0, NULL, 1, &int_type);
    MPI_Aint bounds[2] = {0, (MPI_Aint)(4 * 2 * size * sizeof(int))};
    rc = MPI_Type_create_resized(blocks, bounds[0], bounds[1], &filetype);
    ex_plain("Type_create_resized");
    expect_typedef(filetype, "filetype", "MPI_COMBINER_RESIZED", 0, NULL, 2, bounds, 1, &blocks);
    rc = MPI_Type_commit(&filetype);
    ex_begin("Type_commit");
    ex_type("tid", filetype);
    ex_end();
    long long disp = 1024 + rank * 2 * (long long)sizeof(int);
    rc = MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL);
    tc_say("File_set_view strided rc=%d", rc);
    expect_set_view(disp, MPI_INT, filetype, MPI_INFO_NULL);
    position = offset_before_access();
    rc = MPI_File_write_all(fh, out, 6, MPI_INT, &status);
    say_io("File_write_all strided", rc, &status);
    expect_access("File_write_all", data_name, position, 6, MPI_INT);
    rc = MPI_File_seek(fh, 3, MPI_SEEK_SET);
    expect_seek("File_seek", 3, "Set", individual_offset());
    positions_done();
    position = offset_before_access();
    rc = MPI_File_read(fh, in, 2, MPI_INT, &status);
    say_io("File_read strided", rc, &status);
    tc_say("data=%ld", tc_checksum(in, 2));
    expect_access("File_read", data_name, position, 2, MPI_INT);
    rc = MPI_File_write_at(fh, 5, out, 1, MPI_INT, &status);
    say_io("File_write_at strided", rc, &status);
    expect_access("File_write_at", data_name, 5, 1, MPI_INT);

    rc = MPI_File_sync(fh);
    tc_say("File_sync rc=%d", rc);
    ex_begin("File_sync");
    ex_file("fid", data_name);
    ex_end();
    rc = MPI_File_close(&fh);
    tc_say("File_close rc=%d null=%d", rc, fh == MPI_FILE_NULL);
    ex_begin("File_close");
    ex_file("fid", data_name);
    ex_end();
    tc_forget_type(filetype);
    rc = MPI_Type_free(&filetype);
    ex_plain("Type_free");
    tc_forget_type(blocks);
    rc = MPI_Type_free(&blocks);
    ex_plain("Type_free");

    /* ---- reopening keeps the fid ---- */
    rc = MPI_File_open(world, data_name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    ex_begin("File_open");
    ex_comm("cid", world);
    ex_str("name", data_name);
    ex_int("flags", MPI_MODE_RDONLY);
    ex_file("fid", data_name);
    ex_end();
    rc = MPI_File_get_size(fh, &file_size);
    tc_say("File_get_size rc=%d size=%lld", rc, (long long)file_size);
    ex_begin("File_get_size");
    ex_file("fid", data_name);
    ex_int("size", (long long)file_size);
    ex_end();
    rc = MPI_File_read_at(fh, 64, in, 8, MPI_BYTE, &status);
    tc_say("File_read_at bytes rc=%d data=%d", rc, in[0]);
    expect_access("File_read_at", data_name, 64, 8, MPI_BYTE);
    rc = MPI_File_close(&fh);
    ex_begin("File_close");
    ex_file("fid", data_name);
    ex_end();

    /* ---- a name that needs escaping, opened on MPI_COMM_SELF, then deleted ---- */
    char odd_name[64];
    snprintf(odd_name, sizeof odd_name, "odd &<'\">name-%d.dat", rank);
    remove(odd_name);
    expect_file_line(odd_name, 0);
    amode = MPI_MODE_CREATE | MPI_MODE_WRONLY;
    rc = MPI_File_open(MPI_COMM_SELF, odd_name, amode, MPI_INFO_NULL, &fh);
    tc_check(rc, "MPI_File_open odd name");
    ex_begin("File_open");
    ex_comm("cid", MPI_COMM_SELF);
    ex_str("name", odd_name);
    ex_int("flags", amode);
    ex_file("fid", odd_name);
    ex_end();
    rc = MPI_File_close(&fh);
    ex_begin("File_close");
    ex_file("fid", odd_name);
    ex_end();
    rc = MPI_File_delete(odd_name, info);
    tc_say("File_delete odd rc=%d", rc);
    ex_begin("File_delete");
    ex_file("fid", odd_name);
    ex_info_children(info);
    ex_end();

    /* ---- deleting a file never opened gives it a new fid ---- */
    char plain_name[64];
    snprintf(plain_name, sizeof plain_name, "never-opened-%d.dat", rank);
    expect_file_line(plain_name, 0); /* docs/format/trace.md: Size=0 when never opened */
    FILE *plain = fopen(plain_name, "w");
    fputs("0123456789", plain);
    fclose(plain);
    rc = MPI_File_delete(plain_name, MPI_INFO_NULL);
    tc_say("File_delete never opened rc=%d", rc);
    ex_begin("File_delete");
    ex_file("fid", plain_name);
    ex_end();

    /* A file handle no traced File_open returned is written fid='-1'; deleting
     * its name later gives the name a new fid (Size=0). */
    char hidden_name[64];
    snprintf(hidden_name, sizeof hidden_name, "hidden-%d.dat", rank);
    MPI_File hidden;
    tc_check(PMPI_File_open(MPI_COMM_SELF, hidden_name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &hidden),
             "PMPI_File_open");
    rc = MPI_File_write_at(hidden, 0, out, 2, MPI_INT, &status);
    say_io("File_write_at hidden", rc, &status);
    ex_begin("File_write_at");
    ex_int("fid", -1);
    ex_int("offset", 0);
    ex_int("size", bytes(2, MPI_INT));
    ex_int("count", 2);
    ex_type("tid", MPI_INT);
    ex_end();
    rc = MPI_File_close(&hidden);
    tc_say("File_close hidden rc=%d", rc);
    ex_begin("File_close");
    ex_int("fid", -1);
    ex_end();
    expect_file_line(hidden_name, 0);
    rc = MPI_File_delete(hidden_name, MPI_INFO_NULL);
    tc_say("File_delete hidden rc=%d", rc);
    ex_begin("File_delete");
    ex_file("fid", hidden_name);
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
    MPI_Info_free(&info);
    MPI_Info_free(&view_info);
    tc_finalize();
    return 0;
}
