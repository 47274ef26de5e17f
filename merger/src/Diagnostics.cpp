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

Diagnostics Diagnostics::recorder() {
    Diagnostics recorder(true);
    recorder.recording_ = true;
    return recorder;
}

void Diagnostics::replayInto(Diagnostics &target) const {
    for (const Recorded &entry : recorded_) {
        switch (entry.kind) {
            case Recorded::Kind::Problem:
                target.problem(entry.file, entry.line, entry.what, entry.dropped);
                break;
            case Recorded::Kind::Warning:
                target.warning(entry.file, entry.line, entry.what);
                break;
            case Recorded::Kind::FailedCheck:
                target.failedCheck(entry.file, entry.line, entry.what);
                break;
            case Recorded::Kind::WarningOnce:
                target.warningOnce(entry.dropped, entry.file, entry.line, entry.what);
                break;
        }
    }
}

void Diagnostics::problem(const std::string &file, size_t line, const std::string &what,
                          const std::string &dropped) {
    if (recording_)
        return recorded_.push_back({Recorded::Kind::Problem, file, line, what, dropped});
    if (!force_) throw MergeError(file, line, what);
    warnings_.push_back(formatPlace(file, line, what + "; dropped " + dropped));
}

void Diagnostics::failedCheck(const std::string &file, size_t line, const std::string &what) {
    if (recording_) return recorded_.push_back({Recorded::Kind::FailedCheck, file, line, what, {}});
    failures_.push_back({file, line, what});
}

void Diagnostics::throwFailedChecks() {
    if (failures_.empty()) return;
    if (force_) {
        for (const Failure &failure : failures_)
            warnings_.push_back(formatPlace(failure.file, failure.line,
                                            failure.what + " (written anyway: --force)"));
        failures_.clear();
        return;
    }
    std::string detail = failures_.front().what;
    for (size_t i = 1; i < failures_.size(); ++i)
        detail += "\n  " + formatPlace(failures_[i].file, failures_[i].line, failures_[i].what);
    detail += "\nThe PIOsim tools would refuse this project; --force writes it anyway.";
    throw MergeError(failures_.front().file, failures_.front().line, detail);
}

void Diagnostics::warning(const std::string &file, size_t line, const std::string &what) {
    if (recording_) return recorded_.push_back({Recorded::Kind::Warning, file, line, what, {}});
    warnings_.push_back(formatPlace(file, line, what));
}

void Diagnostics::warningOnce(const std::string &key, const std::string &file, size_t line,
                              const std::string &what) {
    // A recorder keeps every call: which one is first is decided where it
    // is replayed, in the order of a merge on one thread.
    if (recording_)
        return recorded_.push_back({Recorded::Kind::WarningOnce, file, line, what, key});
    if (warnedKeys_.insert(key).second) warning(file, line, what);
}

}  // namespace hdtrace::merger
