// Helpers of the merger tests: a temporary run directory filled with
// hand-written .info files, and the written .proj parsed with libxml2.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <hdtrace/merger/Merger.hpp>

namespace hdtrace::merger::testing {

// A fresh directory under $TMPDIR, removed with everything in it.
class RunDirectory {
  public:
    RunDirectory();
    ~RunDirectory();
    RunDirectory(const RunDirectory &) = delete;
    RunDirectory &operator=(const RunDirectory &) = delete;

    const std::string &path() const { return path_; }
    std::string file(const std::string &name) const { return path_ + "/" + name; }

    // <program>_<host>_<rank>_<thread>.info with the given lines, and an
    // empty-program .trc beside it (unless withTrace is false).
    void addTrace(const std::string &program, const std::string &host, int rank, int thread,
                  const std::string &info, bool withTrace = true) const;
    void write(const std::string &name, const std::string &content) const;
    bool exists(const std::string &name) const;
    std::vector<std::string> names() const;  // sorted

  private:
    std::string path_;
};

// The Mpi line of Open MPI 4.1 (the values of this machine's mpi.h).
extern const char *const kOpenMpiLine;

// WORLD ('0..n-1->0..n-1;') and SELF lines for a rank, after the Mpi line.
std::string standardHeader(int rank, int ranks);

using Attributes = std::map<std::string, std::string>;

class ProjectXml {
  public:
    explicit ProjectXml(const std::string &path);  // fails the test when not well-formed
    ~ProjectXml();
    ProjectXml(const ProjectXml &) = delete;
    ProjectXml &operator=(const ProjectXml &) = delete;

    bool valid() const { return document_ != nullptr; }
    // The attributes of every element the XPath expression selects.
    std::vector<Attributes> elements(const std::string &xpath) const;
    // The text content of every node the expression selects.
    std::vector<std::string> texts(const std::string &xpath) const;
    // The tags of the element children of the one element selected.
    std::vector<std::string> childTags(const std::string &xpath) const;

  private:
    void *document_ = nullptr;
};

MergeResult mergeDirectory(const RunDirectory &run, bool force = false);
// The error a merge of run must end with; a failed expectation if it succeeds.
MergeError mergeError(const RunDirectory &run);

}  // namespace hdtrace::merger::testing
