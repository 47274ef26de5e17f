// SharedSeek: MPI_File_seek_shared with a race-free record of where it left
// the shared file pointer (docs/format/trace.md, "How values are written").
//
// The call is collective and every rank passes the same offset and whence,
// so the pointer after it is the same on every rank. Read after the call,
// though, it may already include shared-pointer accesses of ranks that
// returned earlier. So:
//  - MPI_SEEK_SET: the position is the argument, converted to bytes through
//    the view; nothing is read.
//  - MPI_SEEK_CUR, MPI_SEEK_END: each rank reads the pointer right after the
//    call, then all take part in a second, empty seek_shared (offset 0,
//    MPI_SEEK_CUR), which moves nothing but keeps every rank from touching
//    the pointer until all have read it.
// The wrapper calls this instead of PMPI_File_seek_shared also on untraced
// threads and while tracing is paused, so that every rank makes the same
// collective calls.
#pragma once

#include <cstdint>

#include <mpi.h>

namespace hdtracempi {

int seekShared(MPI_File fh, MPI_Offset offset, int whence);
// The shared pointer in bytes after this thread's last seekShared; -1 when
// that call failed or MPI could not say.
int64_t lastSharedSeekPosition();

}  // namespace hdtracempi
