#include "AttributeCodesBinding.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "NumpyVectors.hpp"

namespace py = pybind11;

namespace hdtrace::python {
namespace {

// Texts numbered as first met.
class TextCodes {
  public:
    int32_t code(const std::string &text) {
        auto [found, added] = codes_.try_emplace(text, static_cast<int32_t>(texts_.size()));
        if (added) texts_.push_back(text);
        return found->second;
    }
    std::vector<std::string> &texts() { return texts_; }

  private:
    std::unordered_map<std::string, int32_t> codes_;
    std::vector<std::string> texts_;
};

struct AttributeCodes {
    TextCodes names;
    std::vector<int32_t> nameCode;
    std::vector<TextCodes> texts;               // per attribute asked for
    std::vector<std::vector<int32_t>> columns;  // per attribute: a code per call, -1: absent
    std::optional<std::string> damage;
};

AttributeCodes readAttributeCodes(const std::string &path, std::vector<std::string> names,
                                  const std::vector<std::string> &attributes, bool partial) {
    reader::TraceOptions options;
    options.filter.names = std::move(names);
    options.partial = partial;
    reader::TraceReader trace(path, std::move(options));
    AttributeCodes read;
    read.texts.resize(attributes.size());
    read.columns.resize(attributes.size());
    reader::Event event;
    while (trace.next(event)) {
        if (!event.hasStart) continue;  // as the call trees, which leave such elements out
        read.nameCode.push_back(read.names.code(event.name));
        for (size_t i = 0; i < attributes.size(); ++i) {
            const std::string *value = event.attribute(attributes[i]);
            read.columns[i].push_back(value ? read.texts[i].code(*value) : -1);
        }
    }
    read.damage = trace.damage();
    return read;
}

py::dict readAttributeCodesForPython(const std::string &path, std::vector<std::string> names,
                                     const std::vector<std::string> &attributes, bool partial) {
    AttributeCodes read;
    {
        py::gil_scoped_release release;
        read = readAttributeCodes(path, std::move(names), attributes, partial);
    }
    py::dict out;
    out["names"] = std::move(read.names.texts());
    out["name_code"] = toArray(std::move(read.nameCode));
    py::dict codes, texts;
    for (size_t i = 0; i < attributes.size(); ++i) {
        codes[py::str(attributes[i])] = toArray(std::move(read.columns[i]));
        texts[py::str(attributes[i])] = std::move(read.texts[i].texts());
    }
    out["codes"] = codes;
    out["texts"] = texts;
    out["damage"] = read.damage;
    return out;
}

}  // namespace

void bindAttributeCodes(py::module_ &module) {
    module.def("read_attribute_codes", &readAttributeCodesForPython, py::arg("path"),
               py::arg("names"), py::arg("attributes"), py::arg("partial") = false,
               "The top-level calls of a trace named in names (all where empty), those with a "
               "start time, in order: {'names': distinct call names, 'name_code': int32 per call, "
               "'codes': {attribute: int32 per call, an index into texts[attribute], -1 where "
               "the call has none}, 'texts': {attribute: distinct values}, 'damage': where a "
               "partial read stopped, or None}.");
}

}  // namespace hdtrace::python
