// Fuzz target: the .info files of a run, merged strict and with --force.
//
// The input holds the .info of ranks 0, 1, ... separated by lines "#=#";
// each rank gets an empty but well-formed .trc beside its .info. A part that
// starts with a line "#host NAME" puts its rank on host NAME (any bytes a
// file name can hold), else on host "h". Checks:
// - a failed merge leaves no .proj and no temporary file behind;
// - every .proj written loads in ProjectReader, and each trace its topology
//   names is one of the run's .trc files;
// - a run the strict merge accepts merges with --force to the same bytes,
//   with the same warnings (the strict merge warns too, e.g. of a missing
//   'Mpi library=' line): --force only turns errors into warnings.
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <hdtrace/merger/Merger.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "FuzzSupport.hpp"

using hdtrace::fuzz::fail;

namespace {

constexpr size_t kMaxRanks = 8;
constexpr std::string_view kSeparator = "\n#=#\n";
const char *const kEmptyTrace =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n</Program>\n";

std::vector<std::string_view> splitRanks(std::string_view input) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < kMaxRanks) {
        const size_t separator = input.find(kSeparator);
        if (separator == std::string_view::npos) break;
        parts.push_back(input.substr(0, separator + 1));  // keeps the line's newline
        input.remove_prefix(separator + kSeparator.size());
    }
    parts.push_back(input);
    return parts;
}

// The host of a part: "#host NAME\n" at its start, removed from the part.
std::string hostOf(std::string_view *part) {
    constexpr std::string_view kHostLine = "#host ";
    if (part->substr(0, kHostLine.size()) != kHostLine) return "h";
    const size_t end = part->find('\n');
    const std::string_view name = part->substr(
        kHostLine.size(), end == std::string_view::npos ? end : end - kHostLine.size());
    part->remove_prefix(end == std::string_view::npos ? part->size() : end + 1);
    // What cannot be a part of a file name, or would end it early; '_'
    // would make another program name (app_a_b_0_0 is program app_a).
    if (name.empty() || name.size() > 64 ||
        name.find_first_of(std::string_view("/_\0", 3)) != std::string_view::npos || name == "." ||
        name == "..")
        return "h";
    return std::string(name);
}

std::string listing(const std::vector<std::string> &names) {
    std::string text;
    for (const std::string &name : names)
        text += " '" + name + "'";
    return text;
}

struct MergeOutcome {
    bool merged = false;
    std::string error;
    std::string project;  // the bytes of the .proj
    std::vector<std::string> warnings;
};

MergeOutcome mergeRun(const std::string &run, const std::vector<std::string> &inputFiles,
                      bool force) {
    MergeOutcome outcome;
    hdtrace::merger::MergeOptions options;
    options.inputs = {run};
    options.force = force;
    const std::string mode = force ? "--force" : "strict";
    try {
        const hdtrace::merger::MergeResult result = hdtrace::merger::merge(options);
        outcome.merged = true;
        outcome.warnings = result.warnings;
        if (result.outputPath != run + "/app.proj")
            fail(mode + " merge wrote " + result.outputPath + ", not app.proj");
        try {
            const hdtrace::reader::Project project =
                hdtrace::reader::readProject(result.outputPath);
            for (const hdtrace::reader::TopologyLeaf &leaf : project.leaves) {
                const std::string name = leaf.tracePath.substr(leaf.tracePath.rfind('/') + 1);
                if (leaf.tracePath.rfind(run + "/", 0) != 0 ||
                    !std::binary_search(inputFiles.begin(), inputFiles.end(), name) ||
                    name.size() < 4 || name.substr(name.size() - 4) != ".trc")
                    fail(mode + " merge wrote a .proj whose topology names the trace '" +
                         leaf.tracePath + "', which is not in the run");
            }
        } catch (const hdtrace::reader::ReadError &error) {
            fail(mode + " merge wrote a .proj that does not load: " + error.what());
        }
        outcome.project = hdtrace::fuzz::readWholeFile(result.outputPath);
        std::vector<std::string> expected = inputFiles;
        expected.push_back("app.proj");
        std::sort(expected.begin(), expected.end());
        const std::vector<std::string> present = hdtrace::fuzz::listDirectory(run);
        if (present != expected) fail(mode + " merge left behind:" + listing(present));
        unlink(result.outputPath.c_str());
    } catch (const hdtrace::merger::MergeError &error) {
        outcome.error = error.what();
        const std::vector<std::string> present = hdtrace::fuzz::listDirectory(run);
        if (present != inputFiles)
            fail(mode + " merge failed (" + outcome.error +
                 ") and left behind:" + listing(present));
    }
    return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string run = hdtrace::fuzz::scratchDirectory() + "/run";
    hdtrace::fuzz::emptyDirectory(run);
    if (mkdir(run.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot create " + run);

    std::vector<std::string_view> infos =
        splitRanks(std::string_view(reinterpret_cast<const char *>(data), size));
    std::vector<std::string> inputFiles;
    for (size_t rank = 0; rank < infos.size(); ++rank) {
        const std::string host = hostOf(&infos[rank]);
        const std::string base = "run/app_" + host + "_" + std::to_string(rank) + "_0";
        hdtrace::fuzz::writeScratchFile(base + ".info", infos[rank]);
        hdtrace::fuzz::writeScratchFile(base + ".trc", kEmptyTrace);
        inputFiles.push_back(base.substr(4) + ".info");
        inputFiles.push_back(base.substr(4) + ".trc");
    }
    std::sort(inputFiles.begin(), inputFiles.end());

    const MergeOutcome strict = mergeRun(run, inputFiles, false);
    const MergeOutcome forced = mergeRun(run, inputFiles, true);
    if (std::getenv("HDTRACE_FUZZ_VERBOSE"))  // to see what the seeds reach
        std::fprintf(stderr, "%zu ranks: strict %s, --force %s (%zu warnings)\n", infos.size(),
                     strict.merged ? "merged" : strict.error.c_str(),
                     forced.merged ? "merged" : forced.error.c_str(), forced.warnings.size());
    if (strict.merged) {
        if (!forced.merged) fail("--force failed where the strict merge did not: " + forced.error);
        if (forced.warnings != strict.warnings)
            fail("--force gave other warnings than the strict merge of a run it accepted");
        if (forced.project != strict.project)
            fail("--force wrote another .proj than the strict merge");
    }
    return 0;
}
