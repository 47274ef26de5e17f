#include "ProjectWriter.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include <libxml/xmlwriter.h>

#include <hdtrace/Format.hpp>
#include <hdtrace/merger/Merger.hpp>

#include "CommunicatorUnifier.hpp"

namespace hdtrace::merger {
namespace {

const xmlChar *xml(const char *text) {
    return reinterpret_cast<const xmlChar *>(text);
}

// Length of the valid UTF-8 sequence at text[pos], or 0.
size_t utf8SequenceLength(const std::string &text, size_t pos) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    size_t length = 0;
    uint32_t code = 0;
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) {
        length = 2;
        code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3;
        code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4;
        code = lead & 0x07;
    } else {
        return 0;
    }
    if (pos + length > text.size()) return 0;
    for (size_t i = 1; i < length; ++i) {
        if ((byte(pos + i) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (byte(pos + i) & 0x3F);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) ||
        code == 0xFFFE || code == 0xFFFF)
        return 0;
    return length;
}

void appendCodePoint(std::string &out, uint32_t code) {
    if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

// Text that XML 1.0 can carry: bytes that are not UTF-8 are taken as Latin-1
// and control characters other than tab, LF and CR become their symbol in
// the Unicode Control Pictures block, as the trace writer does. libxml2
// escapes the markup characters itself.
std::string xmlText(const std::string &text) {
    bool clean = true;
    for (size_t pos = 0; pos < text.size() && clean;) {
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        const size_t length = utf8SequenceLength(text, pos);
        if (length == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) clean = false;
        pos += length ? length : 1;
    }
    if (clean) return text;
    std::string out;
    for (size_t pos = 0; pos < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        const size_t length = utf8SequenceLength(text, pos);
        if (length == 0) {
            appendCodePoint(out, c);
            ++pos;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            appendCodePoint(out, 0x2400 + c);
            ++pos;
        } else {
            out.append(text, pos, length);
            pos += length;
        }
    }
    return out;
}

std::string number(int64_t value) {
    std::string out;
    appendInteger(out, value);
    return out;
}

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
    xmlOutputBufferPtr buffer = xmlOutputBufferCreateFd(fd_, nullptr);
    writer_ = buffer ? xmlNewTextWriter(buffer) : nullptr;
    if (!writer_) {
        if (buffer) xmlOutputBufferClose(buffer);
        close(fd_);
        unlink(temporaryPath_.c_str());
        throw MergeError(outputPath_, 0, "cannot set up the XML writer");
    }
    check(xmlTextWriterSetIndent(writer_, 1), "set indentation");
    check(xmlTextWriterSetIndentString(writer_, xml(" ")), "set indentation");
    check(xmlTextWriterStartDocument(writer_, "1.0", "UTF-8", nullptr), "write the prolog");
}

ProjectWriter::~ProjectWriter() {
    if (writer_) xmlFreeTextWriter(writer_);
    if (fd_ >= 0) close(fd_);
    if (!committed_) unlink(temporaryPath_.c_str());
}

void ProjectWriter::check(int result, const char *what) {
    if (result < 0)
        throw MergeError(outputPath_, 0,
                         std::string("cannot ") + what + " (" + temporaryPath_ +
                             "): " + (errno ? std::strerror(errno) : "libxml2 error"));
}

void ProjectWriter::startElement(const char *tag) {
    check(xmlTextWriterStartElement(writer_, xml(tag)), "write");
}

void ProjectWriter::endElement() {
    check(xmlTextWriterEndElement(writer_), "write");
}

void ProjectWriter::attribute(const char *name, const std::string &value) {
    check(xmlTextWriterWriteAttribute(writer_, xml(name), xml(xmlText(value).c_str())), "write");
}

void ProjectWriter::startApplication(const std::string &program, const std::string &description) {
    startElement("Application");
    attribute("name", program);
    startElement("Description");
    check(xmlTextWriterWriteString(writer_, xml(xmlText(description).c_str())), "write");
    endElement();
}

void ProjectWriter::fileList(const std::vector<ProjectFile> &files,
                             const std::string &distributionClass, const std::string &chunkSize) {
    startElement("FileList");
    for (const ProjectFile &file : files) {
        startElement("File");
        attribute("name", file.name);
        startElement("InitialSize");
        check(xmlTextWriterWriteString(writer_, xml(number(file.initialSize).c_str())), "write");
        endElement();
        startElement("Distribution");
        attribute("implementation", distributionClass);
        startElement("ChunkSize");
        check(xmlTextWriterWriteString(writer_, xml(xmlText(chunkSize).c_str())), "write");
        endElement();
        endElement();
        endElement();
    }
    endElement();
}

void ProjectWriter::topology(const RunModel &run) {
    startElement("Topology");
    startElement("Level");
    attribute("type", "Hostname");
    startElement("Level");
    attribute("type", "Rank");
    startElement("Level");
    attribute("type", "Thread");
    check(xmlTextWriterFullEndElement(writer_), "write");
    endElement();
    endElement();

    // Hosts in the order of their lowest rank; ranks and threads ascending.
    std::vector<std::string> hosts;
    std::unordered_map<std::string, std::vector<uint32_t>> tracesOfHost;
    for (uint32_t index = 0; index < run.traces.size(); ++index) {
        auto [found, added] = tracesOfHost.try_emplace(run.traces[index].host);
        if (added) hosts.push_back(run.traces[index].host);
        found->second.push_back(index);
    }
    for (const std::string &host : hosts) {
        startElement("Node");
        attribute("name", host);
        const std::vector<uint32_t> &traces = tracesOfHost[host];
        for (size_t i = 0; i < traces.size();) {
            const TraceSource &first = run.traces[traces[i]];
            startElement("Node");
            attribute("name", first.rankText);
            for (; i < traces.size() && run.traces[traces[i]].rank == first.rank; ++i) {
                startElement("Node");
                attribute("name", run.traces[traces[i]].threadText);
                endElement();
            }
            endElement();
        }
        endElement();
    }
    endElement();
}

void ProjectWriter::communicators(const std::vector<UnifiedCommunicator> &communicators) {
    startElement("CommunicatorList");
    for (const UnifiedCommunicator &communicator : communicators) {
        startElement("Communicator");
        attribute("name", communicator.name);
        size_t member = 0;
        for (const RankRun &run : communicator.members) {
            for (int64_t i = 0; i < run.length; ++i, ++member) {
                startElement("Rank");
                attribute("global", number(run.world + i));
                attribute("local", number(run.local + i));
                // -1: this member's .info never names the communicator.
                attribute("cid", number(communicator.cids[member]));
                endElement();
            }
        }
        check(xmlTextWriterFullEndElement(writer_), "write");
    }
    endElement();
}

void ProjectWriter::startDatatypes() {
    startElement("Datatypes");
}

void ProjectWriter::element(const TypeElement &type) {
    startElement(type.tag.c_str());
    for (const auto &[name, value] : type.attributes)
        attribute(name, value);
    for (const TypeElement &child : type.children)
        element(child);
    endElement();
}

void ProjectWriter::datatypeRank(int64_t rank, const std::vector<TypeElement> &types) {
    startElement("Rank");
    attribute("name", number(rank));
    for (const TypeElement &type : types)
        element(type);
    check(xmlTextWriterFullEndElement(writer_), "write");
}

uint64_t ProjectWriter::bytesWritten() const {
    struct stat status {};
    return fd_ >= 0 && fstat(fd_, &status) == 0 ? static_cast<uint64_t>(status.st_size) : 0;
}

void ProjectWriter::commit() {
    check(xmlTextWriterEndDocument(writer_), "finish the document");
    check(xmlTextWriterFlush(writer_), "write");
    xmlFreeTextWriter(writer_);  // closes the output buffer, not the descriptor
    writer_ = nullptr;
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
