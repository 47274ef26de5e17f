#include "TypeContents.hpp"

#include <iterator>

namespace hdtracempi {

namespace {

TypeContents classicContents(MPI_Datatype type, int integerCount, int addressCount, int typeCount,
                             int combiner) {
    TypeContents contents;
    contents.combiner = combiner;
    if (combiner == MPI_COMBINER_NAMED) return contents;
    std::vector<int> integers(static_cast<size_t>(integerCount));
    contents.addresses.resize(static_cast<size_t>(addressCount));
    contents.types.resize(static_cast<size_t>(typeCount));
    PMPI_Type_get_contents(type, integerCount, addressCount, typeCount, integers.data(),
                           contents.addresses.data(), contents.types.data());
    contents.integers.assign(integers.begin(), integers.end());
    return contents;
}

#if MPI_VERSION >= 4
// The large-count layout puts every MPI_Count argument in large_counts, in
// argument order, and keeps only the other int arguments in integers
// (MPI-4.0 section 5.1.13). Rebuilt here as the classic layout: counts that
// are int arguments of the classic constructor go to integers, byte
// displacements and strides (MPI_Aint there) to addresses.
void toClassic(TypeContents &contents, const std::vector<int> &ints,
               const std::vector<MPI_Count> &counts) {
    auto &integers = contents.integers;
    auto &addresses = contents.addresses;
    const auto count = [&](size_t i) { return static_cast<int64_t>(counts.at(i)); };
    const size_t n = counts.empty() ? 0 : static_cast<size_t>(counts[0]);
    switch (contents.combiner) {
        case MPI_COMBINER_HVECTOR:  // count, blocklength | stride
            integers = {count(0), count(1)};
            addresses.insert(addresses.begin(), static_cast<MPI_Aint>(count(2)));
            return;
        case MPI_COMBINER_HINDEXED:  // count, blocklengths | displacements
        case MPI_COMBINER_STRUCT:
            integers.assign(counts.begin(), counts.begin() + static_cast<long>(n + 1));
            addresses.assign(counts.begin() + static_cast<long>(n + 1), counts.end());
            return;
        case MPI_COMBINER_HINDEXED_BLOCK:  // count, blocklength | displacements
            integers = {count(0), count(1)};
            addresses.assign(counts.begin() + 2, counts.end());
            return;
        case MPI_COMBINER_RESIZED:  // | lb, extent
            addresses.assign(counts.begin(), counts.end());
            return;
        case MPI_COMBINER_SUBARRAY:  // ndims, sizes, subsizes, starts, order
            integers = {ints.at(0)};
            integers.insert(integers.end(), counts.begin(), counts.end());
            integers.push_back(ints.at(1));
            return;
        case MPI_COMBINER_DARRAY:  // size, rank, ndims, gsizes, distribs, dargs, psizes, order
            integers = {ints.at(0), ints.at(1), ints.at(2)};
            integers.insert(integers.end(), counts.begin(), counts.end());
            integers.insert(integers.end(), ints.begin() + 3, ints.end());
            return;
        default:  // CONTIGUOUS, VECTOR, INDEXED, INDEXED_BLOCK: every int is a count
            integers.assign(counts.begin(), counts.end());
            return;
    }
}
#endif

}  // namespace

TypeContents typeContents(MPI_Datatype type) {
#if MPI_VERSION >= 4
    MPI_Count integerCount = 0, addressCount = 0, largeCount = 0, typeCount = 0;
    int combiner = MPI_COMBINER_NAMED;
    PMPI_Type_get_envelope_c(type, &integerCount, &addressCount, &largeCount, &typeCount,
                             &combiner);
    if (largeCount == 0 || combiner == MPI_COMBINER_NAMED)
        return classicContents(type, static_cast<int>(integerCount), static_cast<int>(addressCount),
                               static_cast<int>(typeCount), combiner);
    TypeContents contents;
    contents.combiner = combiner;
    std::vector<int> ints(static_cast<size_t>(integerCount));
    std::vector<MPI_Count> counts(static_cast<size_t>(largeCount));
    contents.addresses.resize(static_cast<size_t>(addressCount));
    contents.types.resize(static_cast<size_t>(typeCount));
    PMPI_Type_get_contents_c(type, integerCount, addressCount, largeCount, typeCount, ints.data(),
                             contents.addresses.data(), counts.data(), contents.types.data());
    toClassic(contents, ints, counts);
    return contents;
#else
    int integerCount = 0, addressCount = 0, typeCount = 0, combiner = MPI_COMBINER_NAMED;
    PMPI_Type_get_envelope(type, &integerCount, &addressCount, &typeCount, &combiner);
    return classicContents(type, integerCount, addressCount, typeCount, combiner);
#endif
}

int typeCombiner(MPI_Datatype type) {
    int combiner = MPI_COMBINER_NAMED;
#if MPI_VERSION >= 4
    MPI_Count integers = 0, addresses = 0, largeCounts = 0, types = 0;
    PMPI_Type_get_envelope_c(type, &integers, &addresses, &largeCounts, &types, &combiner);
#else
    int integers = 0, addresses = 0, types = 0;
    PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
#endif
    return combiner;
}

}  // namespace hdtracempi
