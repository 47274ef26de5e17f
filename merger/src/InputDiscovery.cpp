#include "InputDiscovery.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string_view>

#include <hdtrace/TraceNames.hpp>

#include "DirectoryListing.hpp"
#include "FlatMap.hpp"
#include "TextArena.hpp"
#include "TextKey.hpp"

namespace hdtrace::merger {
namespace {

std::string directoryOf(const std::string &path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return "";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string_view baseNameOf(std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// One allocation: a run's every trace has two such paths.
std::string joinPath(const std::string &directory, std::string_view name) {
    const bool slash = !directory.empty() && directory.back() != '/';
    std::string path;
    path.reserve(directory.size() + (slash ? 1 : 0) + name.size());
    path.append(directory);
    if (slash) path += '/';
    path.append(name);
    return path;
}

// A trace's own files: its .info, and its trace in either form. A layer's
// trace beside it (<base>.hdf5.trc) is read with the main trace, not merged.
bool isTraceFile(std::string_view name) {
    if (isLayerTraceFileName(name)) return false;
    for (std::string_view suffix : {kInfoSuffix, kXmlTraceSuffix, kCompactTraceSuffix})
        if (hasSuffix(name, suffix)) return true;
    return false;
}

bool parseNumber(const std::string &text, int64_t &value) {
    const char *end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    return !text.empty() && error == std::errc() && ptr == end && value >= 0;
}

// A name for a message: bytes outside printable ASCII as \xNN, so that a
// newline or invalid UTF-8 in a file name cannot garble the message.
std::string printableName(const std::string &name) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
            out += c;
        } else {
            out += "\\x";
            out += digits[byte >> 4];
            out += digits[byte & 15];
        }
    }
    return out;
}

std::string realDirectory(const std::string &directory) {
    char resolved[PATH_MAX];
    return realpath(directory.empty() ? "." : directory.c_str(), resolved) ? resolved : directory;
}

// The same files named twice, e.g. as "dir/x" and "./dir/x".
bool sameTrace(const TraceSource &a, const TraceSource &b) {
    return a.basePath == b.basePath || (baseNameOf(a.basePath) == baseNameOf(b.basePath) &&
                                        realDirectory(a.directory) == realDirectory(b.directory));
}

struct Candidate {
    std::string basePath;
    std::string input;  // the argument it came from, for messages
    // The listing that gave it, and where its files are expected there;
    // nullptr for a file named as an input.
    const DirectoryListing *listing = nullptr;
    size_t listingIndex = SIZE_MAX;
};

class Discovery {
  public:
    explicit Discovery(Diagnostics &diagnostics) : diagnostics_(diagnostics) {}

    void addInput(const std::string &input) {
        if (input.empty()) {
            diagnostics_.problem("", 0, "an empty input name", "it");
            return;
        }
        struct stat status {};
        const bool isDirectory = stat(input.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
        // A directory named like a trace file is no run directory either.
        if (isDirectory && isTraceFile(input)) {
            diagnostics_.problem(input, 0, "not a regular file (a directory)", "this input");
            return;
        }
        if (isDirectory) {
            addDirectory(input);
            return;
        }
        if (isTraceFile(input)) {
            const std::string base = input.substr(0, input.rfind('.'));
            if (!exists(input)) {
                diagnostics_.problem(input, 0, "no such file", "this input");
                return;
            }
            add(base, input);
            return;
        }
        if (exists(input + std::string(kInfoSuffix)) ||
            exists(input + std::string(kXmlTraceSuffix)) ||
            exists(input + std::string(kCompactTraceSuffix))) {
            add(input, input);
            return;
        }
        addProgramPrefix(input);
    }

    DiscoveredRun finish() {
        DiscoveredRun run;
        if (candidates_.empty()) throw MergeError("", 0, "empty input: no traces found");
        std::map<std::string, std::string> programs;  // program -> first file of it
        std::vector<TraceSource> traces;
        traces.reserve(candidates_.size());
        std::string fileName;  // reused for every name looked up
        for (Candidate &candidate : candidates_) {
            TraceSource trace;
            // The candidate's base path moves into its trace; a trace
            // dropped below takes it along.
            trace.basePath = std::move(candidate.basePath);
            const std::string_view name = baseNameOf(trace.basePath);
            fileName.assign(name).append(kXmlTraceSuffix);
            auto parsed = parseTraceFileName(fileName);
            if (!parsed || !parseNumber(parsed->levels[1], trace.rank) ||
                !parseNumber(parsed->levels[2], trace.thread)) {
                diagnostics_.problem(candidate.input, 0,
                                     "not a trace name <program>_<host>_<rank>_<thread> with a "
                                     "numeric rank and thread",
                                     "this input");
                continue;
            }
            if (!readableNames(*parsed, candidate.input)) continue;
            if (run.program.empty()) run.program = parsed->program;
            if (parsed->program != run.program) {
                diagnostics_.problem(candidate.input, 0,
                                     "files from two different programs: '" + parsed->program +
                                         "' here, '" + run.program + "' in " +
                                         programs[run.program],
                                     "the traces of '" + parsed->program + "'");
                continue;
            }
            programs.try_emplace(parsed->program, candidate.input);
            trace.directory = directoryOf(trace.basePath);
            trace.host = std::move(parsed->levels[0]);
            trace.rankText = std::move(parsed->levels[1]);
            trace.threadText = std::move(parsed->levels[2]);
            std::string error;
            const DirectoryListing *listing =
                candidate.listing ? candidate.listing : listings_.of(trace.directory, &error);
            if (!listing) {
                diagnostics_.problem(trace.directory.empty() ? "." : trace.directory, 0,
                                     "cannot list the directory: " + error, "its traces");
                continue;
            }
            const auto entryOf = [&](std::string_view suffix) {
                fileName.assign(name).append(suffix);
                return listing->find(fileName, candidate.listingIndex);
            };
            if (const DirectoryListing::Entry *info = entryOf(kInfoSuffix)) {
                trace.hasInfo = true;
                trace.infoIsRegularFile = info->type == DirectoryListing::Type::Regular;
            }
            for (const std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix}) {
                if (const DirectoryListing::Entry *file = entryOf(suffix)) {
                    trace.traceSuffix = suffix;
                    trace.traceIsRegularFile = file->type == DirectoryListing::Type::Regular;
                    break;
                }
            }
            trace.hasTrace = !trace.traceSuffix.empty();
            traces.push_back(std::move(trace));
        }
        // Sorted by rank and thread, then by the order found: the keys are
        // sorted, not the traces, which are each moved once into the run.
        struct Place {
            int64_t rank;
            int64_t thread;
            size_t found;
            bool operator<(const Place &other) const {
                return rank != other.rank       ? rank < other.rank
                       : thread != other.thread ? thread < other.thread
                                                : found < other.found;
            }
        };
        std::vector<Place> order;
        order.reserve(traces.size());
        for (size_t index = 0; index < traces.size(); ++index)
            order.push_back({traces[index].rank, traces[index].thread, index});
        std::sort(order.begin(), order.end());
        run.traces.reserve(traces.size());
        for (const Place &place : order) {
            TraceSource &trace = traces[place.found];
            if (!run.traces.empty()) {
                const TraceSource &previous = run.traces.back();
                if (previous.rank == trace.rank && previous.thread == trace.thread) {
                    if (!sameTrace(previous, trace))
                        diagnostics_.problem(
                            trace.basePath, 0,
                            "rank " + trace.rankText + " thread " + trace.threadText +
                                " has a second trace; the first is " + previous.basePath,
                            "this trace");
                    continue;  // the same trace named twice (e.g. its .info and .trc)
                }
                if (previous.rank == trace.rank && previous.host != trace.host) {
                    diagnostics_.problem(trace.basePath, 0,
                                         "rank " + trace.rankText + " is on host '" + trace.host +
                                             "' here but on '" + previous.host + "' in " +
                                             previous.basePath,
                                         "this trace");
                    continue;
                }
            }
            if (!trace.hasTrace) {
                diagnostics_.problem(trace.infoPath(), 0, ".info with no .trc or .ctrc beside it",
                                     "this trace");
                continue;
            }
            // The readers open only regular files: a FIFO, directory or
            // device named like a trace would give a .proj that cannot load.
            // Where the directory did not say the file is regular (a link,
            // another type, a file system that does not tell), it is asked.
            if (struct stat status{}; !trace.traceIsRegularFile &&
                                      stat(trace.tracePath().c_str(), &status) == 0 &&
                                      !S_ISREG(status.st_mode)) {
                diagnostics_.problem(trace.tracePath(), 0, "not a regular file", "this trace");
                continue;
            }
            if (!trace.hasInfo) {
                diagnostics_.problem(trace.tracePath(), 0, "no .info beside this trace",
                                     "its files, communicators and datatypes");
            }
            run.traces.push_back(std::move(trace));
        }
        if (run.traces.empty()) throw MergeError("", 0, "empty input: no usable traces");
        run.directory = run.traces.front().directory;
        for (const TraceSource &trace : run.traces) {
            if (trace.directory != run.directory) {
                diagnostics_.warning(trace.basePath, 0,
                                     "traces of the run are in several directories; the tools "
                                     "look for them beside the .proj only");
                break;
            }
        }
        return run;
    }

  private:
    // The readers (and the PIOsim viewer) find a trace by the labels of the
    // .proj with every character outside [A-Za-z0-9.-] replaced (docs/format/trace.md,
    // file names); a program or host name with such a character names a
    // file they would never find. Such names cannot come from the wrapper,
    // which writes the sanitised form.
    bool readableNames(const TraceFileName &parsed, const std::string &input) {
        // A run's traces share their program and, a few dozen at a time,
        // their host: a pair that passed is not checked again.
        if (parsed.program == readableProgram_ && parsed.levels[0] == readableHost_) return true;
        for (const auto &[what, part] :
             {std::pair<const char *, const std::string &>{"program", parsed.program},
              std::pair<const char *, const std::string &>{"host", parsed.levels[0]}}) {
            if (sanitizeNamePart(part) == part) continue;
            const std::string expected = traceBaseName(parsed.program, parsed.levels);
            diagnostics_.problem(input, 0,
                                 std::string(what) + " name '" + printableName(part) +
                                     "' in the file name has characters outside "
                                     "[A-Za-z0-9.-]: the readers would look for the trace as " +
                                     expected + ".trc; rename the trace and its .info",
                                 "this input");
            return false;
        }
        readableProgram_ = parsed.program;
        readableHost_ = parsed.levels[0];
        return true;
    }

    bool exists(const std::string &path) {
        std::string error;
        const DirectoryListing *listing = listings_.of(directoryOf(path), &error);
        return listing && listing->find(baseNameOf(path));
    }

    void add(std::string basePath, std::string input, const DirectoryListing *listing = nullptr,
             size_t listingIndex = SIZE_MAX) {
        const TextKey key = TextKey::of(basePath);
        if (seen_.find(key)) return;
        // Kept only once it is new; the hash is the same for the copy.
        seen_.tryEmplace(TextKey{key.hash, seenTexts_.keep(basePath)}, true);
        candidates_.push_back({std::move(basePath), std::move(input), listing, listingIndex});
    }

    void addDirectory(const std::string &directory) {
        std::string error;
        const DirectoryListing *listing = listings_.of(directory, &error);
        if (!listing) {
            diagnostics_.problem(directory, 0, "cannot list the directory: " + error, "it");
            return;
        }
        const size_t before = candidates_.size();
        // The first file of each trace: a trace's files are neighbours in
        // the sorted listing, so the second and third of a base add nothing.
        std::vector<size_t> firstFiles;
        std::string_view previousBase;
        const std::vector<DirectoryListing::Entry> &entries = listing->sorted();
        for (size_t index = 0; index < entries.size(); ++index) {
            const std::string_view name = entries[index].name;
            if (!isTraceFile(name)) continue;
            const std::string_view base = name.substr(0, name.rfind('.'));
            if (base == previousBase) continue;
            if (!parseTraceFileName(name)) continue;
            previousBase = base;
            firstFiles.push_back(index);
        }
        addListed(directory, *listing, firstFiles);
        if (candidates_.size() == before)
            diagnostics_.problem(directory, 0, "empty input: no .info, .trc or .ctrc files in it",
                                 "it");
    }

    void addProgramPrefix(const std::string &prefix) {
        const std::string directory = directoryOf(prefix);
        const std::string program(baseNameOf(prefix));
        std::string error;
        const DirectoryListing *listing = listings_.of(directory, &error);
        if (!listing) {
            diagnostics_.problem(prefix, 0, "no such file, and cannot list its directory: " + error,
                                 "this input");
            return;
        }
        std::vector<size_t> matches;  // in the listing's order: sorted
        const std::vector<DirectoryListing::Entry> &entries = listing->sorted();
        for (size_t index = 0; index < entries.size(); ++index) {
            if (!isTraceFile(entries[index].name)) continue;
            auto parsed = parseTraceFileName(entries[index].name);
            if (parsed && parsed->program == program) matches.push_back(index);
        }
        if (matches.empty()) {
            diagnostics_.problem(prefix, 0,
                                 "no such file, and no traces " + program +
                                     "_<host>_<rank>_<thread>.info/.trc/.ctrc beside it",
                                 "this input");
            return;
        }
        addListed(directory, *listing, matches);
    }

    // The traces of these trace files of a directory's listing (indices
    // into it, in its order).
    void addListed(const std::string &directory, const DirectoryListing &listing,
                   const std::vector<size_t> &files) {
        candidates_.reserve(candidates_.size() + files.size());
        seen_.reserve(seen_.size() + files.size());
        for (const size_t index : files) {
            const std::string_view name = listing.sorted()[index].name;
            add(joinPath(directory, name.substr(0, name.rfind('.'))), joinPath(directory, name),
                &listing, index);
        }
    }

    Diagnostics &diagnostics_;
    DirectoryListings listings_;
    std::vector<Candidate> candidates_;
    // The base paths of candidates_, to add each once.
    TextArena seenTexts_;
    FlatMap<TextKey, bool, TextKeyHash, TextKeyEqual> seen_;
    // The last program and host names found readable.
    std::string readableProgram_;
    std::string readableHost_;
};

}  // namespace

DiscoveredRun discoverTraces(const std::vector<std::string> &inputs, Diagnostics &diagnostics) {
    if (inputs.empty()) throw MergeError("", 0, "empty input: no .info, .trc or .ctrc files given");
    Discovery discovery(diagnostics);
    for (const std::string &input : inputs)
        discovery.addInput(input);
    return discovery.finish();
}

}  // namespace hdtrace::merger
