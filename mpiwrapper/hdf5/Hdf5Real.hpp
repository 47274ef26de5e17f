// Hdf5Real: HDF5's own functions, which the HDF5 layer's definitions of the
// same names (generated from hdf5_conf.py) call, and the queries the layer
// makes of HDF5 once a call returned. Found with dlsym(RTLD_NEXT), in the
// program (libhdtracempi.a linked before HDF5) as when preloaded, at the
// first HDF5 call; the wrapper does not link HDF5 itself.
#pragma once

#include <hdf5.h>

#include "Hdf5Functions.hpp"  // generated: struct RealHdf5, lookUpEach

namespace hdtracempi {

// What the layer asks HDF5 about the objects a call used.
struct Hdf5Queries {
    ssize_t (*H5Fget_name)(hid_t, char *, size_t);
    hssize_t (*H5Sget_select_npoints)(hid_t);
    hssize_t (*H5Sget_simple_extent_npoints)(hid_t);
    herr_t (*H5Sclose)(hid_t);
    size_t (*H5Tget_size)(hid_t);
    herr_t (*H5Tclose)(hid_t);
    hid_t (*H5Dget_space)(hid_t);
    hid_t (*H5Dget_type)(hid_t);
    hid_t (*H5Aget_space)(hid_t);
    H5D_layout_t (*H5Pget_layout)(hid_t);
    herr_t (*H5Pget_dxpl_mpio)(hid_t, H5FD_mpio_xfer_t *);
};

// Each looked up with dlsym; a pointer HDF5 lacks stays null.
RealHdf5 lookUpRealHdf5();
Hdf5Queries lookUpHdf5Queries();

// Resolved once, thread-safely. Inline, so that a wrapper's every call
// tests the guard in place instead of calling a function to do it.
inline const RealHdf5 &realHdf5() {
    static const RealHdf5 real = lookUpRealHdf5();
    return real;
}
inline const Hdf5Queries &hdf5Queries() {
    static const Hdf5Queries queries = lookUpHdf5Queries();
    return queries;
}

}  // namespace hdtracempi
