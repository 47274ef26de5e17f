#include "Hdf5Objects.hpp"

#include <vector>

#include "FileRegistry.hpp"
#include "Hdf5Real.hpp"
#include "Runtime.hpp"

namespace hdtracempi {

thread_local Hdf5Objects::LastFound Hdf5Objects::tLastFound;

void Hdf5Objects::remember(hid_t id, const Hdf5Object &object) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[id] = object;
    generation_.fetch_add(1, std::memory_order_release);
}

Hdf5Object Hdf5Objects::find(hid_t id) {
    const uint64_t generation = generation_.load(std::memory_order_acquire);
    if (tLastFound.id == id && tLastFound.generation == generation) return tLastFound.object;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto found = objects_.find(id); found != objects_.end()) {
            tLastFound = LastFound{id, generation, found->second};
            return found->second;
        }
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
    generation_.fetch_add(1, std::memory_order_release);
}

void Hdf5Objects::forgetAll() {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_.clear();
    generation_.fetch_add(1, std::memory_order_release);
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
