/* predefined.c: every predefined datatype of the MPI standard that the MPI
 * library defines (C, C++, Fortran, fixed-size, the pair types, MPI_LB and
 * MPI_UB where present) used in a file view (etype and filetype) and in a
 * transfer (MPI_File_write_at of two elements). For each it prints
 *   TYPE <macro> <MPI_Type_get_name> <MPI_Type_c2f> <size> <extent> <lb> <use>
 * (use: "view", or "transfer" (MPI_Sendrecv to oneself) for MPI_LB/MPI_UB,
 * whose size is 0 and which cannot be an etype, and on MPICH for the types
 * with holes, which its ROMIO cannot access in a file), or SKIP <macro> <why> for a name the
 * library defines as MPI_DATATYPE_NULL or with size 0 (a type it does not support). The test
 * (test_piosim_types.py) compares these with the .info, the .proj and the
 * Python reader. Run on one rank; argv[1] is the file to write. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static MPI_File fh;
static char buffer[1024];

#if !defined(OPEN_MPI) || (defined(OMPI_ENABLE_MPI1_COMPAT) && OMPI_ENABLE_MPI1_COMPAT)
#define HAVE_LB_UB 1
#endif

#if defined(MPICH) || defined(HAVE_LB_UB)
/* A transfer to oneself of two elements (MPI_Sendrecv on MPI_COMM_SELF). */
static void transfer(const char *macro, MPI_Datatype type) {
    int size = 0;
    MPI_Aint lb = 0, extent = 0;
    char name[MPI_MAX_OBJECT_NAME] = "";
    int length = 0;
    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_name(type, name, &length);
    static char in[1024];
    MPI_Sendrecv(buffer, 2, type, 0, 7, in, 2, type, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    printf("TYPE %s %s %d %d %ld %ld transfer\n", macro, name, MPI_Type_c2f(type), size,
           (long)extent, (long)lb);
}
#endif

static void add(const char *macro, MPI_Datatype type) {
    if (type == MPI_DATATYPE_NULL) {
        printf("SKIP %s null\n", macro);
        return;
    }
    int size = 0;
    MPI_Aint lb = 0, extent = 0;
    char name[MPI_MAX_OBJECT_NAME] = "";
    int length = 0;
    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_name(type, name, &length);
    if (size == 0) {
        printf("SKIP %s size0\n", macro);
        return;
    }
#ifdef MPICH
    /* MPICH's ROMIO fails on a type whose data has holes (MPI_DOUBLE_INT,
     * MPI_SHORT_INT, ...) in any file access, also untraced: it calls
     * MPI_Type_get_contents on the named type (a fatal error). */
    if ((MPI_Aint)size != extent) {
        transfer(macro, type);
        return;
    }
#endif
    MPI_Status status;
    if (MPI_File_set_view(fh, 0, type, type, "native", MPI_INFO_NULL) != MPI_SUCCESS ||
        MPI_File_write_at(fh, 0, buffer, 2, type, &status) != MPI_SUCCESS) {
        printf("FAILED %s\n", macro);
        return;
    }
    printf("TYPE %s %s %d %d %ld %ld view\n", macro, name, MPI_Type_c2f(type), size, (long)extent,
           (long)lb);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: predefined FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < sizeof buffer; ++i)
        buffer[i] = (char)i;
    MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);

    /* C and C++ */
#ifdef MPI_CHAR
    add("MPI_CHAR", MPI_CHAR);
#endif
#ifdef MPI_SHORT
    add("MPI_SHORT", MPI_SHORT);
#endif
#ifdef MPI_INT
    add("MPI_INT", MPI_INT);
#endif
#ifdef MPI_LONG
    add("MPI_LONG", MPI_LONG);
#endif
#ifdef MPI_LONG_LONG_INT
    add("MPI_LONG_LONG_INT", MPI_LONG_LONG_INT);
#endif
#ifdef MPI_LONG_LONG
    add("MPI_LONG_LONG", MPI_LONG_LONG);
#endif
#ifdef MPI_SIGNED_CHAR
    add("MPI_SIGNED_CHAR", MPI_SIGNED_CHAR);
#endif
#ifdef MPI_UNSIGNED_CHAR
    add("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR);
#endif
#ifdef MPI_UNSIGNED_SHORT
    add("MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT);
#endif
#ifdef MPI_UNSIGNED
    add("MPI_UNSIGNED", MPI_UNSIGNED);
#endif
#ifdef MPI_UNSIGNED_LONG
    add("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG);
#endif
#ifdef MPI_UNSIGNED_LONG_LONG
    add("MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG);
#endif
#ifdef MPI_FLOAT
    add("MPI_FLOAT", MPI_FLOAT);
#endif
#ifdef MPI_DOUBLE
    add("MPI_DOUBLE", MPI_DOUBLE);
#endif
#ifdef MPI_LONG_DOUBLE
    add("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE);
#endif
#ifdef MPI_WCHAR
    add("MPI_WCHAR", MPI_WCHAR);
#endif
#ifdef MPI_C_BOOL
    add("MPI_C_BOOL", MPI_C_BOOL);
#endif
#ifdef MPI_INT8_T
    add("MPI_INT8_T", MPI_INT8_T);
#endif
#ifdef MPI_INT16_T
    add("MPI_INT16_T", MPI_INT16_T);
#endif
#ifdef MPI_INT32_T
    add("MPI_INT32_T", MPI_INT32_T);
#endif
#ifdef MPI_INT64_T
    add("MPI_INT64_T", MPI_INT64_T);
#endif
#ifdef MPI_UINT8_T
    add("MPI_UINT8_T", MPI_UINT8_T);
#endif
#ifdef MPI_UINT16_T
    add("MPI_UINT16_T", MPI_UINT16_T);
#endif
#ifdef MPI_UINT32_T
    add("MPI_UINT32_T", MPI_UINT32_T);
#endif
#ifdef MPI_UINT64_T
    add("MPI_UINT64_T", MPI_UINT64_T);
#endif
#ifdef MPI_AINT
    add("MPI_AINT", MPI_AINT);
#endif
#ifdef MPI_COUNT
    add("MPI_COUNT", MPI_COUNT);
#endif
#ifdef MPI_OFFSET
    add("MPI_OFFSET", MPI_OFFSET);
#endif
#ifdef MPI_C_COMPLEX
    add("MPI_C_COMPLEX", MPI_C_COMPLEX);
#endif
#ifdef MPI_C_FLOAT_COMPLEX
    add("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX);
#endif
#ifdef MPI_C_DOUBLE_COMPLEX
    add("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX);
#endif
#ifdef MPI_C_LONG_DOUBLE_COMPLEX
    add("MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX);
#endif
#ifdef MPI_BYTE
    add("MPI_BYTE", MPI_BYTE);
#endif
#ifdef MPI_PACKED
    add("MPI_PACKED", MPI_PACKED);
#endif
#ifdef MPI_CXX_BOOL
    add("MPI_CXX_BOOL", MPI_CXX_BOOL);
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
    add("MPI_CXX_FLOAT_COMPLEX", MPI_CXX_FLOAT_COMPLEX);
#endif
#ifdef MPI_CXX_DOUBLE_COMPLEX
    add("MPI_CXX_DOUBLE_COMPLEX", MPI_CXX_DOUBLE_COMPLEX);
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
    add("MPI_CXX_LONG_DOUBLE_COMPLEX", MPI_CXX_LONG_DOUBLE_COMPLEX);
#endif
    /* Fortran */
#ifdef MPI_CHARACTER
    add("MPI_CHARACTER", MPI_CHARACTER);
#endif
#ifdef MPI_LOGICAL
    add("MPI_LOGICAL", MPI_LOGICAL);
#endif
#ifdef MPI_INTEGER
    add("MPI_INTEGER", MPI_INTEGER);
#endif
#ifdef MPI_REAL
    add("MPI_REAL", MPI_REAL);
#endif
#ifdef MPI_DOUBLE_PRECISION
    add("MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION);
#endif
#ifdef MPI_COMPLEX
    add("MPI_COMPLEX", MPI_COMPLEX);
#endif
#ifdef MPI_DOUBLE_COMPLEX
    add("MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX);
#endif
#ifdef MPI_INTEGER1
    add("MPI_INTEGER1", MPI_INTEGER1);
#endif
#ifdef MPI_INTEGER2
    add("MPI_INTEGER2", MPI_INTEGER2);
#endif
#ifdef MPI_INTEGER4
    add("MPI_INTEGER4", MPI_INTEGER4);
#endif
#ifdef MPI_INTEGER8
    add("MPI_INTEGER8", MPI_INTEGER8);
#endif
#ifdef MPI_INTEGER16
    add("MPI_INTEGER16", MPI_INTEGER16);
#endif
#ifdef MPI_REAL2
    add("MPI_REAL2", MPI_REAL2);
#endif
#ifdef MPI_REAL4
    add("MPI_REAL4", MPI_REAL4);
#endif
#ifdef MPI_REAL8
    add("MPI_REAL8", MPI_REAL8);
#endif
#ifdef MPI_REAL16
    add("MPI_REAL16", MPI_REAL16);
#endif
#ifdef MPI_COMPLEX4
    add("MPI_COMPLEX4", MPI_COMPLEX4);
#endif
#ifdef MPI_COMPLEX8
    add("MPI_COMPLEX8", MPI_COMPLEX8);
#endif
#ifdef MPI_COMPLEX16
    add("MPI_COMPLEX16", MPI_COMPLEX16);
#endif
#ifdef MPI_COMPLEX32
    add("MPI_COMPLEX32", MPI_COMPLEX32);
#endif
#ifdef MPI_LOGICAL1
    add("MPI_LOGICAL1", MPI_LOGICAL1);
#endif
#ifdef MPI_LOGICAL2
    add("MPI_LOGICAL2", MPI_LOGICAL2);
#endif
#ifdef MPI_LOGICAL4
    add("MPI_LOGICAL4", MPI_LOGICAL4);
#endif
#ifdef MPI_LOGICAL8
    add("MPI_LOGICAL8", MPI_LOGICAL8);
#endif
    /* pairs (MINLOC/MAXLOC) */
#ifdef MPI_FLOAT_INT
    add("MPI_FLOAT_INT", MPI_FLOAT_INT);
#endif
#ifdef MPI_DOUBLE_INT
    add("MPI_DOUBLE_INT", MPI_DOUBLE_INT);
#endif
#ifdef MPI_LONG_INT
    add("MPI_LONG_INT", MPI_LONG_INT);
#endif
#ifdef MPI_2INT
    add("MPI_2INT", MPI_2INT);
#endif
#ifdef MPI_SHORT_INT
    add("MPI_SHORT_INT", MPI_SHORT_INT);
#endif
#ifdef MPI_LONG_DOUBLE_INT
    add("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT);
#endif
#ifdef MPI_2REAL
    add("MPI_2REAL", MPI_2REAL);
#endif
#ifdef MPI_2DOUBLE_PRECISION
    add("MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION);
#endif
#ifdef MPI_2INTEGER
    add("MPI_2INTEGER", MPI_2INTEGER);
#endif
#ifdef MPI_2COMPLEX
    add("MPI_2COMPLEX", MPI_2COMPLEX);
#endif
#ifdef MPI_2DOUBLE_COMPLEX
    add("MPI_2DOUBLE_COMPLEX", MPI_2DOUBLE_COMPLEX);
#endif

    MPI_File_close(&fh);
#ifdef HAVE_LB_UB
    transfer("MPI_LB", MPI_LB);
    transfer("MPI_UB", MPI_UB);
#else
    printf("SKIP MPI_LB removed\nSKIP MPI_UB removed\n");
#endif
    MPI_Finalize();
    return 0;
}
