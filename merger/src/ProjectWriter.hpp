// Writes the project description into a temporary file beside the target,
// renamed into place by commit(), so that a failed merge never leaves a
// partial .proj. The XML is written through a buffer of its own, in the
// layout and with the escapes of libxml2's text writer that wrote it before
// (a project is the same byte for byte), at a fraction of its cost per
// element: a project has millions of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "RunModel.hpp"
#include "TypeDecoder.hpp"

namespace hdtrace::merger {

struct UnifiedCommunicator;
class XmlOutput;

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
    // A rank's datatypes in two steps, the first on any thread: its
    // elements rendered apart (renderTypeElements(), as many times as they
    // come, each part a whole type), then the <Rank> element made of them
    // and put in its place.
    static void renderTypeElements(std::string &out, const std::vector<TypeElement> &elements);
    static void renderDatatypeRank(std::string &out, int64_t rank, std::string_view elements);
    void renderedDatatypeRank(std::string_view rendered);
    // Ends the document, flushes, syncs and renames it to the output path.
    void commit();
    // What has reached the temporary file so far.
    uint64_t bytesWritten() const;

  private:
    static constexpr size_t kFlushBytes = size_t(1) << 20;
    // How much written text is left to the kernel before its write-back to
    // the disk is started (see startWriteBack()).
    static constexpr uint64_t kWriteBackBytes = uint64_t(8) << 20;
    // How far behind the end the text on the disk is dropped from the page
    // cache (see startWriteBack()): room for the disk to lag behind.
    static constexpr uint64_t kDropBehindBytes = uint64_t(32) << 20;

    void flush();
    void flushIfFull();
    void startWriteBack();

    std::string outputPath_;
    std::string temporaryPath_;
    int fd_ = -1;
    std::string buffer_;  // written to the file from kFlushBytes on
    std::unique_ptr<XmlOutput> xml_;
    uint64_t flushed_ = 0;
    uint64_t writeBackStarted_ = 0;  // bytes from the start handed to write-back
    uint64_t dropped_ = 0;           // bytes from the start dropped from the cache
    bool committed_ = false;
};

}  // namespace hdtrace::merger
