#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/reader/TraceForm.hpp>

namespace hdtrace::reader {
namespace {

bool endsWith(const std::string &text, std::string_view suffix) {
    return text.size() > suffix.size() &&
           std::string_view(text).substr(text.size() - suffix.size()) == suffix;
}

bool exists(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0;
}

}  // namespace

TraceForm traceFormOf(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return TraceForm::Xml;
    char magic[sizeof frames::kFileMagic];
    size_t got = 0;
    struct stat status {};
    // Only a regular file is read: a FIFO would block, and the XML reader
    // refuses the others with its own message.
    if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
        while (got < sizeof magic) {
            const ssize_t n = ::read(fd, magic + got, sizeof magic - got);
            if (n <= 0) break;
            got += static_cast<size_t>(n);
        }
    }
    ::close(fd);
    return got == sizeof magic && std::memcmp(magic, frames::kFileMagic, sizeof magic) == 0
               ? TraceForm::Compact
               : TraceForm::Xml;
}

const char *traceFormName(TraceForm form) {
    return form == TraceForm::Compact ? "compact" : "XML";
}

std::string existingTracePath(const std::string &xmlPath) {
    if (exists(xmlPath) || !endsWith(xmlPath, kXmlTraceSuffix)) return xmlPath;
    std::string compact = traceBasePath(xmlPath) + std::string(kCompactTraceSuffix);
    return exists(compact) ? compact : xmlPath;
}

std::string traceBasePath(const std::string &path) {
    for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix})
        if (endsWith(path, suffix)) return path.substr(0, path.size() - suffix.size());
    return path;
}

}  // namespace hdtrace::reader
