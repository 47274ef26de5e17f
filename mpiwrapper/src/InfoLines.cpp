#include "InfoLines.hpp"

#include <cstring>

#include <hdtrace/InfoLine.hpp>
#include <hdtrace/codec/Format.hpp>

namespace hdtracempi {
namespace {

template <typename Number>
void appendList(std::string &out, const std::vector<Number> &values) {
    for (Number value : values) {
        hdtrace::appendInteger(out, static_cast<int64_t>(value));
        out += ';';
    }
}

}  // namespace

std::string mpiLibraryLine() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    PMPI_Get_library_version(version, &length);
    std::string_view library(version, static_cast<size_t>(length > 0 ? length : 0));
    library = library.substr(0, library.find_first_of(std::string_view("\r\n\0", 3)));
    std::string line;
    hdtrace::InfoLineWriter(line, "Mpi")
        .appended([&](std::string &out) { hdtrace::appendXmlEscaped(out, library); })
        .integer(MPI_ORDER_C)
        .integer(MPI_ORDER_FORTRAN)
        .integer(MPI_DISTRIBUTE_BLOCK)
        .integer(MPI_DISTRIBUTE_CYCLIC)
        .integer(MPI_DISTRIBUTE_NONE)
        .integer(MPI_DISTRIBUTE_DFLT_DARG)
        .end();
    return line;
}

std::string fileLine(std::string_view name, int64_t initialSize, int64_t id) {
    std::string line;
    hdtrace::InfoLineWriter(line, "File")
        .appended([&](std::string &out) { hdtrace::appendXmlEscaped(out, name); })
        .integer(initialSize)
        .integer(id)
        .end();
    return line;
}

void appendRankMap(std::string &out, const std::vector<int> &worldRankOfLocal) {
    const size_t count = worldRankOfLocal.size();
    size_t first = 0;
    while (first < count) {
        // Extend the run while the world rank keeps one step (the local rank
        // steps by 1). A step of 1 is the plain run; another step is worth
        // the strided form from 3 members on, as a column of a grid is.
        size_t last = first;
        int64_t step = 1;
        if (first + 1 < count)
            step = int64_t{worldRankOfLocal[first + 1]} - worldRankOfLocal[first];
        while (last + 1 < count &&
               int64_t{worldRankOfLocal[last + 1]} - worldRankOfLocal[last] == step)
            ++last;
        if (step != 1 && last - first < 2) last = first;
        hdtrace::appendInteger(out, worldRankOfLocal[first]);
        if (last > first) {
            out += "..";
            hdtrace::appendInteger(out, worldRankOfLocal[last]);
            if (step != 1) {
                out += ':';
                hdtrace::appendInteger(out, step);
            }
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
    std::string line;
    hdtrace::InfoLineWriter writer(line, "Comm");
    writer.appended([&](std::string &out) { appendRankMap(out, localGroup); });
    if (remoteGroup)
        writer.appended([&](std::string &out) { appendRankMap(out, *remoteGroup); });
    else
        writer.omit();
    writer.integer(id)
        .appended([&](std::string &out) { hdtrace::appendXmlEscaped(out, name); })
        .end();
    return line;
}

std::string winLine(int64_t id, int64_t cid, int64_t size, int64_t dispUnit,
                    std::string_view kind) {
    std::string line;
    hdtrace::InfoLineWriter(line, "Win")
        .integer(id)
        .integer(cid)
        .integer(size)
        .integer(dispUnit)
        .text(kind)
        .end();
    return line;
}

std::string namedTypeLine(int64_t id, std::string_view name, int64_t size, int64_t extent,
                          const std::vector<ByteBlock> &blocks) {
    std::string line;
    hdtrace::InfoLineWriter writer(line, "Type");
    writer.integer(id)
        .text("MPI_COMBINER_NAMED")
        .appended([&](std::string &out) { hdtrace::appendXmlEscaped(out, name); })
        .omit()  // integers, addresses, types: a named type has no contents
        .omit()
        .omit()
        .integer(size)
        .omit()  // lb: 0 for every predefined type
        .integer(extent);
    if (!blocks.empty())
        writer.appended([&](std::string &out) {
            for (const ByteBlock &block : blocks) {
                hdtrace::appendInteger(out, block.offset);
                out += ':';
                hdtrace::appendInteger(out, block.length);
                out += ';';
            }
        });
    writer.end();
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

}  // namespace hdtracempi
