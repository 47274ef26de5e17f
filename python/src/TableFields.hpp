// Where a column of Project.to_numpy()'s structured rows lies, checked
// against the type the C++ code writes there.
#pragma once

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#include <pybind11/numpy.h>

namespace hdtrace::python {

struct TableField {
    size_t offset = 0;
    size_t size = 0;
};

// The fields of a structured dtype by name (a copy numpy makes at each
// ask: a caller that looks up many fields asks once).
inline pybind11::dict tableFields(const pybind11::dtype &dtype) {
    return dtype.attr("fields");
}

// The field name among fields (tableFields), of numpy kind expectedKind
// ("i", "f", "U") and, unless 0, expectedSize bytes; std::invalid_argument
// otherwise.
inline TableField tableField(const pybind11::dict &fields, const char *name,
                             const char *expectedKind, size_t expectedSize) {
    if (!fields.contains(name))
        throw std::invalid_argument(std::string("table has no column ") + name);
    pybind11::tuple field = fields[name];
    pybind11::dtype type = field[0];
    TableField result{field[1].cast<size_t>(), static_cast<size_t>(type.itemsize())};
    const std::string kind(1, type.kind());
    if (kind != expectedKind || (expectedSize && result.size != expectedSize))
        throw std::invalid_argument(std::string("column ") + name + " has the wrong type");
    return result;
}

// The same, for one field of dtype.
inline TableField tableField(const pybind11::dtype &dtype, const char *name,
                             const char *expectedKind, size_t expectedSize) {
    return tableField(tableFields(dtype), name, expectedKind, expectedSize);
}

template <typename T>
void putField(char *row, const TableField &field, T value) {
    std::memcpy(row + field.offset, &value, sizeof value);
}

template <typename T>
T getField(const char *row, const TableField &field) {
    T value;
    std::memcpy(&value, row + field.offset, sizeof value);
    return value;
}

}  // namespace hdtrace::python
