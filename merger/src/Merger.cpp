// merge(): discovery -> reading -> communicator unification -> writing,
// with the datatypes of each rank ordered and decoded as they are written.
#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include <hdtrace/merger/Merger.hpp>

#include "CommunicatorUnifier.hpp"
#include "DatatypeOrder.hpp"
#include "Diagnostics.hpp"
#include "InputDiscovery.hpp"
#include "ProjectCheck.hpp"
#include "ProjectWriter.hpp"
#include "RunReader.hpp"

namespace hdtrace::merger {
namespace {

std::string directoryOf(const std::string &path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseNameOf(const std::string &path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string realDirectory(const std::string &directory) {
    char resolved[PATH_MAX];
    return realpath(directory.c_str(), resolved) ? std::string(resolved) : directory;
}

// The tools find the traces as <dir of .proj>/<.proj name up to its last
// '.'>_<host>_<rank>_<thread>.trc, so another name or place breaks them.
std::string outputPathFor(const MergeOptions &options, const RunModel &run,
                          Diagnostics &diagnostics) {
    const std::string expectedName = run.program + ".proj";
    const std::string tracesDirectory = run.directory.empty() ? "." : run.directory;
    if (options.outputPath.empty())
        return run.directory.empty() ? expectedName : run.directory + "/" + expectedName;
    std::string output = options.outputPath;
    struct stat status {};
    if (stat(output.c_str(), &status) == 0 && S_ISDIR(status.st_mode))
        output = (output.back() == '/' ? output : output + "/") + expectedName;
    if (baseNameOf(output) != expectedName)
        diagnostics.warning(output, 0,
                            "the tools expect the project file to be named " + expectedName +
                                ", or they will not find the traces");
    else if (realDirectory(directoryOf(output)) != realDirectory(tracesDirectory))
        diagnostics.warning(
            output, 0,
            "the tools expect the project file beside the traces, in " + tracesDirectory);
    return output;
}

}  // namespace

MergeResult merge(const MergeOptions &options) {
    Diagnostics diagnostics(options.force);
    RunModel run =
        readRun(discoverTraces(options.inputs, diagnostics), diagnostics, options.progress);
    const std::vector<UnifiedCommunicator> communicators = unifyCommunicators(run, diagnostics);

    MergeResult result;
    result.outputPath = outputPathFor(options, run, diagnostics);
    result.program = run.program;
    result.traceCount = run.traces.size();
    result.fileCount = run.files.size();
    result.communicatorCount = communicators.size();

    std::vector<RankTypes> rankTypes;
    bool warnedAboutConstants = false;
    for (const RankModel &rank : run.ranks) {
        if (!rank.present) continue;
        ++result.rankCount;
        if (!rank.hasMpiLine && !rank.types.empty() && !warnedAboutConstants) {
            warnedAboutConstants = true;
            diagnostics.warning(run.infoPathOf(rank.types.front().source), 0,
                                "no 'Mpi library=' line (older trace?): the constants of "
                                "SUBARRAY and DARRAY types are decoded with Open MPI's values "
                                "(this warning is given once)");
        }
        const MpiConstants constants = rank.hasMpiLine ? rank.constants : openMpiConstants();
        RankTypes &types = rankTypes.emplace_back();
        types.rank = rank.rank;
        types.types = orderedRankTypes(run, rank, constants, diagnostics);
        result.datatypeCount += types.types.size();
    }
    // What the PIOsim tools would refuse stops the merge unless --force.
    checkProject(communicators, rankTypes, diagnostics);
    diagnostics.throwFailedChecks();

    ProjectWriter writer(result.outputPath);
    writer.startApplication(run.program, options.description);
    writer.fileList(run.files, options.distributionClass, options.chunkSize);
    writer.topology(run);
    writer.communicators(communicators);
    writer.startDatatypes();
    for (const RankTypes &types : rankTypes)
        writer.datatypeRank(types.rank, types.types);
    writer.commit();
    result.warnings = std::move(diagnostics.warnings());
    return result;
}

}  // namespace hdtrace::merger
