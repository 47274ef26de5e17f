// How a predefined (NAMED) type of a .info goes into the .proj (docs/format/project.md,
// "Predefined types the PIOsim tools know, and the others"): as NAMED when
// the PIOsim tools know its name with its size on the traced machine,
// otherwise as a byte layout over the rank's MPI_BYTE that keeps its MPI name:
//   CONTIGUOUS count=size             data in one block at offset 0
//   STRUCT of byte blocks             data with holes (MPI_SHORT_INT, ...)
//   RESIZED lowerBound=0 extend=E     around either, where the extent E
//                                     differs from the end of the data
// The outermost element has the type's id and name; the inner one gets a
// new id, unused in the rank, and an empty name.
#pragma once

#include <cstdint>
#include <vector>

#include "InfoLine.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {

enum class PredefinedForm {
    Named,   // written NAMED
    Layout,  // written as a byte layout of MPI_BYTE
    // A line of an older trace (no size) whose name the tools do not know, or
    // MPI_LONG, whose size they cannot assume: written NAMED as before; the
    // project check then refuses it (the trace must be written again).
    Unknown,
};

// For a type whose combiner is NAMED.
PredefinedForm predefinedForm(const TypeRecord &type);

// The elements of a Layout type, innermost first. nextFreeId: the next id
// not used by any type of the rank; advanced for each inner element.
std::vector<TypeElement> predefinedLayout(const TypeRecord &type, int64_t byteId,
                                          int64_t &nextFreeId);

}  // namespace hdtrace::merger
