// The elements a type is written as, formed once for all the ranks that
// define it alike. A rank's Type lines are mostly the same records as every
// other rank's (InfoRecordPool), and a type's elements depend only on its
// record, the library's constants, what MPI said of the types it references
// and the ids the rank has handed out before it; when all of these are those
// of an earlier rank, that rank's rendered elements and their project
// checks are taken as they are. One cache per rendering thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <forward_list>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "InfoLine.hpp"
#include "PiosimForms.hpp"
#include "ProjectCheck.hpp"

namespace hdtrace::merger {

struct FormedType {
    bool decoded = false;
    std::string error;                     // when not decoded: what TypeDecodeError said
    std::string xml;                       // the elements, at the depth of a <Rank>'s children
    std::vector<TypeElementCheck> checks;  // one per element, in order
    int64_t shiftedBy = 0;                 // PiosimForm::shiftedBy
    AddedTypeIds::State idsAfter{};        // the rank's added ids after the type
};

using FiguresOf = std::function<const TypeFigures *(int64_t)>;

class TypeFormCache {
  public:
    // The type's elements, formed as the rank's types are: the byte layout of
    // a predefined type the tools do not know (layout, on the rank's
    // MPI_BYTE byteId), the tools' form of a measured derived type whose
    // references are measured, otherwise the Appendix B element. ids is
    // advanced as forming the type advances it. The result stays valid until
    // the next startRank(). A record of a single line of the run
    // (onlyLine) is formed once in the whole merge: its form is not kept
    // for other ranks, but in room reused from rank to rank.
    const FormedType &formed(const TypeRecord &record, bool layout, int64_t byteId,
                             const MpiConstants &constants, const FiguresOf &figuresOf,
                             AddedTypeIds &ids, bool onlyLine);

    // Before each rank: forgets everything once the cache holds more than
    // its limit, so that a run of types unlike each other (one per rank)
    // does not keep the whole project in memory.
    void startRank();

  private:
    static constexpr size_t kLimitBytes = size_t(4) << 20;

    struct Key {
        const TypeRecord *record;
        bool layout;
        int64_t byteId;
        AddedTypeIds::State ids;
        MpiConstants constants;
        bool operator==(const Key &other) const;
    };
    struct KeyHash {
        size_t operator()(const Key &key) const;
    };
    // The figures forming asked for, and what it got: the same answers
    // give the same elements.
    using FiguresAsked = std::vector<std::pair<int64_t, std::optional<TypeFigures>>>;
    struct Entry {
        FiguresAsked figuresAsked;
        FormedType formed;
    };

    // Forms the type into `into`, which may hold an earlier type's form.
    void form(const TypeRecord &record, bool layout, int64_t byteId, const MpiConstants &constants,
              const FiguresOf &figuresOf, AddedTypeIds &ids, FormedType &into);

    // A list keeps its entries in place as more are added.
    std::unordered_map<Key, std::forward_list<Entry>, KeyHash> entries_;
    size_t bytes_ = 0;
    std::string rendered_;  // the elements of the type being formed
    // The forms of the rank's single-line records: the first onlyLineUsed_,
    // the rest room left by earlier ranks.
    std::vector<FormedType> onlyLine_;
    size_t onlyLineUsed_ = 0;
};

}  // namespace hdtrace::merger
