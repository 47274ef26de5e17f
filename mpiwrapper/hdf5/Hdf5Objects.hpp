// Hdf5Objects: what the layer remembers of the HDF5 objects a traced call
// created or opened (files, groups, datasets, attributes), by their id
// while they are open: the file they are in, a dataset's number and the
// size of its type, an attribute's elements. Later calls on an object find
// it here without asking HDF5; an object opened before tracing began, or
// by an untraced call, is asked about once.
#pragma once

#include <atomic>
#include <cstdint>
#include <hdf5.h>
#include <mutex>
#include <string>
#include <unordered_map>

namespace hdtracempi {

struct FileRecord;

struct Hdf5Object {
    const FileRecord *file = nullptr;  // nullptr: not known
    int64_t dataset = -1;              // a dataset's number in this process
    int64_t fileTypeSize = 0;          // a dataset's type, in the file
    int64_t elements = 0;              // an attribute's (its dataspace's)
};

class Hdf5Objects {
  public:
    void remember(hid_t id, const Hdf5Object &object);
    // The object's entry; when there is none, one made from what HDF5 says
    // of the id: only for an id a call just accepted, as HDF5 reports an
    // error on stderr for one it does not know.
    Hdf5Object find(hid_t id);
    // The object's entry, or an empty one: for an id that may be invalid.
    Hdf5Object known(hid_t id);
    void forget(hid_t id);
    // After H5close, which closed every object and numbers ids anew.
    void forgetAll();
    int64_t nextDataset() { return nextDataset_.fetch_add(1, std::memory_order_relaxed); }

  private:
    // Each thread's last object found, valid while no object was remembered
    // or forgotten since (generation_): a loop of transfers on one dataset
    // takes no lock.
    struct LastFound {
        hid_t id = -1;
        uint64_t generation = 0;
        Hdf5Object object;
    };
    static thread_local LastFound tLastFound;
    std::atomic<uint64_t> generation_{1};
    std::mutex mutex_;
    std::unordered_map<hid_t, Hdf5Object> objects_;
    std::atomic<int64_t> nextDataset_{0};
};

Hdf5Objects &hdf5Objects();

// The record of the file an object is in (H5Fget_name), made when its name
// was never seen; nullptr when HDF5 cannot name it.
const FileRecord *fileOfObject(hid_t id);

}  // namespace hdtracempi
