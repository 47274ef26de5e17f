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

bool InfoFileLines::open(const char *path, std::string *error, int directory, bool knownRegular) {
    // A reader may go from file to file: the buffer stays, the rest starts over.
    if (fd_ >= 0) close(fd_);
    start_ = end_ = 0;
    lineNumber_ = 0;
    atEnd_ = false;
    fd_ = ::openat(directory, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
        *error = std::strerror(errno);
        return false;
    }
    if (knownRegular) return true;
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
    // Drop what was consumed before reading more.
    if (start_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + start_, end_ - start_);
        end_ -= start_;
        start_ = 0;
    }
    // Grown only, never shrunk, and not cleared: no byte is written twice.
    if (buffer_.size() < end_ + kBlockBytes) buffer_.resize(end_ + kBlockBytes);
    while (true) {
        const ssize_t got = read(fd_, buffer_.data() + end_, kBlockBytes);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) *error = std::strerror(errno);
        if (got > 0) end_ += static_cast<size_t>(got);
        if (got <= 0) atEnd_ = true;
        return got > 0;
    }
}

InfoFileLines::Status InfoFileLines::next(std::string_view *line, std::string *error) {
    size_t searched = start_;
    while (true) {
        // A buffer not yet filled may have no memory at all (data() null),
        // which memchr must not be given even for a length of 0.
        const void *newline = end_ > searched
                                  ? std::memchr(buffer_.data() + searched, '\n', end_ - searched)
                                  : nullptr;
        if (newline) {
            const size_t at =
                static_cast<size_t>(static_cast<const char *>(newline) - buffer_.data());
            ++lineNumber_;
            *line = std::string_view(buffer_.data() + start_, at - start_);
            start_ = at + 1;
            return line->size() > maxLineBytes ? Status::TooLong : Status::Line;
        }
        if (end_ - start_ > maxLineBytes) {
            // Skip the rest of the line without keeping it.
            ++lineNumber_;
            while (true) {
                start_ = end_ = 0;
                if (!fill(error)) return Status::TooLong;
                const void *end = std::memchr(buffer_.data(), '\n', end_);
                if (end) {
                    start_ =
                        static_cast<size_t>(static_cast<const char *>(end) - buffer_.data()) + 1;
                    return Status::TooLong;
                }
            }
        }
        searched = end_;
        const size_t before = start_;
        if (!fill(error)) {
            if (end_ == start_) return Status::End;
            ++lineNumber_;
            *line = std::string_view(buffer_.data() + start_, end_ - start_);
            start_ = end_;
            return error->empty() ? Status::Unterminated : Status::End;
        }
        searched -= before - start_;  // fill() moved the unread part to the front
    }
}

}  // namespace hdtrace::merger
