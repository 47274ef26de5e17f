#include "PredefinedLayout.hpp"

#include <algorithm>
#include <string>

#include <hdtrace/PiosimTypes.hpp>

namespace hdtrace::merger {

PredefinedForm predefinedForm(const TypeRecord &type) {
    if (type.size >= 0)
        return piosimKnowsNamed(type.name, type.size) ? PredefinedForm::Named
                                                      : PredefinedForm::Layout;
    // An older line without size: the tools' sizes hold on every machine we
    // know of, except MPI_LONG's (8 bytes on LP64).
    for (const PiosimNamedType &known : kPiosimNamedTypes)
        if (known.name == type.name && known.name != "MPI_LONG") return PredefinedForm::Named;
    return PredefinedForm::Unknown;
}

std::vector<TypeElement> predefinedLayout(const TypeRecord &type, int64_t byteId,
                                          int64_t &nextFreeId) {
    const std::string byte = std::to_string(byteId);
    std::vector<std::pair<int64_t, int64_t>> blocks = type.blocks;
    if (blocks.empty()) blocks.emplace_back(0, type.size);
    int64_t dataLowerBound = blocks.front().first, dataEnd = 0;
    for (const auto &[offset, length] : blocks) {
        dataLowerBound = std::min(dataLowerBound, offset);
        dataEnd = std::max(dataEnd, offset + length);
    }
    const int64_t extent = type.extent >= 0 ? type.extent : type.size;

    TypeElement data;
    if (blocks.size() == 1 && blocks[0].first == 0) {
        data.tag = "CONTIGUOUS";
        data.attributes = {{"id", ""},
                           {"name", ""},
                           {"count", std::to_string(blocks[0].second)},
                           {"oldType", byte}};
    } else {
        data.tag = "STRUCT";
        data.attributes = {{"id", ""}, {"name", ""}, {"count", std::to_string(blocks.size())}};
        for (const auto &[offset, length] : blocks)
            data.children.push_back({"Type",
                                     {{"id", byte},
                                      {"displacement", std::to_string(offset)},
                                      {"blocklen", std::to_string(length)}},
                                     {},
                                     {}});
    }
    std::vector<TypeElement> elements;
    if (dataLowerBound != 0 || dataEnd != extent) {
        const int64_t dataId = nextFreeId++;
        data.attributes[0].second = std::to_string(dataId);
        elements.push_back(std::move(data));
        TypeElement resized;
        resized.tag = "RESIZED";
        resized.attributes = {{"id", ""},
                              {"name", ""},
                              {"lowerBound", "0"},
                              {"extend", std::to_string(extent)},
                              {"oldType", std::to_string(dataId)}};
        elements.push_back(std::move(resized));
    } else {
        elements.push_back(std::move(data));
    }
    TypeElement &outer = elements.back();
    outer.attributes[0].second = std::to_string(type.id);
    outer.attributes[1].second = type.name;
    return elements;
}

}  // namespace hdtrace::merger
