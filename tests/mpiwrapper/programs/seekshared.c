/* seekshared.c: MPI_File_seek_shared with MPI_SEEK_SET, MPI_SEEK_CUR and
 * MPI_SEEK_END, each followed at once by MPI_File_write_shared on every
 * rank, 50 times. The trace must log the shared pointer right
 * after the seek (in bytes), never a value that includes the writes of
 * ranks that returned from the seek first. The view (displacement 64,
 * etype MPI_INT) makes the etype units differ from bytes. The barrier
 * before each seek only makes the pointer before it known to the program;
 * nothing synchronises the seek with the writes that follow it. */
#include "expect.h"

static const char *data_name = "seekshared.dat";
enum { kDisplacement = 64, kRepetitions = 50, kInts = 2 };

static void expect_seek(long long relative, const char *whence, long long etypes) {
    ex_begin("File_seek_shared");
    ex_file("fid", data_name);
    ex_int("relative-offset", relative);
    ex_str("whence", whence);
    ex_int("offset", kDisplacement + 4 * etypes);
    ex_end();
}

static void barrier(void) {
    MPI_Barrier(MPI_COMM_WORLD);
    ex_begin("Barrier");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_end();
}

static void write_shared(MPI_File fh, const int *out) {
    MPI_Status status;
    int rc = MPI_File_write_shared(fh, out, kInts, MPI_INT, &status);
    tc_check(rc, "MPI_File_write_shared");
    ex_begin("File_write_shared");
    ex_file("fid", data_name);
    ex_int("size", kInts * 4);
    ex_int("count", kInts);
    ex_type("tid", MPI_INT);
    ex_end();
}

static void seek(MPI_File fh, long long relative, int whence, const char *name,
                 long long expected) {
    int rc = MPI_File_seek_shared(fh, (MPI_Offset)relative, whence);
    tc_check(rc, "MPI_File_seek_shared");
    expect_seek(relative, name, expected);
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    const int ranks = tc_size();
    int out[kInts];
    for (int i = 0; i < kInts; ++i)
        out[i] = tc_rank() * 100 + i;

    MPI_File fh;
    expect_file_line(data_name, 0);
    const int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    tc_check(MPI_File_open(MPI_COMM_WORLD, data_name, amode, MPI_INFO_NULL, &fh), "open");
    ex_begin("File_open");
    ex_comm("cid", MPI_COMM_WORLD);
    ex_str("name", data_name);
    ex_int("flags", amode);
    ex_file("fid", data_name);
    ex_end();
    barrier(); /* nobody writes before every rank's open read the size */
    tc_check(MPI_File_set_view(fh, kDisplacement, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
             "set_view");
    ex_begin("File_set_view");
    ex_file("fid", data_name);
    ex_int("offset", kDisplacement);
    ex_type("etid", MPI_INT);
    ex_type("filetid", MPI_INT);
    ex_str("representation", "native");
    ex_end();

    for (int repetition = 0; repetition < kRepetitions; ++repetition) {
        /* The pointer in etypes, as every rank knows it after a barrier. */
        long long pointer = 1000 + 40LL * repetition;
        barrier();
        seek(fh, pointer, MPI_SEEK_SET, "Set", pointer);
        write_shared(fh, out);
        pointer += (long long)ranks * kInts;

        barrier();
        seek(fh, 5, MPI_SEEK_CUR, "Cur", pointer + 5);
        write_shared(fh, out);
        pointer += 5 + (long long)ranks * kInts;

        barrier();
        MPI_Offset size = 0;
        tc_check(MPI_File_get_size(fh, &size), "get_size");
        ex_begin("File_get_size");
        ex_file("fid", data_name);
        ex_int("size", (long long)size);
        ex_end();
        const long long end = ((long long)size - kDisplacement) / 4;
        seek(fh, -3, MPI_SEEK_END, "End", end - 3);
        write_shared(fh, out);
    }

    barrier();
    tc_check(MPI_File_close(&fh), "close");
    ex_begin("File_close");
    ex_file("fid", data_name);
    ex_end();
    tc_finalize();
    return 0;
}
