// How a derived datatype goes into the .proj so that the PIOsim tools read
// it in full: in the five element forms their reader knows (NAMED,
// CONTIGUOUS, VECTOR, STRUCT, SUBARRAY; hdtrace/PiosimTypes.hpp), with the
// size, extent and byte layout MPI reported for it. The rules, combiner by
// combiner, are in docs/format (the project file, "Datatypes"):
//   DUP                        CONTIGUOUS of one
//   CONTIGUOUS, VECTOR         themselves (VECTOR only with positive count,
//                              block length and stride)
//   HVECTOR                    VECTOR where the stride is a whole number of
//                              old extents, else a STRUCT of regular runs
//   INDEXED, HINDEXED,         VECTOR where the blocks are one, else a STRUCT
//   (H)INDEXED_BLOCK           of the old type's blocks
//   STRUCT                     itself
//   RESIZED                    STRUCT of the old type at 0
//   SUBARRAY                   itself
//   DARRAY                     the SUBARRAY it equals, else nested STRUCTs,
//                              one per dimension
//   F90_*                      CONTIGUOUS of bytes
// The tools know no lower bound: for them a type's extent is where its last
// piece ends (a STRUCT's last child). So whenever that differs from MPI's
// extent E, the element ends in (or is wrapped into a STRUCT that ends in)
// an MPI_UB marker at displacement E. Data stays at MPI's displacements, so
// copies of the type tile at multiples of E as in MPI; only the lower bound
// itself is not expressed, and our readers take it from the element.
//
// The type's own element carries its id and name, then the attributes of
// its form, then what our readers give back: combiner (without
// MPI_COMBINER_), mpiSize, mpiLb, mpiExtent, and the three argument arrays of
// MPI_Type_get_contents as the .info line has them (integers, addresses,
// types). The tools read attributes by name and ignore these. Elements that
// are parts of it come first, with new ids and partOf='<its id>'; the
// markers the merger adds have partOf='*' (shared by the rank's types).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <hdtrace/PiosimTypes.hpp>

#include "InfoLine.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {

// What MPI reported of a type, in bytes.
struct TypeFigures {
    int64_t size = 0;
    int64_t lowerBound = 0;
    int64_t extent = 0;
};

// The ids the merger adds to one rank: the parts of types written as several
// elements, and the rank's NAMED MPI_UB and MPI_BYTE markers, each written
// once, before its first use.
class AddedTypeIds {
  public:
    // firstUnused: above every id of the rank. byteId: the rank's own
    // MPI_BYTE, or -1.
    AddedTypeIds(int64_t firstUnused, int64_t byteId) : next_(firstUnused), byte_(byteId) {}

    // Everything that decides the ids handed out next: a type formed from
    // the same state (and the same inputs) gets the same ids.
    struct State {
        int64_t next;
        int64_t upperBound;
        int64_t byte;
        bool operator==(const State &other) const {
            return next == other.next && upperBound == other.upperBound && byte == other.byte;
        }
    };
    State state() const { return {next_, upperBound_, byte_}; }
    void restore(const State &state) {
        next_ = state.next;
        upperBound_ = state.upperBound;
        byte_ = state.byte;
    }

    int64_t part() { return next_++; }
    // The marker's id; its <NAMED> element is appended to out when new.
    int64_t upperBound(std::vector<TypeElement> &out);
    int64_t byte(std::vector<TypeElement> &out);

  private:
    int64_t marker(const char *name, int64_t &id, std::vector<TypeElement> &out);
    int64_t next_;
    int64_t upperBound_ = -1;
    int64_t byte_;
};

struct PiosimForm {
    std::vector<TypeElement> elements;  // parts and markers first, the type last
    // Non-zero when the data lies at displacements beyond the tools' 32-bit
    // numbers (absolute addresses, for use with MPI_BOTTOM) and the form is
    // written relative to the lower bound instead: every displacement less
    // this. Size and extent stay MPI's; the closest form the tools read.
    int64_t shiftedBy = 0;
};

// figuresOf(id): the figures of a type the rank defines, or nullptr when its
// line has none. Every type `type` references must have figures. Throws
// TypeDecodeError when the arrays do not fit the combiner, or a number is
// out of range.
PiosimForm piosimForm(const TypeRecord &type, const MpiConstants &constants,
                      const std::function<const TypeFigures *(int64_t)> &figuresOf,
                      AddedTypeIds &ids);

}  // namespace hdtrace::merger
