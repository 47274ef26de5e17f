// The project description (.proj): what the merger writes (docs/format/project.md), the
// older layout (<Level name>, <Label value>) and the original
// implementation's (<Distribution class=...>).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/reader/Event.hpp>

namespace hdtrace::reader {

struct ProjectFile {
    std::string name;
    std::optional<int64_t> initialSize;
    std::string distribution;  // the class named by implementation= or class=
    std::string chunkSize;     // as written, e.g. "64K"
};

struct TopologyLeaf {
    std::vector<std::string> labels;  // one per level: host, rank, thread
    // <dir>/<project stem>_<label1>_..._<labelN>.trc, or .ctrc where only
    // the compact form exists (existingTracePath, TraceForm.hpp)
    std::string tracePath;
    int line = 0;  // of the innermost label, for messages
};

struct CommunicatorMember {
    int64_t global = 0;  // rank in MPI_COMM_WORLD
    int64_t local = 0;   // rank in this communicator
    int64_t cid = 0;     // the id this member's trace uses for it
    int line = 0;        // of its <Rank> element, for messages
};

struct Communicator {
    std::string name;
    std::vector<CommunicatorMember> members;
};

// A datatype as the project writes it (docs/format/project.md): the element (NAMED, VECTOR, STRUCT,
// ...), its attributes and its children (<Type>, <BLOCK>, <Block>, <Dimension>).
struct DatatypeElement {
    std::string combiner;
    std::vector<Attribute> attributes;
    std::vector<DatatypeElement> children;
    int line = 0;
};

struct RankDatatypes {
    std::string rank;    // the <Rank name=...> value
    std::string thread;  // the original implementation's thread= (empty when absent)
    std::vector<DatatypeElement> types;
    int line = 0;  // of the <Rank> element, for messages
};

// How the project says where files are distributed: which dialect wrote it.
enum class DistributionStyle {
    Unknown,         // no <Distribution> element
    Implementation,  // <Distribution implementation=...>: our merger
    Class,           // <Distribution class=...>: the original implementation, the older layout
};

struct Project {
    std::string path;
    std::string name;
    std::string description;
    std::vector<ProjectFile> files;
    std::vector<std::string> levels;  // level names, outermost first
    std::vector<TopologyLeaf> leaves;
    std::vector<Communicator> communicators;
    std::vector<RankDatatypes> datatypes;
    DistributionStyle distributionStyle = DistributionStyle::Unknown;
};

// Reads a .proj; throws ReadError (file, line, column, problem).
Project readProject(const std::string &path);

}  // namespace hdtrace::reader
