// Writes the project description with libxml2's xmlTextWriter into a
// temporary file beside the target, renamed into place by commit(), so that
// a failed merge never leaves a partial .proj.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "RunModel.hpp"
#include "TypeDecoder.hpp"

typedef struct _xmlTextWriter xmlTextWriter;

namespace hdtrace::merger {

struct UnifiedCommunicator;

class ProjectWriter {
  public:
    // Creates the temporary file; throws MergeError when it cannot.
    explicit ProjectWriter(std::string outputPath);
    ~ProjectWriter();  // removes the temporary file unless committed
    ProjectWriter(const ProjectWriter &) = delete;
    ProjectWriter &operator=(const ProjectWriter &) = delete;

    void startApplication(const std::string &program, const std::string &description);
    void fileList(const std::vector<ProjectFile> &files, const std::string &distributionClass,
                  const std::string &chunkSize);
    void topology(const RunModel &run);
    void communicators(const std::vector<UnifiedCommunicator> &communicators);
    void startDatatypes();
    void datatypeRank(int64_t rank, const std::vector<TypeElement> &types);
    // Ends the document, flushes, syncs and renames it to the output path.
    void commit();
    // What has reached the temporary file so far.
    uint64_t bytesWritten() const;

  private:
    void check(int result, const char *what);
    void startElement(const char *tag);
    void endElement();
    void attribute(const char *name, const std::string &value);
    void element(const TypeElement &type);

    std::string outputPath_;
    std::string temporaryPath_;
    int fd_ = -1;
    xmlTextWriter *writer_ = nullptr;
    bool committed_ = false;
};

}  // namespace hdtrace::merger
