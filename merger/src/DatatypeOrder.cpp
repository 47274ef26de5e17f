#include "DatatypeOrder.hpp"

#include <algorithm>
#include <unordered_map>

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

enum class State : uint8_t { Unvisited, Visiting, Written, Dropped };

}  // namespace

void orderedRankTypes(const RunModel &run, const RankModel &rank, const MpiConstants &constants,
                      TypeFormCache &cache, Diagnostics &diagnostics, RankTypes &out) {
    cache.startRank();
    const std::vector<LocatedType> &types = rank.types;
    std::vector<State> state(types.size(), State::Unvisited);
    std::unordered_map<int64_t, size_t> byId;
    byId.reserve(types.size());

    const auto problem = [&](size_t index, const std::string &what) {
        const SourceLine &source = types[index].source;
        diagnostics.problem(run.infoPathOf(source), source.line, "Type line: " + what,
                            "type id=" + std::to_string(types[index].record.id));
        state[index] = State::Dropped;
    };

    std::vector<bool> duplicate(types.size(), false);
    for (size_t index = 0; index < types.size(); ++index) {
        const auto [found, added] = byId.emplace(types[index].record.id, index);
        if (added) continue;
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
    std::vector<bool> layout(types.size(), false);
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
    std::unordered_map<int64_t, TypeFigures> figures;
    for (const LocatedType &located : types) {
        const TypeRecord &record = located.record;
        if (record.measured())
            figures.emplace(record.id, TypeFigures{record.size, record.lowerBound, record.extent});
    }
    const FiguresOf figuresOf = [&](int64_t id) -> const TypeFigures * {
        const auto found = figures.find(id);
        return found == figures.end() ? nullptr : &found->second;
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
    std::vector<std::pair<size_t, size_t>> stack;  // (type, next reference)
    for (size_t root = 0; root < types.size(); ++root) {
        if (duplicate[root] || state[root] != State::Unvisited) continue;
        state[root] = State::Visiting;
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto &[index, next] = stack.back();
            const TypeRecord &record = types[index].record;
            if (next < referenceCount(index)) {
                const int64_t referenced = reference(index, next);
                const auto found = byId.find(referenced);
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
            const FormedType &formed =
                cache.formed(record, layout[index], byteId, constants, figuresOf, addedIds);
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
