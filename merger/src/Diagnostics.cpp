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

void Diagnostics::failedCheck(const std::string &file, size_t line, const std::string &what) {
    if (force_)
        warnings_.push_back(formatPlace(file, line, what + " (written anyway: --force)"));
    else
        failures_.push_back({file, line, what});
}

void Diagnostics::throwFailedChecks() {
    if (failures_.empty()) return;
    std::string detail = failures_.front().what;
    for (size_t i = 1; i < failures_.size(); ++i)
        detail += "\n  " + formatPlace(failures_[i].file, failures_[i].line, failures_[i].what);
    detail += "\nThe PIOsim tools would refuse this project; --force writes it anyway.";
    throw MergeError(failures_.front().file, failures_.front().line, detail);
}

void Diagnostics::warning(const std::string &file, size_t line, const std::string &what) {
    warnings_.push_back(formatPlace(file, line, what));
}

void Diagnostics::warningOnce(const std::string &key, const std::string &file, size_t line,
                              const std::string &what) {
    if (warnedKeys_.insert(key).second) warning(file, line, what);
}

}  // namespace hdtrace::merger
