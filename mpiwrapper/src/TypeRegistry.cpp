#include "TypeRegistry.hpp"

#include <mutex>

#include <hdtrace/PiosimTypes.hpp>

#include "HandleGeneration.hpp"
#include "InfoLines.hpp"
#include "TypeContents.hpp"

namespace hdtracempi {
namespace {

const char *combinerName(int combiner) {
    struct Entry {
        int value;
        const char *name;
    };
#define HDTRACEMPI_COMBINER(name) \
    { name, #name }
    static const Entry kCombiners[] = {
        HDTRACEMPI_COMBINER(MPI_COMBINER_NAMED),
        HDTRACEMPI_COMBINER(MPI_COMBINER_DUP),
        HDTRACEMPI_COMBINER(MPI_COMBINER_CONTIGUOUS),
        HDTRACEMPI_COMBINER(MPI_COMBINER_VECTOR),
        HDTRACEMPI_COMBINER(MPI_COMBINER_HVECTOR),
        HDTRACEMPI_COMBINER(MPI_COMBINER_INDEXED),
        HDTRACEMPI_COMBINER(MPI_COMBINER_HINDEXED),
        HDTRACEMPI_COMBINER(MPI_COMBINER_INDEXED_BLOCK),
        HDTRACEMPI_COMBINER(MPI_COMBINER_HINDEXED_BLOCK),
        HDTRACEMPI_COMBINER(MPI_COMBINER_STRUCT),
        HDTRACEMPI_COMBINER(MPI_COMBINER_SUBARRAY),
        HDTRACEMPI_COMBINER(MPI_COMBINER_DARRAY),
        HDTRACEMPI_COMBINER(MPI_COMBINER_F90_REAL),
        HDTRACEMPI_COMBINER(MPI_COMBINER_F90_COMPLEX),
        HDTRACEMPI_COMBINER(MPI_COMBINER_F90_INTEGER),
        HDTRACEMPI_COMBINER(MPI_COMBINER_RESIZED),
#if !defined(OPEN_MPI)
        // The MPI-1 Fortran forms; Open MPI 4 removed their names.
        HDTRACEMPI_COMBINER(MPI_COMBINER_HVECTOR_INTEGER),
        HDTRACEMPI_COMBINER(MPI_COMBINER_HINDEXED_INTEGER),
        HDTRACEMPI_COMBINER(MPI_COMBINER_STRUCT_INTEGER),
#endif
    };
#undef HDTRACEMPI_COMBINER
    for (const Entry &entry : kCombiners)
        if (entry.value == combiner) return entry.name;
    return "MPI_COMBINER_UNKNOWN";
}

// The data blocks of a predefined type, measured on this machine: MPI_Pack
// (which creates no MPI object) copies the type's data bytes, in typemap
// order, from a buffer whose every byte holds its own offset; runs of
// consecutive offsets in the packed bytes are the blocks. Empty when the
// data is the single block [0, size), or cannot be measured (then it is
// taken to be that block).
std::vector<ByteBlock> dataBlocks(MPI_Datatype type, int64_t size, int64_t extent) {
    constexpr int64_t kMeasurable = 256;  // offsets must fit a byte
    if (size <= 0 || extent > kMeasurable || size == extent) return {};
    unsigned char source[kMeasurable];
    for (int64_t i = 0; i < kMeasurable; ++i)
        source[i] = static_cast<unsigned char>(i);
    int packSize = 0;
    if (PMPI_Pack_size(1, type, MPI_COMM_SELF, &packSize) != MPI_SUCCESS || packSize < size)
        return {};
    std::vector<unsigned char> packed(static_cast<size_t>(packSize));
    int position = 0;
    if (PMPI_Pack(source, 1, type, packed.data(), packSize, &position, MPI_COMM_SELF) !=
            MPI_SUCCESS ||
        position != size)
        return {};
    std::vector<ByteBlock> blocks;
    for (int i = 0; i < position; ++i) {
        const int64_t offset = packed[static_cast<size_t>(i)];
        if (!blocks.empty() && blocks.back().offset + blocks.back().length == offset)
            ++blocks.back().length;
        else
            blocks.push_back({offset, 1});
    }
    if (blocks.size() == 1 && blocks[0].offset == 0) return {};
    return blocks;
}

// MPI_Aint is a signed integer of the size of an address, 64 bits where
// the wrapper is built: the addresses are packed as they are.
static_assert(sizeof(MPI_Aint) == sizeof(int64_t), "MPI_Aint is not 64 bits");
const int64_t *addressesOf(const MPI_Aint *addresses) {
    return reinterpret_cast<const int64_t *>(addresses);
}

// --- Records are reused. A program like parallel HDF5 makes and
// frees a dozen types per transfer; a new record, its children's vector and
// its line cost several mallocs and frees each. Dead records (every thread
// may drop the last reference) go onto a lock-free list, with the memory of
// their children and line; the registry takes them back under its lock, so
// there is a single taker and a popped record cannot come back meanwhile
// (no ABA). The list holds at most about kMaxFreeRecords; beyond, and for
// long lines, memory goes back to the heap.
constexpr int kMaxFreeRecords = 256;
constexpr size_t kMaxKeptLineBytes = 4096;
std::atomic<TypeRecord *> gFreeRecords{nullptr};
std::atomic<int> gFreeRecordCount{0};

void recycle(const TypeRecord *deadRecord) {
    // Nobody references it any more, so it is ours to change.
    auto *dead = const_cast<TypeRecord *>(deadRecord);
    if (gFreeRecordCount.load(std::memory_order_relaxed) >= kMaxFreeRecords) {
        delete dead;
        return;
    }
    gFreeRecordCount.fetch_add(1, std::memory_order_relaxed);
    dead->children.clear();
    if (dead->infoLine.capacity() > kMaxKeptLineBytes)
        std::string().swap(dead->infoLine);
    else
        dead->infoLine.clear();
    TypeRecord *head = gFreeRecords.load(std::memory_order_relaxed);
    do {
        dead->nextFree = head;
    } while (!gFreeRecords.compare_exchange_weak(head, dead, std::memory_order_release,
                                                 std::memory_order_relaxed));
}

// Only with the registry's lock held (the single taker).
TypeRecord *reusedOrNewRecord() {
    TypeRecord *record = gFreeRecords.load(std::memory_order_acquire);
    while (record &&
           !gFreeRecords.compare_exchange_weak(record, record->nextFree, std::memory_order_acquire,
                                               std::memory_order_acquire)) {
    }
    if (!record) return new TypeRecord;
    gFreeRecordCount.fetch_sub(1, std::memory_order_relaxed);
    record->id = -1;
    record->predefined = false;
    record->size = 0;
    record->retired.store(false, std::memory_order_relaxed);
    record->pendingCombiner = MPI_COMBINER_NAMED;
    record->nextFree = nullptr;
    return record;
}

// The type's size, lower bound and extent as MPI computes them: queries
// that make no object and allocate nothing. The size is kept wherever MPI
// defines it (a record's size), also when the extent is undefined and the
// figures are not known as a whole.
TypeFigures figuresOf(MPI_Datatype type) {
    TypeFigures figures;
    MPI_Count size = 0, lowerBound = 0, extent = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED) return figures;
    figures.size = static_cast<int64_t>(size);
    if (PMPI_Type_get_extent_x(type, &lowerBound, &extent) != MPI_SUCCESS ||
        lowerBound == MPI_UNDEFINED || extent == MPI_UNDEFINED)
        return figures;
    figures.known = true;
    figures.lowerBound = static_cast<int64_t>(lowerBound);
    figures.extent = static_cast<int64_t>(extent);
    return figures;
}

}  // namespace

void TypeReference::releaseLast(const TypeRecord *record) {
    std::vector<const TypeRecord *> more;  // allocates only for a second dead child
    const TypeRecord *next = record;
    while (next) {
        const TypeRecord *dead = next;
        next = nullptr;
        for (const TypeRecord *child : dead->children) {
            if (child->references.fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
            if (next)
                more.push_back(child);
            else
                next = child;
        }
        recycle(dead);
        if (!next && !more.empty()) {
            next = more.back();
            more.pop_back();
        }
    }
}

TypeReference TypeRegistry::find(MPI_Datatype type) {
    if (type == MPI_DATATYPE_NULL) return {};
    std::lock_guard<SpinLock> held(lock_);
    return findLocked(type);
}

TypeReference TypeRegistry::findLocked(MPI_Datatype type) {
    if (TypeReference *found = byHandle_.find(type)) {
        // The registry made the record (not const) and nobody else sees it
        // while it is pending.
        if ((*found)->id < 0) decodePending(type, const_cast<TypeRecord &>(*found->get()));
        return *found;
    }
    // Copied before entering: entering may move the table's entries.
    TypeReference record = decode(type);
    byHandle_.insert(type, record);
    return record;
}

void TypeRegistry::dropHandle(TypeReference *entry) {
    (*entry)->retired.store(true, std::memory_order_release);
    byHandle_.erase(entry);  // the registry's reference, dropped now
}

void TypeRegistry::constructed(MPI_Datatype newType, int count, const MPI_Datatype inputs[],
                               const TypeArguments &arguments) {
    if (newType == MPI_DATATYPE_NULL || count < 0 || !inputs) return;
    std::lock_guard<SpinLock> held(lock_);
    TypeRecord *record = reusedOrNewRecord();
    TypeReference reference(record);  // releases the children, should one be missing
    record->children.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        if (inputs[i] == MPI_DATATYPE_NULL) return;
        record->children.push_back(TypeReference(findLocked(inputs[i])).detach());
    }
    record->pendingCombiner = arguments.combiner;
    packTypeArguments(record->infoLine, arguments.integers.data(), arguments.integers.size(),
                      addressesOf(arguments.addresses.data()), arguments.addresses.size());
    // A handle seen before was freed by the program and now names this type.
    if (TypeReference *stale = byHandle_.find(newType)) dropHandle(stale);
    byHandle_.insert(newType, std::move(reference));
}

void TypeRegistry::contentsReturned(int count, const MPI_Datatype types[]) {
    std::lock_guard<SpinLock> held(lock_);
    for (int i = 0; i < count; ++i) {
        const MPI_Datatype type = types[i];
        // A new handle (Open MPI returns duplicates) is the program's to
        // free like any other; only a handle already known is an alias.
        if (byHandle_.find(type)) ++extraReferences_[type];
    }
}

void TypeRegistry::forget(MPI_Datatype type) {
    std::lock_guard<SpinLock> held(lock_);
    if (!extraReferences_.empty()) {
        auto extra = extraReferences_.find(type);
        if (extra != extraReferences_.end()) {
            if (--extra->second == 0) extraReferences_.erase(extra);
            return;
        }
    }
    if (TypeReference *entry = byHandle_.find(type)) dropHandle(entry);
}

// Called with lock_ held: the id and the line of a type made by a traced
// constructor, from its arguments.
void TypeRegistry::decodePending(MPI_Datatype type, TypeRecord &record) {
    char name[MPI_MAX_OBJECT_NAME] = "";
    int nameLength = 0;
    PMPI_Type_get_name(type, name, &nameLength);
    // The children's ids; on the stack for any constructor but a long struct.
    constexpr size_t kOnStack = 16;
    const size_t count = record.children.size();
    int64_t onStack[kOnStack];
    std::vector<int64_t> onHeap(count > kOnStack ? count : 0);
    int64_t *childIds = count > kOnStack ? onHeap.data() : onStack;
    for (size_t i = 0; i < count; ++i)
        childIds[i] = record.children[i]->id;
    // While pending, the record's line holds the packed arguments.
    identify(type, record.pendingCombiner, std::string_view(name, static_cast<size_t>(nameLength)),
             record.infoLine, childIds, count, record);
}

void TypeRegistry::identify(MPI_Datatype type, int combiner, std::string_view name,
                            const std::string &packedArguments, const int64_t *childIds,
                            size_t childCount, TypeRecord &record) {
    const std::string_view key =
        definitionKey(key_, combiner, name, packedArguments, childIds, childCount);
    const TypeDefinitions::Known known = definitions_.find(key);
    if (known.id >= 0) {
        record.id = known.id;
        record.size = known.size;
        record.infoLine.assign(*known.line);
        return;
    }
    record.id = nextDerivedId_++;
    // Unpacked first: packedArguments may be the record's own line.
    unpackTypeArguments(packedArguments, integers_, addresses_);
    formatTypeArguments(arguments_, integers_.data(), integers_.size(),
                        reinterpret_cast<const MPI_Aint *>(addresses_.data()), addresses_.size());
    const TypeFigures figures = figuresOf(type);
    record.size = figures.size;
    formatDerivedTypeLine(record.infoLine, record.id, combinerName(combiner), name, arguments_,
                          childIds, childCount, figures);
    definitions_.remember(key, record.id, record.infoLine, record.size);
}

// Called with lock_ held: a type no traced constructor made, through
// MPI_Type_get_envelope / MPI_Type_get_contents. The handles get_contents
// returns are not entered into byHandle_: they are freed here, and their
// values may be reused.
TypeReference TypeRegistry::decode(MPI_Datatype type) {
    TypeContents contents = typeContents(type);
    const int combiner = contents.combiner;
    char name[MPI_MAX_OBJECT_NAME] = "";
    int nameLength = 0;
    PMPI_Type_get_name(type, name, &nameLength);

    if (combiner == MPI_COMBINER_NAMED) {
        const int64_t id = MPI_Type_c2f(type);
        auto known = namedById_.find(id);
        if (known != namedById_.end()) return known->second;
        MPI_Count size = 0, lowerBound = 0, extent = 0;
        if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED) size = 0;
        if (PMPI_Type_get_extent_x(type, &lowerBound, &extent) != MPI_SUCCESS) extent = size;
        auto *record = new TypeRecord;
        record->id = id;
        record->predefined = true;
        record->size = static_cast<int64_t>(size);
        // A type the PIOsim tools do not know is written as a layout of
        // MPI_BYTE by the merger, so MPI_BYTE's line comes first.
        if (type != MPI_BYTE && !hdtrace::piosimKnowsNamed(name, size))
            record->children.push_back(TypeReference(findLocked(MPI_BYTE)).detach());
        record->infoLine = namedTypeLine(id, name, size, extent, dataBlocks(type, size, extent));
        return namedById_.emplace(id, TypeReference(record)).first->second;
    }

    TypeRecord *record = reusedOrNewRecord();
    TypeReference reference(record);  // releases the children too, should this throw
    std::vector<int64_t> childIds;
    for (MPI_Datatype child : contents.types) {
        // A handle the program made (MPICH gives the program's own handles
        // back), or a duplicate (Open MPI), decoded on its own.
        TypeReference childRecord;
        if (byHandle_.find(child))
            childRecord = findLocked(child);
        else
            childRecord = decode(child);
        childIds.push_back(childRecord->id);
        // A derived child's handle is the caller's to free (a duplicate on
        // Open MPI, a new reference on MPICH); the record says which it
        // is, saving an envelope call per child.
        if (!childRecord->predefined) PMPI_Type_free(&child);
        record->children.push_back(childRecord.detach());
    }
    packTypeArguments(packed_, contents.integers.data(), contents.integers.size(),
                      addressesOf(contents.addresses.data()), contents.addresses.size());
    identify(type, combiner, std::string_view(name, static_cast<size_t>(nameLength)), packed_,
             childIds.data(), childIds.size(), *record);
    return reference;
}

}  // namespace hdtracempi
