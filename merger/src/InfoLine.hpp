// The records of a .info sidecar, one per line (docs/format/info.md: the Mpi
// header line, File, Comm with compact maps, Type, Win, Clock), and the
// parser of a single line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hdtrace::merger {

// The MPI library's values of the constants that SUBARRAY and DARRAY
// integers carry. They differ between implementations.
struct MpiConstants {
    std::string library;
    int64_t orderC = 0;
    int64_t orderFortran = 1;
    int64_t distributeBlock = 0;
    int64_t distributeCyclic = 1;
    int64_t distributeNone = 2;
    int64_t distributeDfltDarg = -1;
};

// Open MPI's values: the fallback for traces without an Mpi line.
inline MpiConstants openMpiConstants() {
    MpiConstants constants;
    constants.library = "Open MPI (assumed)";
    return constants;
}

// world, world+stride, ..., world+(length-1)*stride -> local..local+length-1.
// Only a parsed line has strides other than 1; the canonical maps the
// unifier makes have stride 1 throughout.
struct RankRun {
    int64_t world;
    int64_t local;
    int64_t length;
    int64_t stride = 1;
    int64_t lastWorld() const { return world + (length - 1) * stride; }
    int64_t lowestWorld() const { return stride < 0 ? lastWorld() : world; }
    int64_t highestWorld() const { return stride < 0 ? world : lastWorld(); }
    bool operator==(const RankRun &other) const {
        return world == other.world && local == other.local && length == other.length &&
               stride == other.stride;
    }
};
using RankMap = std::vector<RankRun>;

struct FileRecord {
    std::string name;
    int64_t size = 0;
    int64_t id = 0;
};

struct CommRecord {
    // Set by InfoRecordPool: 0, 1, 2, ... over a run's distinct Comm lines,
    // so that what is worked out per record is kept in an array by it.
    uint32_t ordinal = 0;
    int64_t id = 0;
    std::string name;
    RankMap map;     // the (local) group
    RankMap remote;  // the remote group of an intercommunicator
    bool intercommunicator = false;
};

struct TypeRecord {
    uint32_t ordinal = 0;  // as CommRecord's, over the run's distinct Type lines
    int64_t id = 0;
    std::string combiner;  // without the MPI_COMBINER_ prefix, e.g. "VECTOR"
    std::string name;
    std::vector<int64_t> integers;
    std::vector<int64_t> addresses;
    std::vector<int64_t> types;
    // What MPI says of the type, in bytes. Predefined (NAMED) types carry
    // size and extent (-1: the line has none, an older trace), and the data
    // blocks (offset, length) when they are not the single block [0, size).
    // Derived types carry size, lower bound and extent together
    // (hasLowerBound), or none of them (a trace of an older HDTrace).
    int64_t size = -1;
    int64_t extent = -1;
    int64_t lowerBound = 0;
    bool hasLowerBound = false;
    std::vector<std::pair<int64_t, int64_t>> blocks;

    // Whether the line says the type's size, lower bound and extent.
    bool measured() const { return size >= 0 && (hasLowerBound || combiner == "NAMED"); }
};

struct InfoLine {
    enum class Kind { Ignored, Mpi, File, Comm, Type };
    Kind kind = Kind::Ignored;
    MpiConstants mpi;
    FileRecord file;
    CommRecord comm;
    TypeRecord type;
};

// What is wrong with a line; the reader adds the file and line number.
class InfoSyntaxError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Parses one line (without its newline). Empty lines and lines of kinds this
// version does not know give Kind::Ignored; a known kind with a missing,
// malformed or unterminated attribute throws InfoSyntaxError.
void parseInfoLine(std::string_view text, InfoLine &out);

// Decodes the XML escapes the writer puts into names (&amp; &lt; &gt;
// &apos; &quot; &#N; &#xH;). Throws InfoSyntaxError on an unknown one.
std::string unescapeInfoValue(std::string_view text);

// Parses "w->l;" and "w1..w2->l1..l2;" entries.
RankMap parseRankMap(std::string_view text);

}  // namespace hdtrace::merger
