// std::vectors handed to numpy without a copy: the array owns the vector.
#pragma once

#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace hdtrace::python {

template <typename T, typename Allocator>
pybind11::array_t<T> toArray(std::vector<T, Allocator> &&values) {
    using Vector = std::vector<T, Allocator>;
    auto *owned = new Vector(std::move(values));
    pybind11::capsule owner(owned, [](void *pointer) { delete static_cast<Vector *>(pointer); });
    return pybind11::array_t<T>(static_cast<pybind11::ssize_t>(owned->size()), owned->data(),
                                owner);
}

}  // namespace hdtrace::python
