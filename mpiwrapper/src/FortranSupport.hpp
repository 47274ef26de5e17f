// FortranSupport: what the generated Fortran entry points (scripts/
// generate-fortran-wrappers.py) need to build C views of Fortran arguments.
// The MPI work itself stays with the library's Fortran binding; these views
// only feed the same hooks and attributes as the C wrappers.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include <mpi.h>

// Whether this build defines Fortran entry points. MPICH's Fortran bindings
// call the C MPI_ functions, so the C wrappers already see every Fortran
// call there; Open MPI's call PMPI_ and need entry points of their own.
#if defined(MPICH_VERSION)
#define HDTRACE_FORTRAN_ENTRY_POINTS 0
#else
#define HDTRACE_FORTRAN_ENTRY_POINTS 1
#endif

namespace hdtracempi::fortran {

static_assert(sizeof(MPI_Fint) == sizeof(int), "a Fortran INTEGER is a C int here");

// Room for a Fortran status of any library (Open MPI 6, MPICH 5 INTEGERs).
constexpr int kStatusSize = 16;
static_assert(sizeof(MPI_Status) <= kStatusSize * sizeof(MPI_Fint), "kStatusSize too small");

// The C MPI_IN_PLACE / MPI_BOTTOM for the Fortran ones, else the address.
const void *buffer(const void *fortranAddress);
inline void *buffer(void *fortranAddress) {
    return const_cast<void *>(buffer(static_cast<const void *>(fortranAddress)));
}

// Whether a Fortran status argument is MPI_STATUS_IGNORE.
inline bool isStatusIgnore(const MPI_Fint *status) { return status == MPI_F_STATUS_IGNORE; }

#if !HDTRACE_FORTRAN_ENTRY_POINTS
// MPICH's mpi_f08 status (TYPE(MPI_Status)): its sentinel, and the C status,
// which has the same five fields in the same order.
inline bool isF08StatusIgnore(const MPI_Fint *status) {
    return static_cast<const void *>(status) == static_cast<const void *>(MPI_F08_STATUS_IGNORE);
}
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPICH's f08 status is the C one");
inline int f08StatusToC(const MPI_Fint *status, MPI_Status *cStatus) {
    std::memcpy(cStatus, status, sizeof *cStatus);
    return MPI_SUCCESS;
}
// MPICH 4.0's mpi_f08 MPI_Waitany / Waitsome / Testany / Testsome return the
// C index (0-based), unlike its mpif.h binding and the standard: taken as the
// library returns it, so that the trace names the request that completed.
inline int mpichF08Index(MPI_Fint index) { return index; }
#endif

// Fortran output index (1-based) as C's (0-based); MPI_UNDEFINED stays.
inline int zeroBased(MPI_Fint index) {
    return index == MPI_UNDEFINED ? index : index - 1;
}

// A CHARACTER argument as C text: without the blanks around it, as the
// MPI libraries read file names and data representations.
class String {
  public:
    String(const char *text, size_t length);
    const char *c_str() const { return text_.c_str(); }

  private:
    std::string text_;
};

// A C array converted from a Fortran one, on the stack when small.
template <class T>
class Scratch {
  public:
    explicit Scratch(int size) : size_(size > 0 ? size : 0) {
        if (size_ > kInline) heap_.reset(new T[size_]);
    }
    int size() const { return size_; }
    T *data() { return heap_ ? heap_.get() : inline_; }
    T &operator[](int i) { return data()[i]; }

  private:
    static constexpr int kInline = 16;
    int size_;
    T inline_[kInline];
    std::unique_ptr<T[]> heap_;
};

// A Fortran entry whose library binding is missing: the program could not
// have been linked against this library without it.
[[noreturn]] void missingBinding(const char *name);

}  // namespace hdtracempi::fortran
