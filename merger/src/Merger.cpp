// merge(): discovery -> reading -> communicator unification -> writing,
// with the datatypes of each rank ordered, decoded, checked and rendered on
// all cores shortly before they are written, so that only the ranks under
// way are held.
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include <hdtrace/UsableCores.hpp>
#include <hdtrace/merger/Merger.hpp>

#include "CommunicatorUnifier.hpp"
#include "DatatypeOrder.hpp"
#include "Diagnostics.hpp"
#include "InputDiscovery.hpp"
#include "OrderedParallel.hpp"
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

// The project file as the merge goes: written as soon as each part is known,
// so that no part of the project is held whole. An output error (no
// temporary file, a failed write) is kept and thrown only at the end, after
// the errors of the input and the failed checks, which take precedence as
// when the whole project was built before writing; nothing more is written
// after it.
class StreamedProject {
  public:
    explicit StreamedProject(const std::string &outputPath) {
        attempt([&] { writer_.emplace(outputPath); });
    }

    template <class Write>
    void attempt(Write &&write) {
        if (failure_) return;
        try {
            write();
        } catch (const MergeError &) {
            failure_ = std::current_exception();
        }
    }

    ProjectWriter &writer() { return *writer_; }
    uint64_t bytesWritten() const { return writer_ && !failure_ ? writer_->bytesWritten() : 0; }

    void commit() {
        if (failure_) std::rethrow_exception(failure_);
        writer_->commit();
    }

  private:
    std::optional<ProjectWriter> writer_;
    std::exception_ptr failure_;
};

constexpr size_t kRenderBatchRanks = 256;
// A rendered rank takes a few KiB in a typical run. With each distinct
// type formed once, the threads render far faster than the ranks are
// written, so a short lead keeps them busy without holding the project.
constexpr size_t kRenderAheadRanks = 4096;
// The most XML of a rendered rank whose room is used again for the next.
constexpr size_t kKeptRankXmlBytes = size_t(1) << 20;
// Room for a <Rank> element around the rank's types: its tags, indent and
// name.
constexpr size_t kRankElementBytes = 64;

// One rank's datatypes, made ready on one of the threads.
struct RenderedRank {
    Diagnostics diagnostics = Diagnostics::recorder();
    size_t elementCount = 0;
    std::string xml;  // the <Rank> element
};

// What a rendering thread keeps from rank to rank: the types it formed, and
// the room of the last rank's types, so that a rank's XML is not grown
// append by append anew.
struct RenderingThread {
    TypeFormCache cache;
    RankTypes types;
};

void renderRank(const RunModel &run, const RankModel &rank, RenderingThread &thread,
                RenderedRank &out) {
    // out may hold an earlier rank: only the room of its XML is kept, and
    // not that of a rank far larger than most, which would stay held for
    // the rest of the merge.
    out.diagnostics = Diagnostics::recorder();
    out.elementCount = 0;
    if (out.xml.capacity() > kKeptRankXmlBytes) out.xml = std::string();
    out.xml.clear();
    if (!rank.present) return;
    const MpiConstants constants = rank.hasMpiLine ? rank.constants : openMpiConstants();
    RankTypes &types = thread.types;
    types.xml.clear();
    types.elements.clear();
    orderedRankTypes(run, rank, constants, thread.cache, out.diagnostics, types);
    out.elementCount = types.elements.size();
    checkRankTypes(run, rank.rank, types.elements, out.diagnostics);
    out.xml.reserve(types.xml.size() + kRankElementBytes);
    ProjectWriter::renderDatatypeRank(out.xml, rank.rank, types.xml);
}

unsigned jobsFor(const MergeOptions &options) {
    if (options.jobs > 0) return options.jobs;
    return usableCores();
}

}  // namespace

MergeResult merge(const MergeOptions &options) {
    Diagnostics diagnostics(options.force);
    const unsigned jobs = jobsFor(options);
    const auto report = [&](MergeProgress::Stage stage, size_t done, size_t total, uint64_t bytes) {
        if (options.progress) options.progress({stage, done, total, bytes});
    };
    RunModel run = readRun(
        discoverTraces(options.inputs, diagnostics), diagnostics,
        [&](size_t done, size_t total) { report(MergeProgress::Stage::Reading, done, total, 0); },
        jobs);
    // From here on the ranks' datatypes are ordered, decoded, checked and
    // rendered on every core while the communicators are unified and the
    // head of the project written; up to kRenderAheadRanks ranks wait.
    const size_t rankTotal = run.ranks.size();
    OrderedParallel<RenderedRank> renderer(
        rankTotal, kRenderBatchRanks, jobs, kRenderAheadRanks / kRenderBatchRanks, [&run] {
            // Each thread keeps the types it formed for the ranks after.
            return [&run, thread = std::make_shared<RenderingThread>()](size_t index,
                                                                        RenderedRank &out) {
                renderRank(run, run.ranks[index], *thread, out);
            };
        });
    const std::vector<UnifiedCommunicator> communicators = unifyCommunicators(
        run, diagnostics,
        [&](size_t done, size_t total) { report(MergeProgress::Stage::Unifying, done, total, 0); });

    MergeResult result;
    result.outputPath = outputPathFor(options, run, diagnostics);
    result.program = run.program;
    result.traceCount = run.traces.size();
    result.fileCount = run.files.size();
    result.communicatorCount = communicators.size();
    // What the PIOsim tools would refuse stops the merge unless --force;
    // the failures are collected as the parts are written.
    checkCommunicators(communicators, diagnostics);

    StreamedProject project(result.outputPath);
    project.attempt([&] {
        ProjectWriter &writer = project.writer();
        writer.startApplication(run.program, options.description);
        writer.fileList(run.files, options.distributionClass, options.chunkSize);
        writer.topology(run);
        writer.communicators(communicators);
        writer.startDatatypes();
    });

    // Then here, in rank order, what the renderer found is reported and
    // each rank written.
    bool warnedAboutConstants = false;
    for (size_t batch = 0; batch < renderer.batchCount(); ++batch) {
        std::vector<RenderedRank> rendered = renderer.take(batch);
        for (size_t offset = 0; offset < rendered.size(); ++offset) {
            const RankModel &rank = run.ranks[renderer.firstItemOf(batch) + offset];
            const RenderedRank &types = rendered[offset];
            if (!rank.present) continue;
            ++result.rankCount;
            if (!rank.hasMpiLine && !rank.types.empty() && !warnedAboutConstants) {
                warnedAboutConstants = true;
                diagnostics.warning(run.infoPathOf(rank.types.front().source), 0,
                                    "no 'Mpi library=' line (older trace?): the constants of "
                                    "SUBARRAY and DARRAY types are decoded with Open MPI's "
                                    "values (this warning is given once)");
            }
            types.diagnostics.replayInto(diagnostics);
            result.datatypeCount += types.elementCount;
            project.attempt([&] { project.writer().renderedDatatypeRank(types.xml); });
        }
        const size_t done = renderer.firstItemOf(batch) + rendered.size();
        if (done < rankTotal)
            report(MergeProgress::Stage::Writing, done, rankTotal, project.bytesWritten());
        renderer.giveBack(std::move(rendered));
    }
    diagnostics.throwFailedChecks();
    project.commit();
    report(MergeProgress::Stage::Writing, rankTotal, rankTotal, project.bytesWritten());
    result.warnings = std::move(diagnostics.warnings());
    return result;
}

}  // namespace hdtrace::merger
