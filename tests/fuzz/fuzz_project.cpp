// Fuzz target: a .proj through ProjectReader. A project either loads or is
// refused with a ReadError; no crash, hang, leak or other exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "FuzzSupport.hpp"

using namespace hdtrace::reader;

namespace {

// Walks the datatype trees without recursion, touching every element, as
// the Python conversion does.
size_t countDatatypeElements(const Project &project) {
    size_t count = 0;
    std::vector<const DatatypeElement *> stack;
    for (const RankDatatypes &rank : project.datatypes)
        for (const DatatypeElement &type : rank.types)
            stack.push_back(&type);
    while (!stack.empty()) {
        const DatatypeElement *element = stack.back();
        stack.pop_back();
        ++count;
        for (const DatatypeElement &child : element->children)
            stack.push_back(&child);
    }
    return count;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string path = hdtrace::fuzz::writeScratchFile(
        "app.proj", std::string_view(reinterpret_cast<const char *>(data), size));
    try {
        const Project project = readProject(path);
        // Every leaf names a trace in the project's directory.
        for (const TopologyLeaf &leaf : project.leaves)
            if (leaf.tracePath.empty()) hdtrace::fuzz::fail("a topology leaf without a trace path");
        if (countDatatypeElements(project) > size)
            hdtrace::fuzz::fail("more datatype elements than bytes in the project");
    } catch (const ReadError &) {
    }
    return 0;
}
