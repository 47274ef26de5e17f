#include "PiosimForms.hpp"

#include <charconv>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

namespace hdtrace::merger {
namespace {

using Attributes = std::vector<std::pair<const char *, std::string>>;

std::string text(int64_t value) {
    return std::to_string(value);
}

// "1;2;3;", its length counted first: one allocation for a list of any
// length.
std::string list(const std::vector<int64_t> &values) {
    char digits[std::numeric_limits<int64_t>::digits10 + 2];
    size_t length = 0;
    for (int64_t value : values)
        length +=
            static_cast<size_t>(std::to_chars(digits, std::end(digits), value).ptr - digits) + 1;
    std::string out;
    out.reserve(length);
    for (int64_t value : values) {
        out.append(digits, std::to_chars(digits, std::end(digits), value).ptr);
        out += ';';
    }
    return out;
}

// An extent the tools cannot hold, for arithmetic that overflows: it equals
// no extent MPI reports, so such an element is always closed by a marker.
constexpr int64_t kUnrepresentable = std::numeric_limits<int64_t>::min();

int64_t toolsMultiply(int64_t a, int64_t b) {
    int64_t result = 0;
    if (a == kUnrepresentable || b == kUnrepresentable || __builtin_mul_overflow(a, b, &result))
        return kUnrepresentable;
    return result;
}

int64_t toolsAdd(int64_t a, int64_t b) {
    int64_t result = 0;
    if (a == kUnrepresentable || b == kUnrepresentable || __builtin_add_overflow(a, b, &result))
        return kUnrepresentable;
    return result;
}

// The extent the tools compute for an element. Their VECTOR has been read
// two ways (old extent x stride x count, and old extent x stride x block
// length); the merger relies on a VECTOR's extent only where both readings
// give MPI's, so every form holds both.
struct ToolsExtent {
    int64_t first = 0;
    int64_t second = 0;

    static ToolsExtent both(int64_t value) { return {value, value}; }
    bool is(int64_t extent) const { return first == extent && second == extent; }
};

struct StructChild {
    int64_t id;
    int64_t displacement;
    int64_t blocklen;
};

// One element the tools read, and the extent they compute for it.
struct Form {
    TypeElement element;
    ToolsExtent extent;
    std::vector<StructChild> structChildren;  // a STRUCT's <Type> children, as numbers
};

class FormBuilder {
  public:
    FormBuilder(const TypeRecord &type, const MpiConstants &constants,
                const std::function<const TypeFigures *(int64_t)> &figuresOf, AddedTypeIds &ids)
        : type_(type), constants_(constants), figuresOf_(figuresOf), ids_(ids) {}

    int64_t shiftedBy() const { return shiftedBy_; }

    std::vector<TypeElement> build() {
        const std::string &combiner = type_.combiner;
        // Checks the arrays against the combiner and the library's constants:
        // a SUBARRAY's Appendix B element is its tools' form, decoded (and so
        // checked) once.
        TypeElement subarrayElement;
        if (combiner == "SUBARRAY")
            subarrayElement = decodeType(type_, constants_);
        else
            checkTypeArrays(type_, constants_);
        Form form;
        if (combiner == "DUP") {
            form = contiguous(1, type_.types[0]);
        } else if (combiner == "CONTIGUOUS") {
            form = contiguous(integer(0), type_.types[0]);
        } else if (combiner == "VECTOR") {
            form = vector(integer(0), integer(1), integer(2), type_.types[0]);
        } else if (combiner == "HVECTOR" || combiner == "HVECTOR_INTEGER") {
            form = hvector(integer(0), integer(1), type_.addresses[0], type_.types[0]);
        } else if (combiner == "INDEXED" || combiner == "HINDEXED" ||
                   combiner == "HINDEXED_INTEGER" || combiner == "INDEXED_BLOCK" ||
                   combiner == "HINDEXED_BLOCK") {
            form = indexed(combiner);
        } else if (combiner == "STRUCT" || combiner == "STRUCT_INTEGER") {
            std::vector<StructChild> children;
            const int64_t count = integer(0);
            for (int64_t i = 0; i < count; ++i)
                children.push_back(
                    {type_.types[size_t(i)], type_.addresses[size_t(i)], integer(1 + i)});
            form = structOf(children);
        } else if (combiner == "RESIZED") {
            form = structOf({{type_.types[0], 0, 1}});
        } else if (combiner == "SUBARRAY") {
            form = subarray(std::move(subarrayElement));
        } else if (combiner == "DARRAY") {
            form = darray();
        } else if (combiner == "F90_REAL" || combiner == "F90_COMPLEX" ||
                   combiner == "F90_INTEGER") {
            form = contiguousBytes();
        } else {
            throw TypeDecodeError("Type line: type id=" + text(type_.id) +
                                  ": unknown combiner MPI_COMBINER_" + combiner);
        }
        shiftBeyondToolsNumbers(form);
        TypeElement outer = closed(std::move(form));
        outer.attributes[0].second = text(type_.id);
        outer.attributes[1].second = type_.name;
        outer.attributes.emplace_back("combiner", combiner);
        outer.attributes.emplace_back("mpiSize", text(type_.size));
        outer.attributes.emplace_back("mpiLb", text(type_.lowerBound));
        outer.attributes.emplace_back("mpiExtent", text(type_.extent));
        outer.attributes.emplace_back("integers", list(type_.integers));
        outer.attributes.emplace_back("addresses", list(type_.addresses));
        outer.attributes.emplace_back("types", list(type_.types));
        elements_.push_back(std::move(outer));
        return std::move(elements_);
    }

  private:
    // The most attributes build() adds to a form's element: combiner, the
    // three figures and the three arrays.
    static constexpr size_t kAddedAttributes = 7;

    [[noreturn]] void fail(const std::string &what) const {
        throw TypeDecodeError("Type line: type id=" + text(type_.id) + ": " + what);
    }

    int64_t integer(int64_t index) const { return type_.integers[size_t(index)]; }

    const TypeFigures &figures(int64_t id) const {
        const TypeFigures *found = figuresOf_(id);
        if (!found) fail("references type id " + text(id) + ", whose size and extent are unknown");
        return *found;
    }

    // The tools' extent of a type this element references.
    ToolsExtent extentOf(int64_t id) const {
        if (id == upperBound_) return ToolsExtent::both(0);
        const auto part = partExtents_.find(id);
        if (part != partExtents_.end()) return part->second;
        return ToolsExtent::both(figures(id).extent);
    }

    // The extent of a type another is built from: MPI's, or for a part
    // (a level of a DARRAY, which ends in its marker) the one it was given.
    int64_t inputExtent(int64_t id) const {
        const auto part = partExtents_.find(id);
        if (part != partExtents_.end()) return part->second.first;
        return figures(id).extent;
    }

    static Form element(const char *tag, Attributes attributes, ToolsExtent extent) {
        Form form;
        form.element.tag = tag;
        // Room also for what build() adds to the type's own element, or
        // part() to a part: growing the list pair by pair would copy it.
        form.element.attributes.reserve(2 + attributes.size() + kAddedAttributes);
        form.element.attributes = {{"id", ""}, {"name", ""}};
        for (auto &attribute : attributes)
            form.element.attributes.push_back(std::move(attribute));
        form.extent = extent;
        return form;
    }

    Form contiguous(int64_t count, int64_t oldType) {
        if (count < 1) return structOf({});  // the tools need a count of at least 1
        return element("CONTIGUOUS", {{"count", text(count)}, {"oldType", text(oldType)}},
                       ToolsExtent::both(toolsMultiply(count, extentOf(oldType).first)));
    }

    // A VECTOR; the tools take only positive counts, block lengths, strides.
    Form vector(int64_t count, int64_t blocklength, int64_t stride, int64_t oldType) {
        if (count < 1 || blocklength < 1) return structOf({});
        if (stride < 1) {
            std::vector<StructChild> children;
            appendRuns(children, oldType, 0, count, blocklength,
                       checkedMultiply(stride, figures(oldType).extent), blocklength);
            return structOf(children);
        }
        const ToolsExtent old = extentOf(oldType);
        return element("VECTOR",
                       {{"count", text(count)},
                        {"blocklength", text(blocklength)},
                        {"stride", text(stride)},
                        {"oldType", text(oldType)}},
                       {toolsMultiply(toolsMultiply(old.first, stride), count),
                        toolsMultiply(toolsMultiply(old.second, stride), blocklength)});
    }

    Form hvector(int64_t count, int64_t blocklength, int64_t strideBytes, int64_t oldType) {
        const int64_t oldExtent = figures(oldType).extent;
        if (oldExtent > 0 && strideBytes > 0 && strideBytes % oldExtent == 0)
            return vector(count, blocklength, strideBytes / oldExtent, oldType);
        std::vector<StructChild> children;
        if (blocklength > 0)
            appendRuns(children, oldType, 0, count, blocklength, strideBytes, blocklength);
        return structOf(children);
    }

    Form indexed(const std::string &combiner) {
        const bool inBytes = combiner[0] == 'H';
        const bool oneLength = combiner.find("BLOCK") != std::string::npos;
        const int64_t count = integer(0);
        const int64_t oldType = type_.types[0];
        const int64_t oldExtent = figures(oldType).extent;
        std::vector<std::pair<int64_t, int64_t>> blocks;
        blocks.reserve(size_t(count));
        for (int64_t i = 0; i < count; ++i) {
            const int64_t length = oneLength ? integer(1) : integer(1 + i);
            int64_t displacement = 0;
            if (inBytes)
                displacement = type_.addresses[size_t(i)];
            else
                displacement = checkedMultiply(integer((oneLength ? 2 : 1 + count) + i), oldExtent);
            blocks.emplace_back(displacement, length);
        }
        return blocksOf(oldType, blocks);
    }

    // Blocks (displacement in bytes, length in old types) in type-map order:
    // a VECTOR where they are one, else a STRUCT of them.
    Form blocksOf(int64_t oldType, std::vector<std::pair<int64_t, int64_t>> blocks) {
        std::vector<std::pair<int64_t, int64_t>> data;
        for (const auto &block : blocks)
            if (block.second > 0) data.push_back(block);
        if (data.empty()) return structOf({});
        const int64_t oldExtent = figures(oldType).extent;
        const int64_t length = data[0].second;
        const int64_t period = data.size() > 1 ? data[1].first - data[0].first : 0;
        bool regular = true;
        for (size_t i = 1; i < data.size() && regular; ++i)
            regular = data[i].second == length && data[i].first - data[i - 1].first == period;
        if (regular && data.size() > 1 && period > 0) {
            if (data[0].first == 0 && oldExtent > 0 && period % oldExtent == 0)
                return vector(int64_t(data.size()), length, period / oldExtent, oldType);
            std::vector<StructChild> children;
            appendRuns(children, oldType, data[0].first, int64_t(data.size()), length, period,
                       length);
            return structOf(children);
        }
        std::vector<StructChild> children;
        children.reserve(data.size());
        for (const auto &[displacement, blockLength] : data)
            children.push_back({oldType, displacement, blockLength});
        return structOf(children);
    }

    // count blocks of the old type at offset, offset + period, ...: all of
    // blockLength elements but the last, which has lastLength. A constant
    // number of children, whatever the count: the first count - 1 blocks as
    // one child, a VECTOR or a STRUCT whose extent is the period.
    void appendRuns(std::vector<StructChild> &children, int64_t oldType, int64_t offset,
                    int64_t count, int64_t blockLength, int64_t period, int64_t lastLength) {
        if (count <= 0) return;
        if (count == 1) {
            if (lastLength > 0) children.push_back({oldType, offset, lastLength});
            return;
        }
        if (period < 0 && lastLength == blockLength) {
            // The same bytes from the lowest block up: a positive period.
            const int64_t lowest = checkedAdd(offset, checkedMultiply(count - 1, period));
            appendRuns(children, oldType, lowest, count, blockLength, -period, lastLength);
            return;
        }
        if (period < 0) fail("a negative stride with blocks of different lengths");
        const int64_t oldExtent = inputExtent(oldType);
        int64_t repeated = -1;
        if (oldExtent > 0 && period > 0 && period % oldExtent == 0) {
            // Not the last child and placed once: its extent does not count.
            repeated = part(vector(count - 1, blockLength, period / oldExtent, oldType));
            children.push_back({repeated, offset, 1});
        } else {
            // A block of the old type that the tools step over by the period.
            const int64_t marker = upperBound();
            Form unit = structOf({{oldType, 0, blockLength}, {marker, period, 1}});
            repeated = part(std::move(unit));
            children.push_back({repeated, offset, count - 1});
        }
        const int64_t last = checkedAdd(offset, checkedMultiply(count - 1, period));
        if (lastLength > 0) children.push_back({oldType, last, lastLength});
    }

    Form structOf(const std::vector<StructChild> &children) {
        Form form =
            element("STRUCT", {{"count", text(int64_t(children.size()))}}, ToolsExtent::both(0));
        for (const StructChild &child : children) {
            if (child.blocklen <= 0) continue;
            form.structChildren.push_back(child);
            form.element.children.push_back({"Type",
                                             {{"id", text(child.id)},
                                              {"displacement", text(child.displacement)},
                                              {"blocklen", text(child.blocklen)}},
                                             {}});
            const ToolsExtent childExtent = extentOf(child.id);
            form.extent = {
                toolsAdd(child.displacement, toolsMultiply(child.blocklen, childExtent.first)),
                toolsAdd(child.displacement, toolsMultiply(child.blocklen, childExtent.second))};
        }
        form.element.attributes[2].second = text(int64_t(form.element.children.size()));
        return form;
    }

    // appendixB: the type's Appendix B element, which is the tools' SUBARRAY.
    Form subarray(TypeElement appendixB) {
        const int64_t ndims = integer(0);
        if (ndims < 1) return structOf({});
        Form form;
        form.element = std::move(appendixB);
        int64_t elements = 1;
        for (int64_t i = 0; i < ndims; ++i)
            elements = toolsMultiply(elements, integer(1 + i));
        const int64_t oldType = type_.types[0];
        form.extent = ToolsExtent::both(toolsMultiply(elements, extentOf(oldType).first));
        return form;
    }

    // The indices of one dimension that a process of a DARRAY holds: count
    // blocks of `block` indices, one every `period`, from `first`; the last
    // block has `last` indices.
    struct Selection {
        int64_t first = 0;
        int64_t count = 0;
        int64_t block = 0;
        int64_t period = 0;
        int64_t last = 0;
    };

    Selection selection(int64_t gsize, int64_t distribution, int64_t darg, int64_t psize,
                        int64_t coordinate) const {
        Selection taken;
        const bool byDefault = darg == constants_.distributeDfltDarg;
        if (distribution == constants_.distributeNone) {
            taken = {0, gsize > 0 ? 1 : 0, gsize, gsize, gsize};
        } else if (distribution == constants_.distributeBlock) {
            const int64_t block = byDefault ? gsize / psize + (gsize % psize != 0) : darg;
            if (block < 1) fail("DARRAY: block size " + text(block) + " is not positive");
            const int64_t first = std::min(checkedMultiply(coordinate, block), gsize);
            const int64_t end = std::min(checkedAdd(first, block), gsize);
            taken = {first, end > first ? 1 : 0, end - first, end - first, end - first};
        } else {
            const int64_t block = byDefault ? 1 : darg;
            if (block < 1) fail("DARRAY: block size " + text(block) + " is not positive");
            const int64_t first = checkedMultiply(coordinate, block);
            const int64_t period = checkedMultiply(block, psize);
            const int64_t span = gsize - first;
            if (span <= 0) return taken;
            taken.first = first;
            taken.count = span / period + (span % period != 0);
            taken.block = block;
            taken.period = period;
            taken.last = std::min(block, span - checkedMultiply(taken.count - 1, period));
            if (taken.count == 1) taken.block = taken.period = taken.last;
        }
        return taken;
    }

    Form darray() {
        const int64_t processes = integer(0);
        const int64_t rank = integer(1);
        const int64_t ndims = integer(2);
        const int64_t oldType = type_.types[0];
        const bool orderC = integer(3 + 4 * ndims) == constants_.orderC;
        auto gsize = [&](int64_t d) { return integer(3 + d); };
        std::vector<int64_t> coordinates(size_t(ndims), 0);
        int64_t rest = rank, grid = 1;
        for (int64_t d = ndims - 1; d >= 0; --d) {
            const int64_t psize = integer(3 + 3 * ndims + d);
            if (psize < 1) fail("DARRAY: psize " + text(psize) + " is not positive");
            coordinates[size_t(d)] = rest % psize;
            rest /= psize;
            grid = checkedMultiply(grid, psize);
        }
        if (grid != processes || rank < 0 || rank >= processes)
            fail("DARRAY: rank " + text(rank) + " of " + text(processes) +
                 " processes does not fit the process grid");
        std::vector<Selection> taken;
        taken.reserve(size_t(ndims));
        bool oneBlockEach = true;
        for (int64_t d = 0; d < ndims; ++d) {
            if (gsize(d) < 0) fail("DARRAY: gsize " + text(gsize(d)) + " is negative");
            taken.push_back(selection(gsize(d), integer(3 + ndims + d), integer(3 + 2 * ndims + d),
                                      integer(3 + 3 * ndims + d), coordinates[size_t(d)]));
            oneBlockEach = oneBlockEach && taken.back().count <= 1;
        }
        if (ndims >= 1 && oneBlockEach) {
            Form form = element("SUBARRAY",
                                {{"count", text(ndims)},
                                 {"order", orderC ? "MPI_ORDER_C" : "MPI_ORDER_FORTRAN"},
                                 {"ndims", text(ndims)},
                                 {"oldType", text(oldType)}},
                                {});
            int64_t elements = 1;
            form.element.children.reserve(size_t(ndims));
            for (int64_t d = 0; d < ndims; ++d) {
                const Selection &s = taken[size_t(d)];
                form.element.children.push_back({"Dimension",
                                                 {{"size", text(gsize(d))},
                                                  {"subsize", text(s.count ? s.last : 0)},
                                                  {"start", text(s.count ? s.first : 0)}},
                                                 {}});
                elements = toolsMultiply(elements, gsize(d));
            }
            form.extent = ToolsExtent::both(toolsMultiply(elements, extentOf(oldType).first));
            return form;
        }
        // Nested, fastest dimension first: each level holds the selected
        // rows of the one below, and ends at its whole extent.
        int64_t below = oldType;
        int64_t rowExtent = figures(oldType).extent;
        Form level = structOf({});
        for (int64_t step = 0; step < ndims; ++step) {
            const int64_t d = orderC ? ndims - 1 - step : step;
            const Selection &s = taken[size_t(d)];
            std::vector<StructChild> children;
            appendRuns(children, below, checkedMultiply(s.first, rowExtent), s.count, s.block,
                       checkedMultiply(s.period, rowExtent), s.last);
            rowExtent = checkedMultiply(rowExtent, gsize(d));
            if (step + 1 < ndims) children.push_back({upperBound(), rowExtent, 1});
            level = structOf(children);
            if (step + 1 < ndims) below = part(std::move(level));
        }
        return level;
    }

    Form contiguousBytes() {
        std::vector<TypeElement> markers;
        const int64_t byte = ids_.byte(markers);
        for (TypeElement &marker : markers)
            elements_.push_back(std::move(marker));
        partExtents_[byte] = ToolsExtent::both(1);
        return contiguous(type_.size, byte);
    }

    int64_t upperBound() {
        std::vector<TypeElement> markers;
        upperBound_ = ids_.upperBound(markers);
        for (TypeElement &marker : markers)
            elements_.push_back(std::move(marker));
        return upperBound_;
    }

    // Writes the form as a part of the type; its id.
    int64_t part(Form form) {
        const int64_t id = ids_.part();
        form.element.attributes[0].second = text(id);
        form.element.attributes.emplace_back("partOf", text(type_.id));
        partExtents_[id] = form.extent;
        elements_.push_back(std::move(form.element));
        return id;
    }

    // A STRUCT whose children lie beyond the tools' 32-bit displacements
    // (absolute addresses) moves to its lower bound, where they fit.
    void shiftBeyondToolsNumbers(Form &form) {
        if (form.element.tag != "STRUCT") return;
        bool beyond = false;
        for (const StructChild &child : form.structChildren)
            beyond = beyond || child.displacement > kPiosimLargestNumber ||
                     child.displacement < -kPiosimLargestNumber - 1;
        if (!beyond || type_.lowerBound == 0) return;
        shiftedBy_ = type_.lowerBound;
        std::vector<StructChild> children = form.structChildren;
        for (StructChild &child : children)
            child.displacement -= shiftedBy_;
        form = structOf(children);
    }

    // The type's own element: the form, ending at MPI's extent for the tools.
    TypeElement closed(Form form) {
        if (form.extent.is(type_.extent)) return std::move(form.element);
        if (form.element.tag == "STRUCT") {
            const int64_t marker = upperBound();
            form.element.children.push_back(
                {"Type",
                 {{"id", text(marker)}, {"displacement", text(type_.extent)}, {"blocklen", "1"}},
                 {}});
            form.element.attributes[2].second = text(int64_t(form.element.children.size()));
            return std::move(form.element);
        }
        const int64_t inner = part(std::move(form));
        return closed(structOf({{inner, 0, 1}}));
    }

    int64_t checkedMultiply(int64_t a, int64_t b) const {
        int64_t result = 0;
        if (__builtin_mul_overflow(a, b, &result)) fail("a displacement overflows 64 bits");
        return result;
    }

    int64_t checkedAdd(int64_t a, int64_t b) const {
        int64_t result = 0;
        if (__builtin_add_overflow(a, b, &result)) fail("a displacement overflows 64 bits");
        return result;
    }

    const TypeRecord &type_;
    const MpiConstants &constants_;
    const std::function<const TypeFigures *(int64_t)> &figuresOf_;
    AddedTypeIds &ids_;
    std::vector<TypeElement> elements_;
    std::unordered_map<int64_t, ToolsExtent> partExtents_;
    int64_t upperBound_ = -1;
    int64_t shiftedBy_ = 0;
};

}  // namespace

int64_t AddedTypeIds::marker(const char *name, int64_t &id, std::vector<TypeElement> &out) {
    if (id >= 0) return id;
    id = next_++;
    TypeElement element;
    element.tag = "NAMED";
    element.attributes = {{"id", text(id)}, {"name", name}, {"partOf", "*"}};
    out.push_back(std::move(element));
    return id;
}

int64_t AddedTypeIds::upperBound(std::vector<TypeElement> &out) {
    return marker("MPI_UB", upperBound_, out);
}

int64_t AddedTypeIds::byte(std::vector<TypeElement> &out) {
    return marker("MPI_BYTE", byte_, out);
}

PiosimForm piosimForm(const TypeRecord &type, const MpiConstants &constants,
                      const std::function<const TypeFigures *(int64_t)> &figuresOf,
                      AddedTypeIds &ids) {
    if (!type.measured())
        throw TypeDecodeError("Type line: type id=" + text(type.id) + ": no size, lb and extent");
    FormBuilder builder(type, constants, figuresOf, ids);
    PiosimForm form;
    form.elements = builder.build();
    form.shiftedBy = builder.shiftedBy();
    return form;
}

}  // namespace hdtrace::merger
