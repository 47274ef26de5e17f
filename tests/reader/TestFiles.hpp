// Temporary files for the reader tests.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace hdtrace::reader::testing {

// A file with the given text, removed when the object goes.
class TemporaryFile {
  public:
    explicit TemporaryFile(const std::string &text, const std::string &suffix = ".trc") {
        char pattern[] = "/tmp/hdtrace-reader-test-XXXXXX";
        int fd = mkstemp(pattern);
        close(fd);
        std::remove(pattern);
        path_ = std::string(pattern) + suffix;
        std::ofstream(path_, std::ios::binary) << text;
    }
    ~TemporaryFile() { std::remove(path_.c_str()); }
    TemporaryFile(const TemporaryFile &) = delete;
    TemporaryFile &operator=(const TemporaryFile &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

// Whether anything is at path.
inline bool pathExists(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0;
}

// The whole text of the file at path ("" where it cannot be read).
inline std::string fileText(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace hdtrace::reader::testing
