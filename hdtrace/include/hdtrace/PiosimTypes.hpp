// The predefined datatypes that the PIOsim tools (simulator, viewer and
// their Java trace reader) know by name, with the size they assume
// (docs/format/project.md, "Predefined types").
// A predefined type is written NAMED in a .proj only when its MPI name is
// one of these and the size is its size on the traced machine; every other
// predefined type is written as a byte layout. The wrapper and the merger
// both decide by this table, and python/hdtrace/check.py reads it from _core.
#pragma once

#include <cstdint>
#include <string_view>

namespace hdtrace {

struct PiosimNamedType {
    std::string_view name;
    int64_t size;
};

inline constexpr PiosimNamedType kPiosimNamedTypes[] = {
    {"MPI_BYTE", 1},      {"MPI_CHAR", 1},   {"MPI_UNSIGNED_CHAR", 1},
    {"MPI_PACKED", 1},    {"MPI_INT", 4},    {"MPI_INTEGER", 4},
    {"MPI_FLOAT", 4},     {"MPI_DOUBLE", 8}, {"MPI_DOUBLE_PRECISION", 8},
    {"MPI_LONG_LONG", 8}, {"MPI_LB", 0},     {"MPI_UB", 0},
    {"MPI_LONG", 4},
};

// The elements of <Datatypes> that the tools read completely. Their reader
// maps an element to a type by its name and refuses the whole project on a
// name it does not know; a few more names it accepts, but reads as a
// placeholder of size 0 (kPiosimPlaceholderForms), so that the simulator
// moves no bytes for them. The merger writes every type in these five.
inline constexpr std::string_view kPiosimFullForms[] = {"NAMED", "CONTIGUOUS", "VECTOR", "STRUCT",
                                                        "SUBARRAY"};
inline constexpr std::string_view kPiosimPlaceholderForms[] = {"HINDEXED", "HVECTOR",
                                                               "INDEXED_BLOCK"};

// The tools read these attributes of a type element and its children as
// 32-bit signed integers, and refuse the project on any other (ids they
// read as 64 bits).
inline constexpr std::string_view kPiosimIntAttributes[] = {
    "count", "blocklength", "stride", "displacement", "blocklen", "size", "subsize", "start"};
inline constexpr int64_t kPiosimLargestNumber = 2147483647;

// Whether the tools read the predefined type `name` of `size` bytes as NAMED.
inline bool piosimKnowsNamed(std::string_view name, int64_t size) {
    for (const PiosimNamedType &known : kPiosimNamedTypes)
        if (known.name == name) return known.size == size;
    return false;
}

}  // namespace hdtrace
