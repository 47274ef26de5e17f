// Hdf5Shapes: the wrappers' bodies, one per shape of hdf5_conf.py. Each
// runs HDF5's own function (`run`, a lambda the generated wrapper passes),
// then, when the call is traced, learns what its shape writes and writes it
// with the call's record. What a call tells is asked of HDF5 only after it
// succeeded, on ids it just accepted, so that HDF5 reports no error of the
// layer's making; a failed call writes what it was given and the error.
// The program gets what HDF5 returned.
#pragma once

#include <hdf5.h>

#include <mpi.h>

#include "Hdf5Answers.hpp"
#include "Hdf5Call.hpp"
#include "Hdf5Objects.hpp"
#include "Hdf5Real.hpp"

namespace hdtracempi {

enum class Forget { No, Yes };

namespace hdf5shape {

inline int64_t typeSize(hid_t type) {
    return TypeSizes::answer(type, [](hid_t id) -> int64_t {
        const auto getSize = hdf5Queries().H5Tget_size;
        const size_t size = getSize ? getSize(id) : 0;
        return size > 0 ? static_cast<int64_t>(size) : -1;  // 0: not a type
    });
}

inline int64_t extentElements(hid_t space) {
    const auto elements = hdf5Queries().H5Sget_simple_extent_npoints;
    const hssize_t count = elements ? elements(space) : -1;
    return count < 0 ? 0 : static_cast<int64_t>(count);
}

inline int64_t selectedElements(hid_t space) {
    const int64_t count = SelectedElements::answer(space, [](hid_t id) -> int64_t {
        const auto selected = hdf5Queries().H5Sget_select_npoints;
        return selected ? static_cast<int64_t>(selected(id)) : -1;
    });
    return count < 0 ? 0 : count;
}

// A dataset's whole extent (H5S_ALL for both of a transfer's spaces).
inline int64_t datasetElements(hid_t dataset) {
    const Hdf5Queries &queries = hdf5Queries();
    if (!queries.H5Dget_space || !queries.H5Sclose) return 0;
    const hid_t space = queries.H5Dget_space(dataset);
    if (space < 0) return 0;
    const int64_t count = extentElements(space);
    queries.H5Sclose(space);
    return count;
}

inline int64_t datasetTypeSize(hid_t dataset) {
    const Hdf5Queries &queries = hdf5Queries();
    if (!queries.H5Dget_type || !queries.H5Tclose) return 0;
    const hid_t type = queries.H5Dget_type(dataset);
    if (type < 0) return 0;
    // Not through the cache: the id is new, and closed at once.
    const int64_t size = queries.H5Tget_size ? static_cast<int64_t>(queries.H5Tget_size(type)) : 0;
    queries.H5Tclose(type);
    return size;
}

inline int64_t attributeElements(hid_t attribute) {
    const Hdf5Queries &queries = hdf5Queries();
    if (!queries.H5Aget_space || !queries.H5Sclose) return 0;
    const hid_t space = queries.H5Aget_space(attribute);
    if (space < 0) return 0;
    const int64_t count = extentElements(space);
    queries.H5Sclose(space);
    return count;
}

inline std::string_view layoutName(hid_t creation) {
    const auto layout = hdf5Queries().H5Pget_layout;
    switch (creation == H5P_DEFAULT || !layout ? H5D_CONTIGUOUS : layout(creation)) {
        case H5D_COMPACT:
            return "compact";
        case H5D_CONTIGUOUS:
            return "contiguous";
        case H5D_CHUNKED:
            return "chunked";
        case H5D_VIRTUAL:
            return "virtual";
        default:
            return "unknown";
    }
}

inline std::string_view transferName(H5FD_mpio_xfer_t mode) {
    return mode == H5FD_MPIO_COLLECTIVE ? "collective" : "independent";
}

inline std::string_view transferOf(hid_t transfer) {
    // The default list transfers independently; every other one holds the
    // mode (the transfer that used it just succeeded, so it is valid).
    if (transfer == H5P_DEFAULT) return transferName(H5FD_MPIO_INDEPENDENT);
    const int64_t mode = TransferModes::answer(transfer, [](hid_t id) -> int64_t {
        const auto get = hdf5Queries().H5Pget_dxpl_mpio;
        H5FD_mpio_xfer_t asked = H5FD_MPIO_INDEPENDENT;
        return get && get(id, &asked) >= 0 ? static_cast<int64_t>(asked) : -1;
    });
    return transferName(mode == H5FD_MPIO_COLLECTIVE ? H5FD_MPIO_COLLECTIVE
                                                     : H5FD_MPIO_INDEPENDENT);
}

}  // namespace hdf5shape

// The common course of a call: HDF5's function, then, when the call is
// traced, what learn(result, values) finds out, written as Record says.
template <class Record, class Run, class Learn>
auto recordAfter(Run run, Learn learn) {
    Hdf5Call call(Record::kName);
    const auto result = run();
    if (!call.active()) return result;
    call.ended();
    Hdf5Values values;
    learn(result, values, *call.context());
    call.write<Record>(result, values);
    return result;
}

// A call that ends an object's or a file's use, or flushes it (H5Fflush,
// H5Fclose, H5Gclose, H5Aclose, H5Dclose): what the layer knows of the id,
// taken before the call (a close makes it invalid) and without asking HDF5
// (it may be invalid already).
template <class Record, class Run>
herr_t onObject(hid_t object, Forget forget, Run run) {
    Hdf5Call call(Record::kName);
    const Hdf5Object known = call.active() ? hdf5Objects().known(object) : Hdf5Object{};
    const herr_t result = run();
    if (forget == Forget::Yes && result >= 0) hdf5Objects().forget(object);
    if (!call.active()) return result;
    call.ended();
    Hdf5Values values;
    values.file = known.file;
    values.dataset = known.dataset;
    call.write<Record>(result, values);
    return result;
}

// H5Fcreate, H5Fopen: the file by the name it was given, after HDF5 opened
// it (so that an MPI-IO open inside recorded its size first).
template <class Record, class Run>
hid_t openFile(const char *name, unsigned flags, Run run) {
    return recordAfter<Record>(run, [&](hid_t result, Hdf5Values &values, ThreadContext &) {
        values.flags = flags;
        if (name) values.file = gRuntime->files.named(name, true);
        if (result >= 0) hdf5Objects().remember(result, Hdf5Object{values.file});
    });
}

// H5Gcreate2, H5Gopen2, H5Acreate2, H5Aopen: a named object in a location.
template <class Record, class Run>
hid_t openNamed(hid_t location, const char *name, Run run) {
    return recordAfter<Record>(run, [&](hid_t result, Hdf5Values &values, ThreadContext &) {
        if (name) values.name = name;
        if (result < 0) return;
        Hdf5Object object;
        object.file = hdf5Objects().find(location).file;
        hdf5Objects().remember(result, object);
        values.file = object.file;
    });
}

// H5Dcreate2, H5Dopen2: a dataset, numbered as the process's next one,
// remembered with its file and the size of its type.
inline void rememberDataset(hid_t dataset, hid_t location, int64_t fileTypeSize,
                            Hdf5Values &values) {
    Hdf5Object object;
    object.file = hdf5Objects().find(location).file;
    object.dataset = hdf5Objects().nextDataset();
    object.fileTypeSize = fileTypeSize;
    hdf5Objects().remember(dataset, object);
    values.file = object.file;
    values.dataset = object.dataset;
    values.fileTypeSize = fileTypeSize;
}

template <class Record, class Run>
hid_t createDataset(hid_t location, const char *name, hid_t type, hid_t space, hid_t creation,
                    Run run) {
    return recordAfter<Record>(run, [&](hid_t result, Hdf5Values &values, ThreadContext &) {
        if (name) values.name = name;
        if (result < 0) return;
        rememberDataset(result, location, hdf5shape::typeSize(type), values);
        values.layout = hdf5shape::layoutName(creation);
        values.elements = hdf5shape::extentElements(space);
    });
}

template <class Record, class Run>
hid_t openDataset(hid_t location, const char *name, Run run) {
    return recordAfter<Record>(run, [&](hid_t result, Hdf5Values &values, ThreadContext &) {
        if (name) values.name = name;
        if (result < 0) return;
        rememberDataset(result, location, hdf5shape::datasetTypeSize(result), values);
    });
}

// H5Dwrite, H5Dread: the selection's elements (the memory space's, else
// the file space's, else the whole dataset's) times the memory type's size.
template <class Record, class Run>
herr_t transferDataset(hid_t dataset, hid_t memoryType, hid_t memorySpace, hid_t fileSpace,
                       hid_t transfer, Run run) {
    return recordAfter<Record>(run, [&](herr_t result, Hdf5Values &values, ThreadContext &) {
        if (result < 0) return;
        Hdf5Object object = hdf5Objects().find(dataset);
        if (object.dataset < 0) {  // opened before tracing began
            object.dataset = hdf5Objects().nextDataset();
            object.fileTypeSize = hdf5shape::datasetTypeSize(dataset);
            hdf5Objects().remember(dataset, object);
        }
        values.file = object.file;
        values.dataset = object.dataset;
        values.fileTypeSize = object.fileTypeSize;
        values.memTypeSize = hdf5shape::typeSize(memoryType);
        const int64_t elements = memorySpace != H5S_ALL ? hdf5shape::selectedElements(memorySpace)
                                 : fileSpace != H5S_ALL ? hdf5shape::selectedElements(fileSpace)
                                                        : hdf5shape::datasetElements(dataset);
        values.size = elements * values.memTypeSize;
        values.transfer = hdf5shape::transferOf(transfer);
    });
}

template <class Record, class Run>
herr_t extendDataset(hid_t dataset, Run run) {
    return recordAfter<Record>(run, [&](herr_t result, Hdf5Values &values, ThreadContext &) {
        if (result < 0) return;
        const Hdf5Object object = hdf5Objects().find(dataset);
        values.file = object.file;
        values.dataset = object.dataset;
        values.elements = hdf5shape::datasetElements(dataset);
    });
}

// H5Awrite, H5Aread: the attribute's elements times the memory type's size.
template <class Record, class Run>
herr_t transferAttribute(hid_t attribute, hid_t memoryType, Run run) {
    return recordAfter<Record>(run, [&](herr_t result, Hdf5Values &values, ThreadContext &) {
        if (result < 0) return;
        Hdf5Object object = hdf5Objects().find(attribute);
        if (object.elements == 0) {  // its first read or write
            object.elements = hdf5shape::attributeElements(attribute);
            hdf5Objects().remember(attribute, object);
        }
        values.file = object.file;
        values.memTypeSize = hdf5shape::typeSize(memoryType);
        values.size = object.elements * values.memTypeSize;
    });
}

template <class Record, class Run>
herr_t setFileAccess(MPI_Comm comm, Run run) {
    return recordAfter<Record>(run, [&](herr_t, Hdf5Values &values, ThreadContext &context) {
        if (const CommRecord *record = context.comm(comm)) values.cid = record->id;
    });
}

template <class Record, class Run>
herr_t setTransferMode(hid_t transfer, H5FD_mpio_xfer_t mode, Run run) {
    const herr_t result =
        recordAfter<Record>(run, [&](herr_t, Hdf5Values &values, ThreadContext &) {
            values.transfer = hdf5shape::transferName(mode);
        });
    TransferModes::changed(transfer);
    return result;
}

// The calls the layer observes without recording them (OBSERVED of
// hdf5_conf.py): HDF5's function, then the answers it may have changed
// forgotten (Hdf5Answers.hpp), whether it succeeded or not.
template <class Answers, class Run>
auto changes(hid_t id, Run run) {
    const auto result = run();
    Answers::changed(id);
    return result;
}

// H5close: every object closed, and ids numbered from the first again.
template <class Run>
herr_t closesLibrary(Run run) {
    const herr_t result = run();
    everyAnswerChanged();
    hdf5Objects().forgetAll();
    return result;
}

}  // namespace hdtracempi
