// hdtrace._otf2: the OTF2 writer for `hdtrace export --otf2`. Python builds
// the run in OTF2's terms (python/hdtrace/export/otf2.py); this module copies
// it into an Otf2Run and writes the archive.
#include <string>
#include <tuple>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <hdtrace/exporter/Otf2Run.hpp>

namespace py = pybind11;
using namespace hdtrace::exporter;

namespace {

template <typename T>
std::vector<T> column(const py::dict &records, const char *name) {
    auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(records[name]);
    if (!array)
        throw py::type_error(std::string("records[\"") + name + "\"] is not a numeric array");
    return std::vector<T>(array.data(), array.data() + array.size());
}

py::dict writeArchive(
    const std::string &directory, const std::string &name, uint64_t originNs,
    const std::vector<std::tuple<std::string, int32_t>> &regions,
    const std::vector<std::tuple<uint64_t, uint64_t, std::string>> &locations,
    const std::vector<std::tuple<std::string, std::vector<uint64_t>>> &communicators,
    const std::vector<std::string> &files,
    const std::vector<std::tuple<std::string, uint32_t>> &ioHandles, const py::dict &records,
    const std::vector<std::tuple<std::string, uint32_t>> &windows) {
    Otf2Run run;
    run.name = name;
    run.originNs = originNs;
    for (const auto &[regionName, role] : regions)
        run.regions.push_back({regionName, static_cast<RegionRole>(role)});
    for (const auto &[rank, thread, host] : locations)
        run.locations.push_back({rank, thread, host});
    for (const auto &[commName, worldRanks] : communicators)
        run.communicators.push_back({commName, worldRanks});
    run.files = files;
    for (const auto &[handleName, file] : ioHandles)
        run.ioHandles.push_back({handleName, file});
    for (const auto &[windowName, communicator] : windows)
        run.windows.push_back({windowName, communicator});
    run.records.location = column<uint32_t>(records, "location");
    run.records.kind = column<int32_t>(records, "kind");
    run.records.time = column<uint64_t>(records, "time");
    run.records.a = column<int64_t>(records, "a");
    run.records.b = column<int64_t>(records, "b");
    run.records.c = column<int64_t>(records, "c");
    run.records.d = column<int64_t>(records, "d");
    run.records.e = column<int64_t>(records, "e");

    WriteSummary summary;
    {
        py::gil_scoped_release release;
        summary = writeOtf2Archive(directory, run);
    }
    py::dict result;
    result["anchor"] = summary.anchor;
    result["events_by_kind"] = summary.eventsByKind;
    return result;
}

}  // namespace

PYBIND11_MODULE(_otf2, module) {
    module.doc() = "Writes OTF2 archives with the OTF2 library (hdtrace export --otf2)";
    module.def("write_archive", &writeArchive, py::arg("directory"), py::arg("name"),
               py::arg("origin_ns"), py::arg("regions"), py::arg("locations"),
               py::arg("communicators"), py::arg("files"), py::arg("io_handles"),
               py::arg("records"),
               py::arg("windows") = std::vector<std::tuple<std::string, uint32_t>>());
}
