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
                                          AddedTypeIds &ids) {
    const std::string byte = std::to_string(byteId);
    std::vector<std::pair<int64_t, int64_t>> blocks = type.blocks;
    if (blocks.empty()) blocks.emplace_back(0, type.size);
    const int64_t extent = type.extent >= 0 ? type.extent : type.size;

    std::vector<TypeElement> elements;
    TypeElement data;
    int64_t toolsExtent = 0;  // where the last block ends
    if (blocks.size() == 1 && blocks[0].first == 0) {
        data.tag = "CONTIGUOUS";
        data.attributes = {{"id", ""},
                           {"name", ""},
                           {"count", std::to_string(blocks[0].second)},
                           {"oldType", byte}};
        toolsExtent = blocks[0].second;
        if (toolsExtent != extent) {
            // Wrapped: the STRUCT below ends in the marker.
            data.attributes[0].second = std::to_string(ids.part());
            data.attributes.emplace_back("partOf", std::to_string(type.id));
            const std::string dataId = data.attributes[0].second;
            elements.push_back(std::move(data));
            data = TypeElement();
            data.tag = "STRUCT";
            data.attributes = {{"id", ""}, {"name", ""}, {"count", "1"}};
            data.children.push_back(
                {"Type", {{"id", dataId}, {"displacement", "0"}, {"blocklen", "1"}}, {}});
        }
    } else {
        data.tag = "STRUCT";
        data.attributes = {{"id", ""}, {"name", ""}, {"count", std::to_string(blocks.size())}};
        for (const auto &[offset, length] : blocks)
            data.children.push_back({"Type",
                                     {{"id", byte},
                                      {"displacement", std::to_string(offset)},
                                      {"blocklen", std::to_string(length)}},
                                     {}});
        toolsExtent = blocks.back().first + blocks.back().second;
    }
    if (data.tag == "STRUCT" && toolsExtent != extent) {
        std::vector<TypeElement> markers;
        const int64_t upperBound = ids.upperBound(markers);
        elements.insert(elements.begin(), markers.begin(), markers.end());
        data.children.push_back({"Type",
                                 {{"id", std::to_string(upperBound)},
                                  {"displacement", std::to_string(extent)},
                                  {"blocklen", "1"}},
                                 {}});
        data.attributes[2].second = std::to_string(data.children.size());
    }
    data.attributes[0].second = std::to_string(type.id);
    data.attributes[1].second = type.name;
    elements.push_back(std::move(data));
    return elements;
}

}  // namespace hdtrace::merger
