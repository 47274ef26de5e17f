#include "DatatypeOrder.hpp"

#include <algorithm>
#include <utility>

#include "PiosimForms.hpp"
#include "PredefinedLayout.hpp"

namespace hdtrace::merger {
namespace {

bool sameDefinition(const TypeRecord &a, const TypeRecord &b) {
    return a.combiner == b.combiner && a.name == b.name && a.integers == b.integers &&
           a.addresses == b.addresses && a.types == b.types && a.size == b.size &&
           a.extent == b.extent && a.lowerBound == b.lowerBound &&
           a.hasLowerBound == b.hasLowerBound && a.blocks == b.blocks;
}

using State = RankTypes::Tables::State;

// A rank's type ids with their line indices, sorted by id and then index: a
// rank defines some tens of types, and one sorted vector, kept from rank to
// rank, costs no allocation where a hash map cost one per type.
using IdIndex = std::pair<int64_t, size_t>;

// The first of the entries for id, or end.
std::vector<IdIndex>::const_iterator firstWithId(const std::vector<IdIndex> &byId, int64_t id) {
    const auto found =
        std::lower_bound(byId.begin(), byId.end(), id,
                         [](const IdIndex &entry, int64_t wanted) { return entry.first < wanted; });
    return found != byId.end() && found->first == id ? found : byId.end();
}

}  // namespace

void orderedRankTypes(const RunModel &run, const RankModel &rank, const MpiConstants &constants,
                      TypeFormCache &cache, Diagnostics &diagnostics, RankTypes &out) {
    cache.startRank();
    const Span<LocatedType> &types = rank.types;
    RankTypes::Tables &tables = out.tables;
    std::vector<State> &state = tables.state;
    state.assign(types.size(), State::Unvisited);
    std::vector<IdIndex> &byId = tables.byId;
    byId.clear();
    byId.reserve(types.size());
    for (size_t index = 0; index < types.size(); ++index)
        byId.emplace_back(types[index].record.id, index);
    std::sort(byId.begin(), byId.end());

    const auto problem = [&](size_t index, const std::string &what) {
        const SourceLine &source = types[index].source;
        diagnostics.problem(run.infoPathOf(source), source.line, "Type line: " + what,
                            "type id=" + std::to_string(types[index].record.id));
        state[index] = State::Dropped;
    };

    std::vector<bool> &duplicate = tables.duplicate;
    duplicate.assign(types.size(), false);
    for (size_t index = 0; index < types.size(); ++index) {
        const auto found = firstWithId(byId, types[index].record.id);
        if (found->second == index) continue;
        duplicate[index] = true;  // another thread's line for the same type
        const LocatedType &first = types[found->second];
        if (!sameDefinition(first.record, types[index].record)) {
            const SourceLine &source = types[index].source;
            diagnostics.problem(run.infoPathOf(source), source.line,
                                "Type line: type id=" + std::to_string(types[index].record.id) +
                                    " is defined differently at " + run.infoPathOf(first.source) +
                                    ":" + std::to_string(first.source.line),
                                "this definition");
        }
    }

    // Predefined types the tools do not know become byte layouts of the
    // rank's MPI_BYTE (PredefinedLayout.hpp), which must come first; their
    // inner elements take ids above every id of the rank.
    int64_t byteId = -1, nextFreeId = 0;
    std::vector<bool> &layout = tables.layout;
    layout.assign(types.size(), false);
    for (size_t index = 0; index < types.size(); ++index) {
        const TypeRecord &record = types[index].record;
        nextFreeId = std::max(nextFreeId, record.id + 1);
        if (record.combiner != "NAMED") continue;
        if (record.name == "MPI_BYTE" && byteId < 0) byteId = record.id;
        layout[index] = predefinedForm(record) == PredefinedForm::Layout;
    }
    for (size_t index = 0; index < types.size(); ++index)
        if (layout[index] && byteId < 0)
            problem(index, "type id=" + std::to_string(types[index].record.id) + " (" +
                               types[index].record.name +
                               ") is written as a layout of MPI_BYTE, but the rank has no "
                               "MPI_BYTE line");
    AddedTypeIds addedIds(nextFreeId, byteId);

    // What MPI said of each type, for the forms of the types built on it.
    // Those of the first line of the id that has them.
    std::vector<TypeFigures> &figures = tables.figures;
    figures.assign(types.size(), TypeFigures{});
    for (size_t index = 0; index < types.size(); ++index) {
        const TypeRecord &record = types[index].record;
        figures[index] = TypeFigures{record.size, record.lowerBound, record.extent};
    }
    // Two references: small enough for std::function to hold without an
    // allocation.
    const FiguresOf figuresOf = [&tables, &types](int64_t id) -> const TypeFigures * {
        for (auto entry = firstWithId(tables.byId, id);
             entry != tables.byId.end() && entry->first == id; ++entry)
            if (types[entry->second].record.measured()) return &tables.figures[entry->second];
        return nullptr;
    };

    const auto referenceCount = [&](size_t index) {
        return types[index].record.types.size() + (layout[index] ? 1 : 0);
    };
    const auto reference = [&](size_t index, size_t next) {
        const std::vector<int64_t> &referenced = types[index].record.types;
        return next < referenced.size() ? referenced[next] : byteId;
    };

    out.elements.reserve(types.size());
    // Depth-first with an explicit stack: a chain of types may be long.
    std::vector<std::pair<size_t, size_t>> &stack = tables.stack;
    stack.clear();
    stack.reserve(types.size());
    for (size_t root = 0; root < types.size(); ++root) {
        if (duplicate[root] || state[root] != State::Unvisited) continue;
        state[root] = State::Visiting;
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto &[index, next] = stack.back();
            const TypeRecord &record = types[index].record;
            if (next < referenceCount(index)) {
                const int64_t referenced = reference(index, next);
                const auto found = firstWithId(byId, referenced);
                if (found == byId.end()) {
                    problem(index, "type id=" + std::to_string(record.id) +
                                       " references undefined type id " +
                                       std::to_string(referenced));
                    stack.pop_back();
                    continue;
                }
                const size_t child = found->second;
                switch (state[child]) {
                    case State::Written:
                        ++next;
                        break;
                    case State::Unvisited:
                        state[child] = State::Visiting;
                        stack.emplace_back(child, 0);
                        break;
                    case State::Visiting:
                        problem(index, "type id=" + std::to_string(record.id) +
                                           " references itself through type id " +
                                           std::to_string(referenced));
                        stack.pop_back();
                        break;
                    case State::Dropped:
                        problem(index, "type id=" + std::to_string(record.id) +
                                           " references the dropped type id " +
                                           std::to_string(referenced));
                        stack.pop_back();
                        break;
                }
                continue;
            }
            const FormedType &formed = cache.formed(record, layout[index], byteId, constants,
                                                    figuresOf, addedIds, run.isSingleLine(record));
            const SourceLine &source = types[index].source;
            if (!formed.decoded) {
                state[index] = State::Dropped;
                diagnostics.problem(run.infoPathOf(source), source.line, formed.error,
                                    "type id=" + std::to_string(record.id));
            } else {
                if (formed.shiftedBy != 0)
                    diagnostics.warningOnce(
                        "shifted type " + std::to_string(record.id), run.infoPathOf(source),
                        source.line,
                        "type id=" + std::to_string(record.id) +
                            " lies at displacements beyond the PIOsim tools' 32-bit "
                            "numbers (absolute addresses, for MPI_BOTTOM); it is written "
                            "relative to its lower bound " +
                            std::to_string(formed.shiftedBy) +
                            ", with MPI's size and extent (this warning is given once per "
                            "type id)");
                out.xml += formed.xml;
                for (const TypeElementCheck &check : formed.checks)
                    out.elements.push_back({&check, source});
                state[index] = State::Written;
            }
            stack.pop_back();
        }
    }
}

}  // namespace hdtrace::merger
