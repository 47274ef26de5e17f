// TypeArguments: what MPI_Type_get_contents will say of a new derived
// datatype, taken from the arguments of the constructor that made it.
// Decoding a type through MPI_Type_get_contents costs an envelope call
// and, on Open MPI, a duplicate of every derived child type that the
// wrapper must free again; the arguments are at hand in the constructor's
// wrapper. The layout is the classic one of MPI-3.1 section 4.1.13, also for
// the large-count constructors (MPI_X_c, whose counts are MPI_Count), as
// TypeContents gives it for such a type. Types made otherwise (inside the
// MPI library, before tracing, by a constructor not wrapped) are still
// decoded through MPI_Type_get_contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

// A constructor's integers or addresses, held in place up to kInPlace
// values (a program like parallel HDF5 makes a type for every
// transfer, and a vector cost a malloc and a free each time), on the heap
// beyond.
template <typename Value>
class ArgumentList {
  public:
    static constexpr size_t kInPlace = 32;

    ArgumentList() = default;
    ArgumentList(std::initializer_list<Value> values) {
        for (Value value : values)
            push_back(value);
    }
    ArgumentList(const ArgumentList &other) { *this = other; }
    ArgumentList &operator=(const ArgumentList &other) {
        if (this == &other) return *this;
        size_ = 0;
        heap_.clear();
        append(other.data(), other.size());
        return *this;
    }

    const Value *data() const { return heap_.empty() ? inPlace_ : heap_.data(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    Value operator[](size_t i) const { return data()[i]; }

    void push_back(Value value) { append(&value, 1); }
    template <typename From>
    void append(const From *values, size_t count) {
        if (heap_.empty() && size_ + count <= kInPlace) {
            for (size_t i = 0; i < count; ++i)
                inPlace_[size_ + i] = static_cast<Value>(values[i]);
        } else {
            if (heap_.empty()) heap_.assign(inPlace_, inPlace_ + size_);
            heap_.insert(heap_.end(), values, values + count);
        }
        size_ += count;
    }

  private:
    Value inPlace_[kInPlace];  // the first size_ are set while heap_ is empty
    std::vector<Value> heap_;  // all values, once they outgrew inPlace_
    size_t size_ = 0;
};

struct TypeArguments {
    int combiner = MPI_COMBINER_NAMED;
    ArgumentList<int64_t> integers;
    ArgumentList<MPI_Aint> addresses;

    // A constructor rather than aggregate initialization, which made the
    // compiler clear all of the object's ~600 bytes at every constructor call.
    TypeArguments(int combinerValue, std::initializer_list<int64_t> integerValues,
                  std::initializer_list<MPI_Aint> addressValues)
        : combiner(combinerValue), integers(integerValues), addresses(addressValues) {}

    // One function per constructor, called only after it succeeded (so
    // that counts and arrays are valid), named after it without MPI_Type_.
    template <typename Count>
    static TypeArguments contiguous(Count count) {
        return {MPI_COMBINER_CONTIGUOUS, {static_cast<int64_t>(count)}, {}};
    }
    template <typename Count>
    static TypeArguments vector(Count count, Count blocklength, Count stride) {
        return {MPI_COMBINER_VECTOR,
                {static_cast<int64_t>(count), static_cast<int64_t>(blocklength),
                 static_cast<int64_t>(stride)},
                {}};
    }
    template <typename Count, typename Stride>
    static TypeArguments hvector(Count count, Count blocklength, Stride stride) {
        return {MPI_COMBINER_HVECTOR,
                {static_cast<int64_t>(count), static_cast<int64_t>(blocklength)},
                {static_cast<MPI_Aint>(stride)}};
    }
    template <typename Count, typename Length, typename Displacement>
    static TypeArguments indexed(Count count, const Length blocklengths[],
                                 const Displacement displacements[]) {
        TypeArguments arguments{MPI_COMBINER_INDEXED, {static_cast<int64_t>(count)}, {}};
        appendIntegers(arguments.integers, count, blocklengths);
        appendIntegers(arguments.integers, count, displacements);
        return arguments;
    }
    template <typename Count, typename Length, typename Displacement>
    static TypeArguments hindexed(Count count, const Length blocklengths[],
                                  const Displacement displacements[]) {
        TypeArguments arguments{MPI_COMBINER_HINDEXED, {static_cast<int64_t>(count)}, {}};
        appendIntegers(arguments.integers, count, blocklengths);
        appendAddresses(arguments.addresses, count, displacements);
        return arguments;
    }
    template <typename Count, typename Displacement>
    static TypeArguments indexedBlock(Count count, Count blocklength,
                                      const Displacement displacements[]) {
        TypeArguments arguments{MPI_COMBINER_INDEXED_BLOCK,
                                {static_cast<int64_t>(count), static_cast<int64_t>(blocklength)},
                                {}};
        appendIntegers(arguments.integers, count, displacements);
        return arguments;
    }
    template <typename Count, typename Displacement>
    static TypeArguments hindexedBlock(Count count, Count blocklength,
                                       const Displacement displacements[]) {
        TypeArguments arguments{MPI_COMBINER_HINDEXED_BLOCK,
                                {static_cast<int64_t>(count), static_cast<int64_t>(blocklength)},
                                {}};
        appendAddresses(arguments.addresses, count, displacements);
        return arguments;
    }
    template <typename Count, typename Length, typename Displacement>
    static TypeArguments structure(Count count, const Length blocklengths[],
                                   const Displacement displacements[]) {
        TypeArguments arguments{MPI_COMBINER_STRUCT, {static_cast<int64_t>(count)}, {}};
        appendIntegers(arguments.integers, count, blocklengths);
        appendAddresses(arguments.addresses, count, displacements);
        return arguments;
    }
    template <typename Size>
    static TypeArguments subarray(int ndims, const Size sizes[], const Size subsizes[],
                                  const Size starts[], int order) {
        TypeArguments arguments{MPI_COMBINER_SUBARRAY, {ndims}, {}};
        appendIntegers(arguments.integers, ndims, sizes);
        appendIntegers(arguments.integers, ndims, subsizes);
        appendIntegers(arguments.integers, ndims, starts);
        arguments.integers.push_back(order);
        return arguments;
    }
    template <typename Size>
    static TypeArguments darray(int size, int rank, int ndims, const Size gsizes[],
                                const int distribs[], const int dargs[], const int psizes[],
                                int order) {
        TypeArguments arguments{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}};
        appendIntegers(arguments.integers, ndims, gsizes);
        appendIntegers(arguments.integers, ndims, distribs);
        appendIntegers(arguments.integers, ndims, dargs);
        appendIntegers(arguments.integers, ndims, psizes);
        arguments.integers.push_back(order);
        return arguments;
    }
    template <typename Bound>
    static TypeArguments resized(Bound lowerBound, Bound extent) {
        return {MPI_COMBINER_RESIZED,
                {},
                {static_cast<MPI_Aint>(lowerBound), static_cast<MPI_Aint>(extent)}};
    }
    static TypeArguments dup() { return {MPI_COMBINER_DUP, {}, {}}; }

  private:
    template <typename Count, typename Value>
    static void appendIntegers(ArgumentList<int64_t> &out, Count count, const Value values[]) {
        if (count <= 0 || !values) return;
        out.append(values, static_cast<size_t>(count));
    }
    template <typename Count, typename Value>
    static void appendAddresses(ArgumentList<MPI_Aint> &out, Count count, const Value values[]) {
        if (count <= 0 || !values) return;
        out.append(values, static_cast<size_t>(count));
    }
};

}  // namespace hdtracempi
