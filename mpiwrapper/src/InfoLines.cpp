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

namespace {

// A program like parallel HDF5 makes a new type for every
// transfer, so lines are composed in a buffer of the thread's, kept at the
// largest size a line has needed.
char *lineBuffer(size_t largest) {
    thread_local std::string buffer;
    if (buffer.size() < largest) buffer.resize(largest);
    return &buffer[0];
}

char *putText(char *out, std::string_view text) {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

template <typename Value>
char *putList(char *out, const Value *values, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        out = hdtrace::formatInteger(out, static_cast<int64_t>(values[i]));
        *out++ = ';';
    }
    return out;
}

constexpr std::string_view kAddressesPart = "' addresses='";

}  // namespace

void formatTypeArguments(std::string &out, const int64_t *integers, size_t integerCount,
                         const MPI_Aint *addresses, size_t addressCount) {
    const size_t largest =
        kAddressesPart.size() + (hdtrace::kMaxNumberChars + 1) * (integerCount + addressCount);
    char *const begin = lineBuffer(largest);
    char *p = putList(begin, integers, integerCount);
    p = putText(p, kAddressesPart);
    p = putList(p, addresses, addressCount);
    out.assign(begin, static_cast<size_t>(p - begin));
}

void formatDerivedTypeLine(std::string &out, int64_t id, std::string_view combiner,
                           std::string_view name, std::string_view arguments,
                           const int64_t *typeIds, size_t typeCount, const TypeFigures &figures) {
    static constexpr std::string_view kParts[] = {"Type id='",    "' combiner='", "' name='",
                                                  "' integers='", "' types='",    "'\n"};
    static constexpr std::string_view kFigureParts[] = {"' size='", "' lb='", "' extent='"};
    size_t largest = combiner.size() + hdtrace::kMaxEscapedBytesPerByte * name.size() +
                     arguments.size() + (hdtrace::kMaxNumberChars + 1) * (4 + typeCount);
    for (std::string_view part : kFigureParts)
        largest += part.size();
    for (std::string_view part : kParts)
        largest += part.size();
    char *const begin = lineBuffer(largest);
    char *p = putText(begin, kParts[0]);
    p = hdtrace::formatInteger(p, id);
    p = putText(p, kParts[1]);
    p = putText(p, combiner);
    p = putText(p, kParts[2]);
    p = hdtrace::escapeXml(p, name);
    p = putText(p, kParts[3]);
    p = putText(p, arguments);
    p = putText(p, kParts[4]);
    p = putList(p, typeIds, typeCount);
    if (figures.known) {
        p = putText(p, kFigureParts[0]);
        p = hdtrace::formatInteger(p, figures.size);
        p = putText(p, kFigureParts[1]);
        p = hdtrace::formatInteger(p, figures.lowerBound);
        p = putText(p, kFigureParts[2]);
        p = hdtrace::formatInteger(p, figures.extent);
    }
    p = putText(p, kParts[5]);
    out.assign(begin, static_cast<size_t>(p - begin));
}

std::string derivedTypeLine(int64_t id, std::string_view combiner, std::string_view name,
                            const std::vector<int64_t> &integers,
                            const std::vector<MPI_Aint> &addresses,
                            const std::vector<int64_t> &typeIds, const TypeFigures &figures) {
    std::string line;
    formatTypeArguments(line, integers.data(), integers.size(), addresses.data(), addresses.size());
    formatDerivedTypeLine(line, id, combiner, name, line, typeIds.data(), typeIds.size(), figures);
    return line;
}

}  // namespace hdtracempi
