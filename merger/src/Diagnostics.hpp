// How the merger reports a problem in its input: as a MergeError that stops
// the merge, or, with --force, as a warning that says what was dropped.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <hdtrace/merger/Merger.hpp>

namespace hdtrace::merger {

// "file:line: what", "file: what" or "what".
std::string formatPlace(const std::string &file, size_t line, const std::string &what);

class Diagnostics {
  public:
    explicit Diagnostics(bool force) : force_(force) {}

    // For a part of the merge done on another thread: records every problem
    // as if forced (the part goes on without what is wrong), every warning
    // and failed check, in order; replayInto() reports them later to the
    // merge's Diagnostics, where the first problem throws unless forced, so
    // the merge says what a merge on one thread says.
    static Diagnostics recorder();
    void replayInto(Diagnostics &target) const;

    // Throws MergeError(file, line, what) unless forced; then records
    // "file:line: what; dropped: <dropped>" and returns, and the caller drops it.
    void problem(const std::string &file, size_t line, const std::string &what,
                 const std::string &dropped);
    void warning(const std::string &file, size_t line, const std::string &what);
    // A warning given only for the first call with this key (one per type
    // id, say, rather than one per rank).
    void warningOnce(const std::string &key, const std::string &file, size_t line,
                     const std::string &what);
    // What the written project would fail in the PIOsim tools (ProjectCheck):
    // collected; throwFailedChecks() then stops the merge, unless forced: then each
    // becomes a warning, after every other one, and the project is written.
    void failedCheck(const std::string &file, size_t line, const std::string &what);
    void throwFailedChecks();

    bool forced() const { return force_; }
    std::vector<std::string> &warnings() { return warnings_; }

  private:
    bool force_;
    std::vector<std::string> warnings_;
    std::unordered_set<std::string> warnedKeys_;
    struct Failure {
        std::string file;
        size_t line;
        std::string what;
    };
    std::vector<Failure> failures_;
    // Recorders only.
    struct Recorded {
        enum class Kind : uint8_t { Problem, Warning, WarningOnce, FailedCheck };
        Kind kind;
        std::string file;
        size_t line;
        std::string what;
        std::string dropped;  // WarningOnce: the key
    };
    bool recording_ = false;
    std::vector<Recorded> recorded_;
};

}  // namespace hdtrace::merger
