#include "FortranSupport.hpp"

#include <cstdio>
#include <cstdlib>

// Open MPI's Fortran sentinels: common blocks, one per name mangling the
// library was built for. Weak, so that a library (or a program without
// Fortran) that lacks one leaves its address null.
extern "C" {
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
}

namespace hdtracempi::fortran {

namespace {

bool isOneOf(const void *address, const int *a, const int *b, const int *c, const int *d) {
    return address && (address == a || address == b || address == c || address == d);
}

}  // namespace

const void *buffer(const void *fortranAddress) {
    if (isOneOf(fortranAddress, &mpi_fortran_in_place_, &mpi_fortran_in_place,
                &mpi_fortran_in_place__, &MPI_FORTRAN_IN_PLACE)) {
        return MPI_IN_PLACE;
    }
    if (isOneOf(fortranAddress, &mpi_fortran_bottom_, &mpi_fortran_bottom, &mpi_fortran_bottom__,
                &MPI_FORTRAN_BOTTOM)) {
        return MPI_BOTTOM;
    }
    return fortranAddress;
}

String::String(const char *text, size_t length) {
    size_t begin = 0;
    while (begin < length && text[begin] == ' ')
        ++begin;
    size_t end = length;
    while (end > begin && text[end - 1] == ' ')
        --end;
    text_.assign(text + begin, end - begin);
}

void missingBinding(const char *name) {
    std::fprintf(stderr, "hdtracempi: error: the MPI library has no Fortran binding %s\n", name);
    std::abort();
}

}  // namespace hdtracempi::fortran
