/*
 * hdtracempi.h: what libhdtracempi adds to the MPI interface.
 *
 * Link libhdtracempi.a after the program's objects (or preload
 * libhdtracempi.so) and every traced MPI call is logged; see
 * docs/format/ for what is written.
 */
#ifndef HDTRACE_HDTRACEMPI_H
#define HDTRACE_HDTRACEMPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Logs <hdT_Test_nested depth='depth'> and, while depth > 0, calls itself
 * with depth - 1 inside that call: nested calls of known depth, to check
 * HDTRACE_NESTED. Returns MPI_SUCCESS. */
int MPI_hdT_Test_nested(int depth);

#ifdef __cplusplus
}
#endif

#endif /* HDTRACE_HDTRACEMPI_H */
