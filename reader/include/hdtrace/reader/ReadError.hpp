// The one exception of the reader: what is wrong, and where in which file.
#pragma once

#include <stdexcept>
#include <string>

namespace hdtrace::reader {

class ReadError : public std::runtime_error {
  public:
    // line and column count from 1; 0 means "not known" (e.g. a missing file).
    ReadError(std::string file, int line, int column, std::string problem);

    const std::string &file() const { return file_; }
    int line() const { return line_; }
    int column() const { return column_; }
    const std::string &problem() const { return problem_; }

  private:
    std::string file_;
    int line_;
    int column_;
    std::string problem_;
};

}  // namespace hdtrace::reader
