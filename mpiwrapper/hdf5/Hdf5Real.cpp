#include "Hdf5Real.hpp"

#include <dlfcn.h>

namespace hdtracempi {

namespace {

template <typename Function>
void find(Function &pointer, const char *name) {
    pointer = reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

Hdf5Queries lookUpHdf5Queries() {
    Hdf5Queries found{};
    find(found.H5Fget_name, "H5Fget_name");
    find(found.H5Sget_select_npoints, "H5Sget_select_npoints");
    find(found.H5Sget_simple_extent_npoints, "H5Sget_simple_extent_npoints");
    find(found.H5Sclose, "H5Sclose");
    find(found.H5Tget_size, "H5Tget_size");
    find(found.H5Tclose, "H5Tclose");
    find(found.H5Dget_space, "H5Dget_space");
    find(found.H5Dget_type, "H5Dget_type");
    find(found.H5Aget_space, "H5Aget_space");
    find(found.H5Pget_layout, "H5Pget_layout");
    find(found.H5Pget_dxpl_mpio, "H5Pget_dxpl_mpio");
    return found;
}

RealHdf5 lookUpRealHdf5() {
    RealHdf5 found{};
    lookUpEach(found, RTLD_NEXT);
    return found;
}

}  // namespace hdtracempi
