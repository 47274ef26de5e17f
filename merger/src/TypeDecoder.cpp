#include "TypeDecoder.hpp"

#include <initializer_list>

namespace hdtrace::merger {
namespace {

std::string text(int64_t value) {
    return std::to_string(value);
}

class Decoder {
  public:
    // building: false to only check the arrays, with no element formed.
    Decoder(const TypeRecord &type, const MpiConstants &constants, bool building)
        : type_(type), constants_(constants), building_(building) {}

    TypeElement decode() {
        const std::string &combiner = type_.combiner;
        if (building_) {
            element_.tag = combiner;
            element_.attributes.reserve(kMostAttributes);
            element_.attributes.emplace_back("id", text(type_.id));
            element_.attributes.emplace_back("name", type_.name);
        }
        if (combiner == "NAMED") {
            expect(0, 0, 0);
        } else if (combiner == "DUP") {
            expect(0, 0, 1);
            oldType();
        } else if (combiner == "CONTIGUOUS") {
            expect(1, 0, 1);
            attribute("count", integer(0));
            oldType();
        } else if (combiner == "VECTOR") {
            expect(3, 0, 1);
            attribute("count", integer(0));
            attribute("blocklength", integer(1));
            attribute("stride", integer(2));
            oldType();
        } else if (combiner == "HVECTOR" || combiner == "HVECTOR_INTEGER") {
            expect(2, 1, 1);
            attribute("count", integer(0));
            attribute("blocklength", integer(1));
            attribute("stride", type_.addresses[0]);
            oldType();
        } else if (combiner == "RESIZED") {
            expect(0, 2, 1);
            attribute("lowerBound", type_.addresses[0]);
            attribute("extend", type_.addresses[1]);
            oldType();
        } else if (combiner == "INDEXED") {
            const int64_t count = leadingCount();
            expect(1 + 2 * count, 0, 1);
            attribute("count", count);
            oldType();
            children(count);
            for (int64_t i = 0; i < count; ++i)
                child("BLOCK", {{"len", integer(1 + i)}, {"index", integer(1 + count + i)}});
        } else if (combiner == "HINDEXED" || combiner == "HINDEXED_INTEGER") {
            const int64_t count = leadingCount();
            expect(1 + count, count, 1);
            attribute("count", count);
            oldType();
            children(count);
            for (int64_t i = 0; i < count; ++i)
                child("BLOCK", {{"len", integer(1 + i)}, {"index", address(i)}});
        } else if (combiner == "INDEXED_BLOCK") {
            const int64_t count = leadingCount();
            expect(2 + count, 0, 1);
            attribute("count", count);
            oldType();
            attribute("blockLength", integer(1));
            children(count);
            for (int64_t i = 0; i < count; ++i)
                child("Block", {{"displacement", integer(2 + i)}});
        } else if (combiner == "HINDEXED_BLOCK") {
            const int64_t count = leadingCount();
            expect(2, count, 1);
            attribute("count", count);
            oldType();
            attribute("blockLength", integer(1));
            children(count);
            for (int64_t i = 0; i < count; ++i)
                child("Block", {{"displacement", address(i)}});
        } else if (combiner == "STRUCT" || combiner == "STRUCT_INTEGER") {
            const int64_t count = leadingCount();
            expect(1 + count, count, count);
            attribute("count", count);
            children(count);
            for (int64_t i = 0; i < count; ++i)
                child("Type", {{"id", text(typeAt(i))},
                               {"displacement", address(i)},
                               {"blocklen", integer(1 + i)}});
        } else if (combiner == "SUBARRAY") {
            const int64_t ndims = leadingCount();
            expect(2 + 3 * ndims, 0, 1);
            attribute("count", ndims);
            attribute("order", order(type_.integers[static_cast<size_t>(1 + 3 * ndims)]));
            attribute("ndims", ndims);
            oldType();
            children(ndims);
            for (int64_t i = 0; i < ndims; ++i)
                child("Dimension", {{"size", integer(1 + i)},
                                    {"subsize", integer(1 + ndims + i)},
                                    {"start", integer(1 + 2 * ndims + i)}});
        } else if (combiner == "DARRAY") {
            if (type_.integers.size() < 3) fail("MPI_COMBINER_DARRAY needs at least 3 integers");
            const int64_t ndims = type_.integers[2];
            if (ndims < 0 || ndims > (int64_t(1) << 40)) fail("bad ndims " + text(ndims));
            expect(4 + 4 * ndims, 0, 1);
            attribute("size", integer(0));
            attribute("order", order(type_.integers[static_cast<size_t>(3 + 4 * ndims)]));
            attribute("rank", integer(1));
            attribute("dims", ndims);
            oldType();
            children(ndims);
            for (int64_t i = 0; i < ndims; ++i) {
                // Checked either way; the strings of the element are made only
                // when it is built.
                const char *distributionName = distribution(3 + ndims + i);
                if (!building_) continue;
                child("Dimension", {{"gsize", integer(3 + i)},
                                    {"distrib", distributionName},
                                    {"darg", distributionArgument(3 + 2 * ndims + i)},
                                    {"psize", integer(3 + 3 * ndims + i)}});
            }
        } else if (combiner == "F90_REAL" || combiner == "F90_COMPLEX") {
            expect(2, 0, 0);
            attribute("p", integer(0));
            attribute("r", integer(1));
        } else if (combiner == "F90_INTEGER") {
            expect(1, 0, 0);
            attribute("r", integer(0));
        } else {
            fail("unknown combiner MPI_COMBINER_" + combiner);
        }
        return std::move(element_);
    }

  private:
    // Of any combiner's element (DARRAY's: id, name and five of its own).
    static constexpr size_t kMostAttributes = 7;

    [[noreturn]] void fail(const std::string &what) const {
        throw TypeDecodeError("Type line: type id=" + text(type_.id) + ": " + what);
    }

    static std::string counted(size_t n, const char *one, const char *many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    }

    static std::string arrays(size_t integers, size_t addresses, size_t types) {
        return counted(integers, "integer", "integers") + ", " +
               counted(addresses, "address", "addresses") + ", " + counted(types, "type", "types");
    }

    void expect(int64_t integers, int64_t addresses, int64_t types) const {
        if (static_cast<int64_t>(type_.integers.size()) != integers ||
            static_cast<int64_t>(type_.addresses.size()) != addresses ||
            static_cast<int64_t>(type_.types.size()) != types)
            fail("MPI_COMBINER_" + type_.combiner + " here needs " +
                 arrays(size_t(integers), size_t(addresses), size_t(types)) + "; the line has " +
                 arrays(type_.integers.size(), type_.addresses.size(), type_.types.size()));
    }

    int64_t leadingCount() const {
        if (type_.integers.empty()) fail("MPI_COMBINER_" + type_.combiner + " needs a count");
        const int64_t count = type_.integers[0];
        if (count < 0 || count > (int64_t(1) << 40)) fail("bad count " + text(count));
        return count;
    }

    std::string integer(int64_t index) const { return text(type_.integers[size_t(index)]); }
    std::string address(int64_t index) const { return text(type_.addresses[size_t(index)]); }
    int64_t typeAt(int64_t index) const { return type_.types[size_t(index)]; }

    void attribute(const char *name, std::string value) {
        if (building_) element_.attributes.emplace_back(name, std::move(value));
    }
    void attribute(const char *name, const char *value) {
        if (building_) element_.attributes.emplace_back(name, value);
    }
    void attribute(const char *name, int64_t value) { attribute(name, text(value)); }
    void oldType() { attribute("oldType", text(type_.types[0])); }

    // Room for the children, once expect() has found as many numbers for
    // them as the count says.
    void children(int64_t count) {
        if (building_) element_.children.reserve(static_cast<size_t>(count));
    }

    void child(const char *tag,
               std::initializer_list<std::pair<const char *, std::string>> attributes) {
        if (building_) element_.children.push_back({tag, attributes, {}});
    }

    const char *order(int64_t value) const {
        if (value == constants_.orderC) return "MPI_ORDER_C";
        if (value == constants_.orderFortran) return "MPI_ORDER_FORTRAN";
        fail("order " + text(value) + " is neither MPI_ORDER_C (" + text(constants_.orderC) +
             ") nor MPI_ORDER_FORTRAN (" + text(constants_.orderFortran) + ") of " +
             constants_.library);
    }

    const char *distribution(int64_t index) const {
        const int64_t value = type_.integers[size_t(index)];
        if (value == constants_.distributeBlock) return "MPI_DISTRIBUTE_BLOCK";
        if (value == constants_.distributeCyclic) return "MPI_DISTRIBUTE_CYCLIC";
        if (value == constants_.distributeNone) return "MPI_DISTRIBUTE_NONE";
        fail("distrib " + text(value) + " is none of MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE of " +
             constants_.library);
    }

    // The library's MPI_DISTRIBUTE_DFLT_DARG differs between implementations,
    // so it is written by name; any other darg is a number.
    std::string distributionArgument(int64_t index) const {
        const int64_t value = type_.integers[size_t(index)];
        if (value == constants_.distributeDfltDarg) return "MPI_DISTRIBUTE_DFLT_DARG";
        return text(value);
    }

    const TypeRecord &type_;
    const MpiConstants &constants_;
    const bool building_;
    TypeElement element_;
};

}  // namespace

TypeElement decodeType(const TypeRecord &type, const MpiConstants &constants) {
    return Decoder(type, constants, true).decode();
}

void checkTypeArrays(const TypeRecord &type, const MpiConstants &constants) {
    Decoder(type, constants, false).decode();
}

}  // namespace hdtrace::merger
