#include "TableMemory.hpp"

#include <cstddef>
#include <limits>
#include <stdexcept>

#include <pybind11/numpy.h>

#include <hdtrace/reader/ColumnMemory.hpp>

namespace py = pybind11;

namespace hdtrace::python {
namespace {

// A one-dimensional array of rows elements of dtype, left uninitialised as
// numpy.empty leaves it; the array owns its memory through a capsule.
py::array emptyArray(py::ssize_t rows, const py::object &dtypeLike) {
    const py::dtype dtype = py::dtype::from_args(dtypeLike);
    if (rows < 0) throw std::invalid_argument("rows must not be negative");
    // Uninitialised memory is no Python object.
    if (dtype.attr("hasobject").cast<bool>())
        throw std::invalid_argument("empty_array does not hold Python objects");
    const auto itemSize = static_cast<size_t>(dtype.itemsize());
    const auto count = static_cast<size_t>(rows);
    if (itemSize != 0 && count > std::numeric_limits<size_t>::max() / itemSize)
        throw std::bad_alloc();
    // Never zero bytes: the capsule needs an address to give back.
    const size_t bytes = count * itemSize > 0 ? count * itemSize : 1;
    void *memory = reader::allocateColumnBytes(bytes);
    // Every row of the table is written right away.
    reader::faultInColumnBytes(memory, bytes);
    struct Block {
        void *memory;
        size_t bytes;
    };
    py::capsule owner;
    try {
        owner = py::capsule(new Block{memory, bytes}, [](void *pointer) {
            auto *block = static_cast<Block *>(pointer);
            reader::freeColumnBytes(block->memory, block->bytes);
            delete block;
        });
    } catch (...) {
        reader::freeColumnBytes(memory, bytes);
        throw;
    }
    return py::array(dtype, {rows}, {static_cast<py::ssize_t>(itemSize)}, memory, owner);
}

}  // namespace

void bindTableMemory(py::module_ &module) {
    module.def("empty_array", &emptyArray, py::arg("rows"), py::arg("dtype"),
               "numpy.empty((rows,), dtype) in the reader's column memory: the memory of "
               "freed arrays is reused without being zeroed again.");
}

}  // namespace hdtrace::python
