#include "DatatypeOrder.hpp"

#include <unordered_map>

namespace hdtrace::merger {
namespace {

bool sameDefinition(const TypeRecord &a, const TypeRecord &b) {
    return a.combiner == b.combiner && a.name == b.name && a.integers == b.integers &&
           a.addresses == b.addresses && a.types == b.types;
}

enum class State : uint8_t { Unvisited, Visiting, Written, Dropped };

}  // namespace

std::vector<TypeElement> orderedRankTypes(const RunModel &run, const RankModel &rank,
                                          const MpiConstants &constants, Diagnostics &diagnostics) {
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

    std::vector<TypeElement> ordered;
    ordered.reserve(types.size());
    // Depth-first with an explicit stack: a chain of types may be long.
    std::vector<std::pair<size_t, size_t>> stack;  // (type, next reference)
    for (size_t root = 0; root < types.size(); ++root) {
        if (duplicate[root] || state[root] != State::Unvisited) continue;
        state[root] = State::Visiting;
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto &[index, next] = stack.back();
            const TypeRecord &record = types[index].record;
            if (next < record.types.size()) {
                const int64_t referenced = record.types[next];
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
            try {
                ordered.push_back(decodeType(record, constants));
                state[index] = State::Written;
            } catch (const TypeDecodeError &error) {
                const SourceLine &source = types[index].source;
                state[index] = State::Dropped;
                diagnostics.problem(run.infoPathOf(source), source.line, error.what(),
                                    "type id=" + std::to_string(record.id));
            }
            stack.pop_back();
        }
    }
    return ordered;
}

}  // namespace hdtrace::merger
