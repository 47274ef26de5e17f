// How a predefined (NAMED) type of a .info goes into the .proj (docs/format/project.md,
// "Predefined types the PIOsim tools know, and the others"): as NAMED when
// the PIOsim tools know its name with its size on the traced machine,
// otherwise as a byte layout over the rank's MPI_BYTE that keeps its MPI name:
//   CONTIGUOUS count=size             data in one block at offset 0
//   STRUCT of byte blocks             data with holes (MPI_SHORT_INT, ...)
// and where the extent E differs from the end of the data, the STRUCT ends
// in an MPI_UB marker at E (a CONTIGUOUS is wrapped into such a STRUCT
// first), as for derived types (PiosimForms.hpp). The outermost element has
// the type's id and name; an inner one gets a new id, unused in the rank,
// an empty name and partOf.
#pragma once

#include <cstdint>
#include <vector>

#include "InfoLine.hpp"
#include "PiosimForms.hpp"
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

// The elements of a Layout type, innermost first (markers the rank needs
// first of all).
std::vector<TypeElement> predefinedLayout(const TypeRecord &type, int64_t byteId,
                                          AddedTypeIds &ids);

}  // namespace hdtrace::merger
