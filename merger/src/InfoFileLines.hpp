// Reads a .info file line by line in fixed-size blocks, so that the merger
// holds one line at a time and never the whole file: its memory follows the
// records it keeps, not the size of the file.
#pragma once

#include <fcntl.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hdtrace::merger {

// A .info line longer than this is refused without being held whole: the
// longest line the wrapper writes is a communicator map, and 64 MiB holds a
// map of several million members in the one-entry-per-member form.
constexpr size_t kMaxInfoLineBytes = size_t(64) << 20;

// A File, Comm or Type name longer than this is refused: the readers of the
// .proj (libxml2) refuse attribute values of 10 MB, and escaping may make a
// name six times longer. No path the kernel opens comes near it.
constexpr size_t kMaxInfoNameBytes = size_t(64) << 10;

class InfoFileLines {
  public:
    enum class Status { Line, End, TooLong, Unterminated };

    // Opens only a regular file (O_NONBLOCK: a FIFO must not hang the
    // merge). Returns false with *error set when it cannot. May be called
    // again for the next file (the buffer is kept). A relative path is
    // taken from the directory open as `directory` (the working directory
    // by default); `knownRegular` skips asking the file what it is, where
    // the directory's listing said so already.
    bool open(const char *path, std::string *error, int directory = AT_FDCWD,
              bool knownRegular = false);
    bool open(const std::string &path, std::string *error) { return open(path.c_str(), error); }
    ~InfoFileLines();

    // The next line, without its newline, in *line (valid until the next
    // call). TooLong: the line exceeds maxLineBytes (it is skipped up to its
    // newline); Unterminated: the file ends inside a line. *error is set
    // when reading fails (then End).
    Status next(std::string_view *line, std::string *error);
    size_t lineNumber() const { return lineNumber_; }

    size_t maxLineBytes = kMaxInfoLineBytes;

  private:
    bool fill(std::string *error);  // false at the end of the file or on an error

    int fd_ = -1;
    std::vector<char> buffer_;
    size_t start_ = 0;  // the unread part of buffer_ is [start_, end_)
    size_t end_ = 0;
    size_t lineNumber_ = 0;
    bool atEnd_ = false;
};

}  // namespace hdtrace::merger
