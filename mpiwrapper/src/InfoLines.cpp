#include "InfoLines.hpp"

#include <cstring>

#include <hdtrace/Format.hpp>

namespace hdtracempi {
namespace {

template <typename Number>
void appendList(std::string &out, const std::vector<Number> &values) {
    for (Number value : values) {
        hdtrace::appendInteger(out, static_cast<int64_t>(value));
        out += ';';
    }
}

void appendConstant(std::string &out, const char *key, int64_t value) {
    out += ' ';
    out += key;
    out += '=';
    hdtrace::appendInteger(out, value);
}

}  // namespace

std::string mpiLibraryLine() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    PMPI_Get_library_version(version, &length);
    std::string_view library(version, static_cast<size_t>(length > 0 ? length : 0));
    library = library.substr(0, library.find_first_of(std::string_view("\r\n\0", 3)));
    std::string line = "Mpi library='";
    hdtrace::appendXmlEscaped(line, library);
    line += '\'';
    appendConstant(line, "order_c", MPI_ORDER_C);
    appendConstant(line, "order_fortran", MPI_ORDER_FORTRAN);
    appendConstant(line, "distribute_block", MPI_DISTRIBUTE_BLOCK);
    appendConstant(line, "distribute_cyclic", MPI_DISTRIBUTE_CYCLIC);
    appendConstant(line, "distribute_none", MPI_DISTRIBUTE_NONE);
    appendConstant(line, "distribute_dflt_darg", MPI_DISTRIBUTE_DFLT_DARG);
    line += '\n';
    return line;
}

std::string fileLine(std::string_view name, int64_t initialSize, int64_t id) {
    std::string line = "File name=\"";
    hdtrace::appendXmlEscaped(line, name);
    line += "\" Size=";
    hdtrace::appendInteger(line, initialSize);
    line += " id=";
    hdtrace::appendInteger(line, id);
    line += '\n';
    return line;
}

void appendRankMap(std::string &out, const std::vector<int> &worldRankOfLocal) {
    const size_t count = worldRankOfLocal.size();
    size_t first = 0;
    while (first < count) {
        // Extend the run while both the world and the local rank step by 1.
        size_t last = first;
        while (last + 1 < count && worldRankOfLocal[last + 1] == worldRankOfLocal[last] + 1)
            ++last;
        hdtrace::appendInteger(out, worldRankOfLocal[first]);
        if (last > first) {
            out += "..";
            hdtrace::appendInteger(out, worldRankOfLocal[last]);
        }
        out += "->";
        hdtrace::appendInteger(out, static_cast<int64_t>(first));
        if (last > first) {
            out += "..";
            hdtrace::appendInteger(out, static_cast<int64_t>(last));
        }
        out += ';';
        first = last + 1;
    }
}

std::string commLine(int64_t id, std::string_view name, const std::vector<int> &localGroup,
                     const std::vector<int> *remoteGroup) {
    std::string line = "Comm map='";
    appendRankMap(line, localGroup);
    line += '\'';
    if (remoteGroup) {
        line += " remote='";
        appendRankMap(line, *remoteGroup);
        line += '\'';
    }
    line += " id=";
    hdtrace::appendInteger(line, id);
    line += " name='";
    hdtrace::appendXmlEscaped(line, name);
    line += "'\n";
    return line;
}

std::string winLine(int64_t id, int64_t cid, int64_t size, int64_t dispUnit,
                    std::string_view kind) {
    std::string line = "Win id=";
    hdtrace::appendInteger(line, id);
    line += " cid=";
    hdtrace::appendInteger(line, cid);
    line += " size=";
    hdtrace::appendInteger(line, size);
    line += " dispUnit=";
    hdtrace::appendInteger(line, dispUnit);
    line += " kind='";
    line += kind;
    line += "'\n";
    return line;
}

std::string namedTypeLine(int64_t id, std::string_view name, int64_t size, int64_t extent,
                          const std::vector<ByteBlock> &blocks) {
    std::string line = "Type id='";
    hdtrace::appendInteger(line, id);
    line += "' combiner='MPI_COMBINER_NAMED' name='";
    hdtrace::appendXmlEscaped(line, name);
    line += "' size='";
    hdtrace::appendInteger(line, size);
    line += "' extent='";
    hdtrace::appendInteger(line, extent);
    line += '\'';
    if (!blocks.empty()) {
        line += " blocks='";
        for (const ByteBlock &block : blocks) {
            hdtrace::appendInteger(line, block.offset);
            line += ':';
            hdtrace::appendInteger(line, block.length);
            line += ';';
        }
        line += '\'';
    }
    line += '\n';
    return line;
}

// Issue 16: a program like parallel HDF5 makes a new type for every
// transfer, so the line is written into a buffer of the thread's, kept at
// the largest size a line has needed, and copied once into the string.
std::string derivedTypeLine(int64_t id, std::string_view combiner, std::string_view name,
                            const std::vector<int64_t> &integers,
                            const std::vector<MPI_Aint> &addresses, const int64_t *typeIds,
                            size_t typeCount) {
    static constexpr std::string_view kParts[] = {"Type id='",    "' combiner='",  "' name='",
                                                  "' integers='", "' addresses='", "' types='",
                                                  "'\n"};
    size_t largest =
        combiner.size() + hdtrace::kMaxEscapedBytesPerByte * name.size() +
        (hdtrace::kMaxNumberChars + 1) * (1 + integers.size() + addresses.size() + typeCount);
    for (std::string_view part : kParts)
        largest += part.size();
    thread_local std::string buffer;
    if (buffer.size() < largest) buffer.resize(largest);
    char *const begin = &buffer[0];
    char *out = begin;
    const auto put = [&out](std::string_view text) {
        std::memcpy(out, text.data(), text.size());
        out += text.size();
    };
    const auto putList = [&out](const auto *values, size_t count) {
        for (size_t i = 0; i < count; ++i) {
            out = hdtrace::formatInteger(out, static_cast<int64_t>(values[i]));
            *out++ = ';';
        }
    };
    put(kParts[0]);
    out = hdtrace::formatInteger(out, id);
    put(kParts[1]);
    put(combiner);
    put(kParts[2]);
    out = hdtrace::escapeXml(out, name);
    put(kParts[3]);
    putList(integers.data(), integers.size());
    put(kParts[4]);
    putList(addresses.data(), addresses.size());
    put(kParts[5]);
    putList(typeIds, typeCount);
    put(kParts[6]);
    return std::string(begin, static_cast<size_t>(out - begin));
}

std::string derivedTypeLine(int64_t id, std::string_view combiner, std::string_view name,
                            const std::vector<int64_t> &integers,
                            const std::vector<MPI_Aint> &addresses,
                            const std::vector<int64_t> &typeIds) {
    return derivedTypeLine(id, combiner, name, integers, addresses, typeIds.data(), typeIds.size());
}

}  // namespace hdtracempi
