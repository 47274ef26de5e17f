#include "TypeFormCache.hpp"

#include "PredefinedLayout.hpp"
#include "ProjectWriter.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {
namespace {

bool sameConstants(const MpiConstants &a, const MpiConstants &b) {
    return a.library == b.library && a.orderC == b.orderC && a.orderFortran == b.orderFortran &&
           a.distributeBlock == b.distributeBlock && a.distributeCyclic == b.distributeCyclic &&
           a.distributeNone == b.distributeNone && a.distributeDfltDarg == b.distributeDfltDarg;
}

bool sameFigures(const std::optional<TypeFigures> &known, const TypeFigures *now) {
    if (!known || !now) return !known && !now;
    return known->size == now->size && known->lowerBound == now->lowerBound &&
           known->extent == now->extent;
}

void combine(size_t &hash, size_t value) {
    hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
}

// Roughly what the strings and vectors of a check take on the heap.
size_t heapBytesOf(const TypeElementCheck &check) {
    size_t bytes =
        sizeof(TypeElementCheck) + check.tag.capacity() + (check.id ? check.id->capacity() : 0);
    for (const std::vector<std::string> *texts : {&check.references, &check.failures}) {
        bytes += texts->capacity() * sizeof(std::string);
        for (const std::string &text : *texts)
            bytes += text.capacity();
    }
    return bytes;
}

std::vector<TypeElement> elementsOf(const TypeRecord &record, bool layout, int64_t byteId,
                                    const MpiConstants &constants, const FiguresOf &figuresOf,
                                    AddedTypeIds &ids, int64_t &shiftedBy) {
    if (layout) return predefinedLayout(record, byteId, ids);
    // A derived type goes into the tools' forms when MPI's figures of it and
    // of every type it is built from are known; one of an older trace keeps
    // its Appendix B element, which the project check then refuses.
    bool inToolsForm = record.combiner != "NAMED" && record.measured();
    for (size_t i = 0; inToolsForm && i < record.types.size(); ++i)
        inToolsForm = figuresOf(record.types[i]) != nullptr;
    if (!inToolsForm) return {decodeType(record, constants)};
    PiosimForm form = piosimForm(record, constants, figuresOf, ids);
    shiftedBy = form.shiftedBy;
    return std::move(form.elements);
}

}  // namespace

bool TypeFormCache::Key::operator==(const Key &other) const {
    return record == other.record && layout == other.layout && byteId == other.byteId &&
           ids == other.ids && sameConstants(constants, other.constants);
}

size_t TypeFormCache::KeyHash::operator()(const Key &key) const {
    size_t hash = std::hash<const TypeRecord *>()(key.record);
    combine(hash, static_cast<size_t>(key.layout));
    combine(hash, static_cast<size_t>(key.byteId));
    combine(hash, static_cast<size_t>(key.ids.next));
    combine(hash, static_cast<size_t>(key.ids.upperBound));
    combine(hash, static_cast<size_t>(key.ids.byte));
    combine(hash, std::hash<std::string>()(key.constants.library));
    return hash;
}

void TypeFormCache::startRank() {
    onlyLineUsed_ = 0;
    if (bytes_ <= kLimitBytes) return;
    entries_.clear();
    bytes_ = 0;
}

void TypeFormCache::form(const TypeRecord &record, bool layout, int64_t byteId,
                         const MpiConstants &constants, const FiguresOf &figuresOf,
                         AddedTypeIds &ids, FormedType &into) {
    into.decoded = false;
    into.error.clear();
    into.xml.clear();
    into.checks.clear();
    into.shiftedBy = 0;
    try {
        const std::vector<TypeElement> elements =
            elementsOf(record, layout, byteId, constants, figuresOf, ids, into.shiftedBy);
        // Rendered into the thread's own string, which keeps its room, then
        // copied: a cached form gets a string of the text's size, a reused
        // one keeps its room.
        rendered_.clear();
        ProjectWriter::renderTypeElements(rendered_, elements);
        into.xml = rendered_;
        into.checks.reserve(elements.size());
        for (const TypeElement &element : elements)
            into.checks.push_back(checkTypeElement(element));
        into.decoded = true;
    } catch (const TypeDecodeError &error) {
        into.error = error.what();
    }
    into.idsAfter = ids.state();
}

const FormedType &TypeFormCache::formed(const TypeRecord &record, bool layout, int64_t byteId,
                                        const MpiConstants &constants, const FiguresOf &figuresOf,
                                        AddedTypeIds &ids, bool onlyLine) {
    if (onlyLine) {
        if (onlyLineUsed_ == onlyLine_.size()) onlyLine_.emplace_back();
        FormedType &formed = onlyLine_[onlyLineUsed_++];
        form(record, layout, byteId, constants, figuresOf, ids, formed);
        return formed;
    }
    std::forward_list<Entry> &alike =
        entries_[Key{&record, layout, byteId, ids.state(), constants}];
    for (const Entry &entry : alike) {
        bool same = true;
        for (const auto &[id, figures] : entry.figuresAsked)
            same = same && sameFigures(figures, figuresOf(id));
        if (!same) continue;
        ids.restore(entry.formed.idsAfter);
        return entry.formed;
    }

    Entry &entry = alike.emplace_front();
    // Forming asks for the figures of each type the record references.
    entry.figuresAsked.reserve(record.types.size());
    const FiguresOf asking = [&](int64_t id) -> const TypeFigures * {
        const TypeFigures *figures = figuresOf(id);
        entry.figuresAsked.emplace_back(
            id, figures ? std::optional<TypeFigures>(*figures) : std::nullopt);
        return figures;
    };
    FormedType &formed = entry.formed;
    try {
        form(record, layout, byteId, constants, asking, ids, formed);
    } catch (...) {
        alike.pop_front();  // half formed; the merge fails anyway
        throw;
    }
    bytes_ += sizeof(Key) + sizeof(Entry) + 64 + formed.xml.capacity() + formed.error.capacity() +
              entry.figuresAsked.capacity() * sizeof(FiguresAsked::value_type);
    for (const TypeElementCheck &check : formed.checks)
        bytes_ += heapBytesOf(check);
    return formed;
}

}  // namespace hdtrace::merger
