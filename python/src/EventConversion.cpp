#include "EventConversion.hpp"

#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>

#include <hdtrace/reader/DecimalNumber.hpp>

namespace py = pybind11;

namespace hdtrace::python {
namespace {

// [-]DIGITS.DIGITS: the only non-integer numbers our formats write.
bool isDecimal(std::string_view text) {
    size_t pos = text.size() > 0 && text[0] == '-' ? 1 : 0;
    bool digits = false, point = false;
    for (; pos < text.size(); ++pos) {
        if (text[pos] >= '0' && text[pos] <= '9')
            digits = true;
        else if (text[pos] == '.' && !point)
            point = true;
        else
            return false;
    }
    return digits && point;
}

py::list attributesToList(const std::vector<reader::Attribute> &attributes) {
    py::list list;
    for (const reader::Attribute &attribute : attributes)
        list.append(py::make_tuple(attribute.name, attribute.value));
    return list;
}

}  // namespace

py::object convertAttribute(const reader::Attribute &attribute) {
    if (!reader::isTextAttribute(attribute.name)) {
        if (auto integer = reader::parseInteger(attribute.value)) return py::int_(*integer);
        // Beyond 64 bits only in a program's own attributes (the readers
        // refuse it in the wrapper's): Python keeps every digit.
        if (reader::isOutOfRangeInteger(attribute.value)) {
            PyObject *exact = PyLong_FromString(attribute.value.c_str(), nullptr, 10);
            if (!exact) throw py::error_already_set();
            return py::reinterpret_steal<py::object>(exact);
        }
        if (isDecimal(attribute.value))
            return py::float_(std::strtod(attribute.value.c_str(), nullptr));
    }
    return py::str(attribute.value);
}

namespace {

// Attribute and call names repeat call after call: one Python str each,
// made once (the reader runs under the GIL, so a plain map is safe).
py::object internedName(const std::string &name) {
    static auto *names =
        new std::unordered_map<std::string, py::object>();  // lives as long as the module
    auto found = names->find(name);
    if (found != names->end()) return found->second;
    py::object text = py::str(name);
    if (names->size() < 4096) names->emplace(name, text);
    return text;
}

}  // namespace

py::tuple eventToTuple(const reader::Event &event) {
    py::dict attributes;
    for (const reader::Attribute &attribute : event.attributes)
        attributes[internedName(attribute.name)] = convertAttribute(attribute);
    py::list children(event.children.size());
    for (size_t index = 0; index < event.children.size(); ++index)
        children[index] = eventToTuple(event.children[index]);
    py::object start = event.hasStart ? py::object(py::int_(event.startNs)) : py::none();
    py::object end = event.hasStart ? py::object(py::int_(event.endNs)) : py::none();
    return py::make_tuple(internedName(event.name), start, end, attributes, children, event.line);
}

namespace {

py::dict datatypeToDict(const reader::DatatypeElement &element) {
    py::dict result;
    result["combiner"] = element.combiner;
    result["attributes"] = attributesToList(element.attributes);
    py::list children;
    for (const reader::DatatypeElement &child : element.children)
        children.append(datatypeToDict(child));
    result["children"] = children;
    result["line"] = element.line;
    return result;
}

}  // namespace

py::dict projectToDict(const reader::Project &project) {
    py::dict result;
    result["path"] = project.path;
    result["name"] = project.name;
    result["description"] = project.description;
    py::list files;
    for (const reader::ProjectFile &file : project.files) {
        py::dict entry;
        entry["name"] = file.name;
        entry["initial_size"] =
            file.initialSize ? py::object(py::int_(*file.initialSize)) : py::none();
        entry["distribution"] = file.distribution;
        entry["chunk_size"] = file.chunkSize;
        files.append(entry);
    }
    result["files"] = files;
    result["levels"] = project.levels;
    py::list leaves;
    for (const reader::TopologyLeaf &leaf : project.leaves)
        leaves.append(py::make_tuple(leaf.labels, leaf.tracePath, leaf.line));
    result["leaves"] = leaves;
    py::list communicators;
    for (const reader::Communicator &communicator : project.communicators) {
        py::list members;
        for (const reader::CommunicatorMember &member : communicator.members)
            members.append(py::make_tuple(member.global, member.local, member.cid, member.line));
        communicators.append(py::make_tuple(communicator.name, members));
    }
    result["communicators"] = communicators;
    py::list datatypes;
    for (const reader::RankDatatypes &rank : project.datatypes) {
        py::list types;
        for (const reader::DatatypeElement &type : rank.types)
            types.append(datatypeToDict(type));
        datatypes.append(py::make_tuple(rank.rank, rank.thread, types, rank.line));
    }
    result["datatypes"] = datatypes;
    const char *style = "unknown";
    if (project.distributionStyle == reader::DistributionStyle::Implementation)
        style = "implementation";
    if (project.distributionStyle == reader::DistributionStyle::Class) style = "class";
    result["distribution_style"] = style;
    return result;
}

}  // namespace hdtrace::python
