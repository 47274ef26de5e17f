#include <utility>

#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::reader {
namespace {

std::string describe(const std::string &file, int line, int column, const std::string &problem) {
    std::string text = file;
    if (line > 0) {
        text += ":" + std::to_string(line);
        if (column > 0) text += ":" + std::to_string(column);
    }
    return text + ": " + problem;
}

}  // namespace

ReadError::ReadError(std::string file, int line, int column, std::string problem)
    : std::runtime_error(describe(file, line, column, problem)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      problem_(std::move(problem)) {}

}  // namespace hdtrace::reader
