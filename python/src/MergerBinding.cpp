#include "MergerBinding.hpp"

#ifdef HDTRACE_HAVE_MERGER
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include <hdtrace/merger/Merger.hpp>
#include <hdtrace/merger/ProgressBar.hpp>
#endif

namespace py = pybind11;

namespace hdtrace::python {

#ifdef HDTRACE_HAVE_MERGER
namespace {

// Paths and names in messages are bytes as the file system has them; invalid
// UTF-8 comes back as surrogates, as os.fsdecode() gives it, not as an error.
py::str fileSystemText(const std::string &text) {
    PyObject *decoded =
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
    if (!decoded) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(decoded);
}

py::list fileSystemTexts(const std::vector<std::string> &texts) {
    py::list out;
    for (const std::string &text : texts)
        out.append(fileSystemText(text));
    return out;
}

py::dict mergeProject(std::vector<std::string> inputs, std::string output, std::string description,
                      std::string distributionClass, std::string chunkSize, bool force,
                      bool progress) {
    merger::MergeOptions options;
    options.inputs = std::move(inputs);
    options.outputPath = std::move(output);
    options.description = std::move(description);
    options.distributionClass = std::move(distributionClass);
    options.chunkSize = std::move(chunkSize);
    options.force = force;
    // The bar shows itself only on a terminal, as project-merger's does.
    merger::ProgressBar bar("hdtrace merge");
    if (progress)
        options.progress = [&bar](const merger::MergeProgress &state) { bar.update(state); };
    merger::MergeResult result;
    {
        py::gil_scoped_release release;
        try {
            result = merger::merge(options);
        } catch (...) {
            bar.finish();
            throw;
        }
    }
    py::dict out;
    out["output_path"] = fileSystemText(result.outputPath);
    out["warnings"] = fileSystemTexts(result.warnings);
    out["program"] = fileSystemText(result.program);
    out["traces"] = result.traceCount;
    out["ranks"] = result.rankCount;
    out["files"] = result.fileCount;
    out["communicators"] = result.communicatorCount;
    out["datatypes"] = result.datatypeCount;
    return out;
}

}  // namespace
#endif

void bindMerger(py::module_ &module) {
#ifdef HDTRACE_HAVE_MERGER
    module.attr("HAVE_MERGER") = true;
    module.attr("DEFAULT_DISTRIBUTION_CLASS") = merger::kDefaultDistributionClass;
    module.attr("DEFAULT_CHUNK_SIZE") = merger::kDefaultChunkSize;
    static py::exception<merger::MergeError> mergeError(module, "MergeError", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr pointer) {
        try {
            if (pointer) std::rethrow_exception(pointer);
        } catch (const merger::MergeError &error) {
            py::object instance = py::handle(mergeError.ptr())(fileSystemText(error.what()));
            instance.attr("file") = fileSystemText(error.file());
            instance.attr("line") = error.line();
            instance.attr("detail") = fileSystemText(error.detail());
            PyErr_SetObject(mergeError.ptr(), instance.ptr());
        }
    });
    module.def("merge", &mergeProject, py::arg("inputs"), py::arg("output") = std::string(),
               py::arg("description") = std::string(),
               py::arg("distribution_class") = std::string(merger::kDefaultDistributionClass),
               py::arg("chunk_size") = std::string(merger::kDefaultChunkSize),
               py::arg("force") = false, py::arg("progress") = false,
               "Merges the .info files of a run into a .proj (hdtrace::merger::merge).");
#else
    // Without the library the Python command runs the project-merger program.
    module.attr("HAVE_MERGER") = false;
#endif
}

}  // namespace hdtrace::python
