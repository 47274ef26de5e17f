// Reader structures as Python values.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/Project.hpp>

namespace hdtrace::python {

// An attribute value as int, float or str. Attributes that hold names
// (name, key, value, cFile, representation, whence) always stay str.
pybind11::object convertAttribute(const reader::Attribute &attribute);

// (name, start_ns | None, end_ns | None, {attr: value}, [children as tuples], line)
pybind11::tuple eventToTuple(const reader::Event &event);

// The project as plain dicts and lists; the Python package builds its objects from it.
pybind11::dict projectToDict(const reader::Project &project);

}  // namespace hdtrace::python
