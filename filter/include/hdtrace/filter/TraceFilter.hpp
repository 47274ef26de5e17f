// TraceFilter: which calls, files and ranks a run traces, from the rules of a
// filter file (docs/user/filters.md). The wrapper reads one at MPI_Init and
// turns it into a table by call index; hdtrace score applies the same rules
// to a trace to tell what a filter would keep. The calls and groups are the
// dialect's (format/dialect.toml).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::filter {

// Where a rule or a problem is: the file (or the variable a shorthand came
// from), and the line and column, counted from 1.
struct Place {
    std::string source;
    int line = 0;
    int column = 0;
    std::string text() const;  // "source:line:column"
};

// A filter that cannot be used: what() is "source:line:column: what was
// expected" (or "source: why it cannot be read").
class FilterError : public std::runtime_error {
  public:
    FilterError(Place place, const std::string &message);
    const Place &place() const { return place_; }

  private:
    Place place_;
};

struct RankRange {
    int64_t first = 0;
    int64_t last = 0;  // inclusive
};

struct Rule {
    enum class Kind { Call, Group, File, Ranks };
    Kind kind = Kind::Call;
    bool include = true;                // Ranks: always true
    std::vector<std::string> patterns;  // Call: shell patterns of names; File: of paths
    std::vector<int> groups;            // Group: indexes of dialectGroups()
    std::vector<RankRange> ranks;       // Ranks
    Place place;
};

// A call as filters name it: its tag in the trace, the name a call rule
// matches (MPI_ and the tag, or the C function), and the groups it is in.
struct CallEntry {
    std::string_view tag;
    std::string_view name;
    std::string_view layer;  // "mpi", or the C library's layer ("posix")
    uint64_t groups;         // bit g: in dialectGroups()[g]
};
struct GroupEntry {
    std::string_view name;
    std::string_view about;
    bool layer;  // also named by "layer NAME on|off"
};
const std::vector<CallEntry> &dialectCalls();
const std::vector<GroupEntry> &dialectGroups();
// The index of tag in dialectCalls(), or -1.
int callIndexOf(std::string_view tag);

class TraceFilter {
  public:
    // Adds the rules of text, read from source (a path, or the variable a
    // shorthand came from), after those already added. Throws FilterError
    // at the first line that is not a rule, with nothing added.
    void addText(std::string_view text, const std::string &source);
    // Adds the rules of a filter file; FilterError when it cannot be read.
    void addFile(const std::string &path);
    // Adds one rule made by code (a shorthand such as HDTRACE_POSIX_EXCLUDE).
    void addRule(Rule rule);

    // --- What the rules choose; the last rule that matches decides.
    bool tracesCall(int callIndex) const;  // unmatched: traced
    // By call index of dialectCalls(): 1 traced, 0 left out.
    std::vector<uint8_t> tracedCalls() const;
    bool tracesFile(std::string_view normalisedPath) const;  // unmatched: traced
    bool tracesRank(int64_t rank) const;                     // no ranks rule: every rank
    bool hasFileRules() const;
    bool hasRanksRule() const;

    // Patterns that name nothing the dialect defines, one line each
    // ("source:line:column: call pattern 'MPI_Foo' matches no call").
    const std::vector<std::string> &warnings() const { return warnings_; }
    const std::vector<Rule> &rules() const { return rules_; }

  private:
    std::vector<Rule> rules_;
    std::vector<std::string> warnings_;
};

}  // namespace hdtrace::filter
