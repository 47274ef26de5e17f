#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/clocks/ClockCorrection.hpp>
#include <hdtrace/clocks/RunAlignment.hpp>
#include <hdtrace/clocks/TraceTimes.hpp>
#include <hdtrace/reader/EveryCore.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceForm.hpp>

namespace hdtrace::clocks {
namespace {

bool exists(const std::string &path) {
    struct stat status {};
    return ::lstat(path.c_str(), &status) == 0;
}

bool isFile(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

std::string directoryOf(const std::string &path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

std::string baseNameOf(const std::string &path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string systemError(const std::string &what, const std::string &path) {
    return what + " " + path + ": " + std::strerror(errno);
}

std::string readWhole(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw reader::ReadError(path, 0, 0,
                                std::string("cannot be opened: ") + std::strerror(errno));
    struct stat status {};
    std::string text;
    if (::fstat(fd, &status) == 0 && status.st_size > 0)
        text.reserve(static_cast<size_t>(status.st_size));
    char chunk[1 << 16];
    for (;;) {
        const ssize_t count = ::read(fd, chunk, sizeof chunk);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) {
            const std::string problem = std::string("cannot be read: ") + std::strerror(errno);
            ::close(fd);
            throw reader::ReadError(path, 0, 0, problem);
        }
        if (count == 0) break;
        text.append(chunk, static_cast<size_t>(count));
    }
    ::close(fd);
    return text;
}

// Writes data to a new temporary file beside path, with path's permissions;
// returns its name.
std::string writeBeside(const std::string &path, const std::string &data) {
    std::string temporary = directoryOf(path) + "/." + baseNameOf(path) + ".XXXXXX";
    std::vector<char> name(temporary.begin(), temporary.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw AlignError(systemError("cannot create a temporary file beside", path));
    temporary = name.data();
    size_t written = 0;
    while (written < data.size()) {
        const ssize_t count = ::write(fd, data.data() + written, data.size() - written);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            const std::string problem = systemError("cannot write", temporary);
            ::close(fd);
            ::unlink(temporary.c_str());
            throw AlignError(problem);
        }
        written += static_cast<size_t>(count);
    }
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0) ::fchmod(fd, status.st_mode & 07777);
    if (::close(fd) != 0) {
        const std::string problem = systemError("cannot write", temporary);
        ::unlink(temporary.c_str());
        throw AlignError(problem);
    }
    return temporary;
}

// The original kept as backup: a hard link where the file system allows, else a copy.
void keepBackup(const std::string &path, const std::string &backup) {
    if (::link(path.c_str(), backup.c_str()) == 0) return;
    const std::string temporary = writeBeside(path, readWhole(path));
    if (::rename(temporary.c_str(), backup.c_str()) != 0) {
        const std::string problem = systemError("cannot keep the original as", backup);
        ::unlink(temporary.c_str());
        throw AlignError(problem);
    }
}

// A file that is removed when this goes out of scope.
class ScratchFile {
  public:
    explicit ScratchFile(std::string path) : path_(std::move(path)) {}
    ~ScratchFile() { ::unlink(path_.c_str()); }
    ScratchFile(const ScratchFile &) = delete;
    ScratchFile &operator=(const ScratchFile &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

// A compact trace aligned through its XML form: rendered (the XML that XML
// mode writes for the same calls), its times rewritten as an XML trace's
// are, and coded again in frames of the input's size. The coding checks
// that the result gives that aligned XML back byte for byte, so the aligned
// compact trace converts to exactly the aligned XML form. Returns the
// temporary file beside the trace that holds it.
std::string alignCompactBeside(const std::string &path,
                               const std::function<int64_t(int64_t)> &correct) {
    const uint32_t frameBytes = reader::FrameFile(path).maxFrameBytes();
    const ScratchFile rendered(writeBeside(path, std::string()));
    reader::convertTrace(path, rendered.path(), reader::TraceForm::Xml);
    const ScratchFile aligned(
        writeBeside(path, rewriteTraceTimes(readWhole(rendered.path()), path, correct)));
    std::string coded = writeBeside(path, std::string());
    try {
        reader::convertTrace(aligned.path(), coded, reader::TraceForm::Compact, frameBytes);
    } catch (const reader::ReadError &error) {
        ::unlink(coded.c_str());
        throw AlignError(path + ": its aligned times cannot be coded in compact form (" +
                         error.problem() + "); nothing changed");
    }
    return coded;
}

// Removes the temporaries of a step that failed before any file was replaced.
class Temporaries {
  public:
    ~Temporaries() {
        for (const auto &[temporary, _] : files_)
            ::unlink(temporary.c_str());
    }
    void add(std::string temporary, std::string target) {
        files_.emplace_back(std::move(temporary), std::move(target));
    }
    // Renames every temporary over its target.
    void commit() {
        for (const auto &[temporary, target] : files_)
            if (::rename(temporary.c_str(), target.c_str()) != 0)
                throw AlignError(systemError("cannot replace", target));
        files_.clear();
    }

  private:
    std::vector<std::pair<std::string, std::string>> files_;  // (temporary, target)
};

struct RunOfProject {
    reader::Project project;
    std::vector<RunTrace> traces;
};

// The traces of layers kept beside the run's traces (<base>.<layer>.trc or
// .ctrc, docs/format/layers.md), each with the rank and thread of its main
// trace, whose correction it takes. Each directory is listed once.
std::vector<RunTrace> layerTracesBeside(const std::vector<RunTrace> &traces) {
    std::map<std::string, std::vector<std::string>> namesByDirectory;
    std::vector<RunTrace> found;
    for (const RunTrace &trace : traces) {
        const std::string directory = directoryOf(trace.path);
        auto listed = namesByDirectory.find(directory);
        if (listed == namesByDirectory.end()) {
            std::vector<std::string> names;
            std::error_code error;
            for (const auto &entry : std::filesystem::directory_iterator(directory, error))
                if (isLayerTraceFileName(entry.path().filename().string()))
                    names.push_back(entry.path().filename().string());
            listed = namesByDirectory.emplace(directory, std::move(names)).first;
        }
        std::string base = baseNameOf(trace.path);
        for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix})
            if (base.size() > suffix.size() &&
                base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
                base.resize(base.size() - suffix.size());
                break;
            }
        for (const std::string &name : listed->second) {
            // <base>.<layer><suffix>, the layer without a '.' of its own.
            if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 ||
                name[base.size()] != '.')
                continue;
            const std::string_view rest = std::string_view(name).substr(base.size() + 1);
            if (rest.find('.') != rest.rfind('.')) continue;
            found.push_back(RunTrace{trace.rank, trace.thread, directory + "/" + name});
        }
    }
    return found;
}

RunOfProject openRun(const std::string &projectPath) {
    RunOfProject run{reader::readProject(projectPath), {}};
    run.traces = traceList(run.project);
    for (const RunTrace &trace : run.traces) {
        if (!exists(trace.path))
            throw reader::ReadError(trace.path, 0, 0, "trace named by the topology does not exist");
        if (!isFile(trace.path)) throw reader::ReadError(trace.path, 0, 0, "not a regular file");
    }
    return run;
}

}  // namespace

AlignReport alignRun(const std::string &projectPath) {
    RunOfProject run = openRun(projectPath);
    RunReadOptions options;
    options.localRanks = ranksAreLocal(run.project, run.traces);
    const RunCorrection corrected = correctRun(run.project, run.traces, options);
    AlignReport report;
    report.events = corrected.events;
    switch (corrected.clocks.state) {
        case RunClockState::AlreadyAligned:
            report.outcome = AlignOutcome::AlreadyAligned;
            return report;
        case RunClockState::NoMeasurements:
            report.outcome = AlignOutcome::NoMeasurements;
            return report;
        case RunClockState::OneClock:
        case RunClockState::Measured:
            break;
    }
    const std::string warning = ranksWithoutWarning(projectPath, corrected.clocks);
    if (!warning.empty()) report.warnings.push_back(warning);
    if (corrected.clocks.state == RunClockState::OneClock) {
        report.outcome = AlignOutcome::OneClock;
        return report;
    }
    for (const RunTrace &trace : run.traces)
        if (exists(trace.path + kBackupSuffix))
            throw AlignError(trace.path + kBackupSuffix + " exists but " + infoPathOf(trace.path) +
                             " has no ClockAligned line; move it away first");
    const size_t mainTraces = run.traces.size();
    // The layers' traces go with their main traces (they have no .info of
    // their own, so no ClockAligned line: undo finds their backups beside).
    for (RunTrace &layer : layerTracesBeside(run.traces)) {
        if (exists(layer.path + kBackupSuffix))
            throw AlignError(layer.path + kBackupSuffix +
                             " exists but the run is not aligned; "
                             "move it away first");
        run.traces.push_back(std::move(layer));
    }

    // Each trace is rewritten on its own thread, as many at once as there are cores.
    const ClockCorrection &correction = *corrected.correction;
    Temporaries temporaries;
    std::mutex lock;
    // A failure stops the rest; the temporaries are removed as it unwinds.
    reader::forEachOnEveryCore(run.traces.size(), [&](size_t index) {
        const RunTrace &trace = run.traces[index];
        const auto correct = [&](int64_t ns) {
            return correction.apply(trace.rank, trace.thread, ns);
        };
        // Each trace keeps its form.
        const std::string trc =
            reader::traceFormOf(trace.path) == reader::TraceForm::Compact
                ? alignCompactBeside(trace.path, correct)
                : writeBeside(trace.path,
                              rewriteTraceTimes(readWhole(trace.path), trace.path, correct));
        {
            std::lock_guard<std::mutex> guard(lock);
            temporaries.add(trc, trace.path);
        }
        const std::string info = infoPathOf(trace.path);
        if (isLayerTraceFileName(trace.path) || !isFile(info)) return;
        std::string lines = readWhole(info);
        if (!lines.empty() && lines.back() != '\n') lines += '\n';
        lines += alignedLine(baseNameOf(trace.path) + kBackupSuffix) + "\n";
        const std::string written = writeBeside(info, lines);
        std::lock_guard<std::mutex> guard(lock);
        temporaries.add(written, info);
    });
    // Every new file is written: keep the originals, then put the new ones in place.
    // A backup that cannot be made leaves nothing changed: the ones made go again.
    std::vector<std::string> backups;
    try {
        for (const RunTrace &trace : run.traces) {
            keepBackup(trace.path, trace.path + kBackupSuffix);
            backups.push_back(trace.path + kBackupSuffix);
        }
    } catch (...) {
        for (const std::string &backup : backups)
            ::unlink(backup.c_str());
        throw;
    }
    temporaries.commit();
    report.outcome = AlignOutcome::Rewritten;
    report.traces = mainTraces;
    return report;
}

AlignReport undoAlignment(const std::string &projectPath) {
    RunOfProject run = openRun(projectPath);
    struct Restore {
        std::string trace, info, backup;
    };
    std::vector<Restore> plans;
    for (const RunTrace &trace : run.traces) {
        const std::string info = infoPathOf(trace.path);
        if (!isFile(info)) continue;
        const InfoClock found = readInfoClock(info);
        if (!found.alignedBackup) continue;
        const std::string backup = directoryOf(trace.path) + "/" + *found.alignedBackup;
        if (!isFile(backup))
            throw AlignError(info + " names the backup " + backup +
                             ", which does not exist; nothing restored");
        plans.push_back({trace.path, info, backup});
    }
    // The layers' traces beside a restored trace, whose backups align made.
    const size_t mainPlans = plans.size();
    std::vector<RunTrace> restored;
    for (size_t index = 0; index < mainPlans; ++index)
        restored.push_back(RunTrace{0, 0, plans[index].trace});
    for (const RunTrace &layer : layerTracesBeside(restored))
        if (isFile(layer.path + kBackupSuffix))
            plans.push_back({layer.path, "", layer.path + kBackupSuffix});
    AlignReport report;
    if (plans.empty()) {
        report.outcome = AlignOutcome::NotAligned;
        return report;
    }
    Temporaries temporaries;
    for (const Restore &plan : plans) {
        if (plan.info.empty()) continue;  // a layer's trace
        std::istringstream lines(readWhole(plan.info));
        std::string kept, line;
        while (std::getline(lines, line)) {
            if (line.compare(0, 13, "ClockAligned ") == 0) continue;
            kept += line;
            if (!lines.eof()) kept += '\n';
        }
        temporaries.add(writeBeside(plan.info, kept), plan.info);
    }
    for (const Restore &plan : plans)
        if (::rename(plan.backup.c_str(), plan.trace.c_str()) != 0)
            throw AlignError(systemError("cannot restore", plan.trace));
    temporaries.commit();
    report.outcome = AlignOutcome::Rewritten;
    report.traces = mainPlans;
    return report;
}

std::string describeOutcome(const std::string &projectPath, const AlignReport &report) {
    switch (report.outcome) {
        case AlignOutcome::AlreadyAligned:
            return projectPath + ": already aligned; nothing changed";
        case AlignOutcome::OneClock:
            return projectPath +
                   ": every rank ran on rank 0's clock; nothing to correct, nothing "
                   "changed";
        case AlignOutcome::NoMeasurements:
            return "warning: " + projectPath +
                   ": the run has no clock measurements (traced with HDTRACE_CLOCK_SYNC=0, or by "
                   "an older wrapper); nothing changed";
        case AlignOutcome::NotAligned:
            return projectPath + ": not aligned; nothing to undo";
        case AlignOutcome::Rewritten:
            break;
    }
    return projectPath + ": " + std::to_string(report.traces) + " trace(s) rewritten";
}

}  // namespace hdtrace::clocks
