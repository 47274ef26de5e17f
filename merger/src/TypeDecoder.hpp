// Decodes a .info Type line (the three arrays of MPI_Type_get_contents) into
// its element of the project description (docs/format/project.md, "Datatypes").
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "InfoLine.hpp"

namespace hdtrace::merger {

struct TypeElement {
    std::string tag;
    std::vector<std::pair<const char *, std::string>> attributes;
    std::vector<TypeElement> children;
};

class TypeDecodeError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Throws TypeDecodeError when the arrays do not fit the combiner, or a
// SUBARRAY/DARRAY constant is none of the library's values.
TypeElement decodeType(const TypeRecord &type, const MpiConstants &constants);

// Throws what decodeType() throws, without forming the element: for a type
// written in another form.
void checkTypeArrays(const TypeRecord &type, const MpiConstants &constants);

}  // namespace hdtrace::merger
