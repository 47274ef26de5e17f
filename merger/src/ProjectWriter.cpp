#include "ProjectWriter.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include <hdtrace/merger/Merger.hpp>

#include "CommunicatorUnifier.hpp"
#include "XmlOutput.hpp"

namespace hdtrace::merger {
namespace {

std::string directoryOf(const std::string &path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

ProjectWriter::ProjectWriter(std::string outputPath) : outputPath_(std::move(outputPath)) {
    const size_t slash = outputPath_.rfind('/');
    const std::string name =
        slash == std::string::npos ? outputPath_ : outputPath_.substr(slash + 1);
    temporaryPath_ =
        (slash == std::string::npos ? std::string() : outputPath_.substr(0, slash + 1)) + "." +
        name + ".XXXXXX";
    fd_ = mkostemp(temporaryPath_.data(), O_CLOEXEC);
    if (fd_ < 0)
        throw MergeError(outputPath_, 0,
                         "cannot create a temporary file in " + directoryOf(outputPath_) + ": " +
                             std::strerror(errno));
    buffer_.reserve(kFlushBytes + (size_t(1) << 16));
    buffer_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    xml_ = std::make_unique<XmlOutput>(buffer_);
}

ProjectWriter::~ProjectWriter() {
    if (fd_ >= 0) close(fd_);
    if (!committed_) unlink(temporaryPath_.c_str());
}

void ProjectWriter::flushIfFull() {
    if (buffer_.size() >= kFlushBytes) flush();
}

void ProjectWriter::flush() {
    size_t done = 0;
    while (done < buffer_.size()) {
        const ssize_t wrote = write(fd_, buffer_.data() + done, buffer_.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0)
            throw MergeError(outputPath_, 0,
                             "cannot write (" + temporaryPath_ +
                                 "): " + std::strerror(wrote < 0 ? errno : ENOSPC));
        done += static_cast<size_t>(wrote);
    }
    flushed_ += buffer_.size();
    buffer_.clear();
    startWriteBack();
}

// The project is synced before it is renamed into place. Left to the
// kernel, its pages would reach the disk only then, and a large project
// would wait for the whole file at the end: seconds for the 750 MB of a
// run of 131,072 ranks, when a few MB take milliseconds (a disk's or a
// host's write cache absorbs them). Started as the text comes, the
// write-back runs while the rest of the project is made, and the sync
// waits for the last few MB only.
//
// The text on the disk is then dropped from the page cache, a little
// behind the end. Nothing reads it back during the merge, and kept, it
// would take fresh pages all the way through: on the machine measured, the
// kernel's copy of a 750 MB project into them took 0.7 to 1.5 s of CPU,
// that of a 370 MB one 0.05 s. Dropped, the same few pages are used again
// and again.
void ProjectWriter::startWriteBack() {
#ifdef SYNC_FILE_RANGE_WRITE
    if (flushed_ - writeBackStarted_ < kWriteBackBytes) return;
    // Only hints: an error here is the sync's to report.
    (void)sync_file_range(fd_, static_cast<off_t>(writeBackStarted_),
                          static_cast<off_t>(flushed_ - writeBackStarted_), SYNC_FILE_RANGE_WRITE);
    writeBackStarted_ = flushed_;
    if (flushed_ - dropped_ < 2 * kDropBehindBytes) return;
    const uint64_t dropUpTo = flushed_ - kDropBehindBytes;
    // Pages still being written are not dropped: waited for first.
    (void)sync_file_range(fd_, static_cast<off_t>(dropped_),
                          static_cast<off_t>(dropUpTo - dropped_), SYNC_FILE_RANGE_WAIT_BEFORE);
    (void)posix_fadvise(fd_, static_cast<off_t>(dropped_), static_cast<off_t>(dropUpTo - dropped_),
                        POSIX_FADV_DONTNEED);
    dropped_ = dropUpTo;
#endif
}

void ProjectWriter::startApplication(const std::string &program, const std::string &description) {
    xml_->startElement("Application");
    xml_->attribute("name", program);
    xml_->startElement("Description");
    xml_->text(description);
    xml_->endElement();
}

void ProjectWriter::fileList(const std::vector<ProjectFile> &files,
                             const std::string &distributionClass, const std::string &chunkSize) {
    xml_->startElement("FileList");
    for (const ProjectFile &file : files) {
        xml_->startElement("File");
        xml_->attribute("name", file.name);
        xml_->startElement("InitialSize");
        xml_->text(std::to_string(file.initialSize));
        xml_->endElement();
        xml_->startElement("Distribution");
        xml_->attribute("implementation", distributionClass);
        xml_->startElement("ChunkSize");
        xml_->text(chunkSize);
        xml_->endElement();
        xml_->endElement();
        xml_->endElement();
        flushIfFull();
    }
    xml_->endElement();
}

void ProjectWriter::topology(const RunModel &run) {
    xml_->startElement("Topology");
    xml_->startElement("Level");
    xml_->attribute("type", "Hostname");
    xml_->startElement("Level");
    xml_->attribute("type", "Rank");
    xml_->startElement("Level");
    xml_->attribute("type", "Thread");
    xml_->fullEndElement();
    xml_->endElement();
    xml_->endElement();

    // Hosts in the order of their lowest rank; ranks and threads ascending.
    std::vector<std::string> hosts;
    std::unordered_map<std::string, std::vector<uint32_t>> tracesOfHost;
    for (uint32_t index = 0; index < run.traces.size(); ++index) {
        auto [found, added] = tracesOfHost.try_emplace(run.traces[index].host);
        if (added) hosts.push_back(run.traces[index].host);
        found->second.push_back(index);
    }
    for (const std::string &host : hosts) {
        xml_->startElement("Node");
        xml_->attribute("name", host);
        const std::vector<uint32_t> &traces = tracesOfHost[host];
        for (size_t i = 0; i < traces.size();) {
            const TraceSource &first = run.traces[traces[i]];
            xml_->startElement("Node");
            xml_->attribute("name", first.rankText);
            for (; i < traces.size() && run.traces[traces[i]].rank == first.rank; ++i) {
                xml_->startElement("Node");
                xml_->attribute("name", run.traces[traces[i]].threadText);
                xml_->endElement();
            }
            xml_->endElement();
        }
        xml_->endElement();
        flushIfFull();
    }
    xml_->endElement();
}

void ProjectWriter::communicators(const std::vector<UnifiedCommunicator> &communicators) {
    xml_->startElement("CommunicatorList");
    for (const UnifiedCommunicator &communicator : communicators) {
        xml_->startElement("Communicator");
        xml_->attribute("name", communicator.name);
        size_t member = 0;
        for (const RankRun &run : communicator.members) {
            for (int64_t i = 0; i < run.length; ++i, ++member) {
                xml_->startElement("Rank");
                xml_->attribute("global", run.world + i);
                xml_->attribute("local", run.local + i);
                // -1: this member's .info never names the communicator.
                xml_->attribute("cid", communicator.cids[member]);
                xml_->endElement();
            }
        }
        xml_->fullEndElement();
        flushIfFull();
    }
    xml_->endElement();
}

void ProjectWriter::startDatatypes() {
    xml_->startElement("Datatypes");
}

namespace {

void appendElement(XmlOutput &xml, const TypeElement &type) {
    xml.startElement(type.tag.c_str());
    for (const auto &[name, value] : type.attributes)
        xml.attribute(name, value);
    for (const TypeElement &child : type.children)
        appendElement(xml, child);
    xml.endElement();
}

}  // namespace

void ProjectWriter::renderTypeElements(std::string &out, const std::vector<TypeElement> &elements) {
    XmlOutput xml(out, 3);  // in <Application><Datatypes><Rank>
    for (const TypeElement &element : elements)
        appendElement(xml, element);
}

void ProjectWriter::renderDatatypeRank(std::string &out, int64_t rank, std::string_view elements) {
    XmlOutput xml(out, 2);  // in <Application><Datatypes>
    xml.startElement("Rank");
    xml.attribute("name", rank);
    if (!elements.empty()) xml.appendElements(elements);
    xml.fullEndElement();
}

void ProjectWriter::renderedDatatypeRank(std::string_view rendered) {
    xml_->appendElements(rendered);
    flushIfFull();
}

uint64_t ProjectWriter::bytesWritten() const {
    return flushed_ + buffer_.size();
}

void ProjectWriter::commit() {
    while (xml_->anyOpen())
        xml_->endElement();
    flush();
    if (fsync(fd_) != 0 && errno != EINVAL)
        throw MergeError(outputPath_, 0, std::string("cannot write: ") + std::strerror(errno));
    const int closed = close(fd_);
    fd_ = -1;
    if (closed != 0)
        throw MergeError(outputPath_, 0, std::string("cannot write: ") + std::strerror(errno));
    // mkstemp creates the file 0600; a project file is as readable as a trace.
    const mode_t mask = umask(0);
    umask(mask);
    chmod(temporaryPath_.c_str(), 0666 & ~mask);
    if (rename(temporaryPath_.c_str(), outputPath_.c_str()) != 0)
        throw MergeError(outputPath_, 0,
                         std::string("cannot rename ") + temporaryPath_ +
                             " into place: " + std::strerror(errno));
    committed_ = true;
}

}  // namespace hdtrace::merger
