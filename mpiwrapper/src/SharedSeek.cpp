#include "SharedSeek.hpp"

namespace hdtracempi {
namespace {

thread_local int64_t tLastPosition = -1;

int64_t bytesOf(MPI_File fh, MPI_Offset etypes) {
    MPI_Offset bytes = 0;
    return PMPI_File_get_byte_offset(fh, etypes, &bytes) == MPI_SUCCESS ? bytes : -1;
}

}  // namespace

int seekShared(MPI_File fh, MPI_Offset offset, int whence) {
    const int result = PMPI_File_seek_shared(fh, offset, whence);
    tLastPosition = -1;
    if (result != MPI_SUCCESS) return result;
    if (whence == MPI_SEEK_SET) {
        tLastPosition = bytesOf(fh, offset);
        return result;
    }
    MPI_Offset position = 0;
    if (PMPI_File_get_position_shared(fh, &position) == MPI_SUCCESS)
        tLastPosition = bytesOf(fh, position);
    PMPI_File_seek_shared(fh, 0, MPI_SEEK_CUR);  // nobody moves it before all have read it
    return result;
}

int64_t lastSharedSeekPosition() {
    return tLastPosition;
}

}  // namespace hdtracempi
