#include "Hdf5Objects.hpp"

#include <vector>

#include "FileRegistry.hpp"
#include "Hdf5Real.hpp"
#include "Runtime.hpp"

namespace hdtracempi {

void Hdf5Objects::remember(hid_t id, const Hdf5Object &object) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[id] = object;
}

Hdf5Object Hdf5Objects::find(hid_t id) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto found = objects_.find(id); found != objects_.end()) return found->second;
    }
    Hdf5Object object;
    object.file = fileOfObject(id);
    return object;
}

Hdf5Object Hdf5Objects::known(hid_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = objects_.find(id);
    return found == objects_.end() ? Hdf5Object{} : found->second;
}

void Hdf5Objects::forget(hid_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_.erase(id);
}

Hdf5Objects &hdf5Objects() {
    // Never destroyed: HDF5 closes its objects in an exit handler.
    static Hdf5Objects *objects = new Hdf5Objects;
    return *objects;
}

const FileRecord *fileOfObject(hid_t id) {
    const auto getName = hdf5Queries().H5Fget_name;
    if (!getName) return nullptr;
    const ssize_t length = getName(id, nullptr, 0);
    if (length <= 0) return nullptr;
    std::vector<char> name(static_cast<size_t>(length) + 1);
    if (getName(id, name.data(), name.size()) != length) return nullptr;
    return gRuntime->files.named(name.data(), true);
}

}  // namespace hdtracempi
