#include "Diagnostics.hpp"

namespace hdtrace::merger {

std::string formatPlace(const std::string &file, size_t line, const std::string &what) {
    std::string text;
    if (!file.empty()) {
        text = file;
        if (line > 0) text += ":" + std::to_string(line);
        text += ": ";
    }
    return text + what;
}

MergeError::MergeError(std::string file, size_t line, std::string detail)
    : std::runtime_error(formatPlace(file, line, detail)),
      file_(std::move(file)),
      line_(line),
      detail_(std::move(detail)) {}

void Diagnostics::problem(const std::string &file, size_t line, const std::string &what,
                          const std::string &dropped) {
    if (!force_) throw MergeError(file, line, what);
    warnings_.push_back(formatPlace(file, line, what + "; dropped " + dropped));
}

void Diagnostics::warning(const std::string &file, size_t line, const std::string &what) {
    warnings_.push_back(formatPlace(file, line, what));
}

}  // namespace hdtrace::merger
