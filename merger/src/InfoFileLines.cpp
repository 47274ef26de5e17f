#include "InfoFileLines.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hdtrace::merger {
namespace {

constexpr size_t kBlockBytes = size_t(1) << 16;

}  // namespace

bool InfoFileLines::open(const std::string &path, std::string *error) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
        *error = std::strerror(errno);
        return false;
    }
    struct stat status {};
    if (fstat(fd_, &status) != 0 || !S_ISREG(status.st_mode)) {
        *error = "not a regular file";
        return false;
    }
    return true;
}

InfoFileLines::~InfoFileLines() {
    if (fd_ >= 0) close(fd_);
}

bool InfoFileLines::fill(std::string *error) {
    if (atEnd_) return false;
    // Drop what was consumed before growing the buffer.
    if (start_ > 0) {
        buffer_.erase(0, start_);
        start_ = 0;
    }
    const size_t used = buffer_.size();
    buffer_.resize(used + kBlockBytes);
    while (true) {
        const ssize_t got = read(fd_, buffer_.data() + used, kBlockBytes);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) *error = std::strerror(errno);
        buffer_.resize(used + (got > 0 ? static_cast<size_t>(got) : 0));
        if (got <= 0) atEnd_ = true;
        return got > 0;
    }
}

InfoFileLines::Status InfoFileLines::next(std::string_view *line, std::string *error) {
    size_t searched = start_;
    while (true) {
        const size_t newline = buffer_.find('\n', searched);
        if (newline != std::string::npos) {
            ++lineNumber_;
            *line = std::string_view(buffer_.data() + start_, newline - start_);
            start_ = newline + 1;
            return line->size() > maxLineBytes ? Status::TooLong : Status::Line;
        }
        if (buffer_.size() - start_ > maxLineBytes) {
            // Skip the rest of the line without keeping it.
            ++lineNumber_;
            while (true) {
                buffer_.clear();
                start_ = 0;
                if (!fill(error)) return Status::TooLong;
                const size_t end = buffer_.find('\n');
                if (end != std::string::npos) {
                    start_ = end + 1;
                    return Status::TooLong;
                }
            }
        }
        searched = buffer_.size();
        const size_t before = start_;
        if (!fill(error)) {
            if (buffer_.size() == start_) return Status::End;
            ++lineNumber_;
            *line = std::string_view(buffer_.data() + start_, buffer_.size() - start_);
            start_ = buffer_.size();
            return error->empty() ? Status::Unterminated : Status::End;
        }
        searched -= before - start_;  // fill() moved the unread part to the front
    }
}

}  // namespace hdtrace::merger
