#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <string_view>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/reader/TraceForm.hpp>

namespace hdtrace::reader {
namespace {

bool exists(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0;
}

}  // namespace

std::optional<std::string> fileHead(const std::string &path, size_t bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    std::optional<std::string> head;
    struct stat status {};
    if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
        head.emplace(bytes, '\0');
        size_t got = 0;
        while (got < bytes) {
            const ssize_t n = ::read(fd, head->data() + got, bytes - got);
            if (n <= 0) break;
            got += static_cast<size_t>(n);
        }
        head->resize(got);
    }
    ::close(fd);
    return head;
}

TraceForm traceFormOfHead(std::string_view head) {
    const std::string_view magic(frames::kFileMagic, sizeof frames::kFileMagic);
    return head.substr(0, magic.size()) == magic ? TraceForm::Compact : TraceForm::Xml;
}

TraceForm traceFormOf(const std::string &path) {
    // A file that cannot be read is XML here: the XML reader says why.
    const std::optional<std::string> head = fileHead(path, sizeof frames::kFileMagic);
    return head ? traceFormOfHead(*head) : TraceForm::Xml;
}

const char *traceFormName(TraceForm form) {
    return form == TraceForm::Compact ? "compact" : "XML";
}

std::string existingTracePath(const std::string &xmlPath) {
    if (exists(xmlPath) || !hasSuffix(xmlPath, kXmlTraceSuffix)) return xmlPath;
    std::string compact = traceBasePath(xmlPath) + std::string(kCompactTraceSuffix);
    return exists(compact) ? compact : xmlPath;
}

std::string traceBasePath(const std::string &path) {
    for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix})
        if (hasSuffix(path, suffix)) return path.substr(0, path.size() - suffix.size());
    return path;
}

}  // namespace hdtrace::reader
