// project-merger: the command around hdtrace::merger::merge(). Options are
// parsed with GLib's GOptionContext (GNU-style --help and --version).
#include <unistd.h>

#include <chrono>
#include <clocale>
#include <cstdio>
#include <string>

#include <glib.h>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/clocks/RunAlignment.hpp>
#include <hdtrace/merger/Merger.hpp>
#include <hdtrace/merger/ProgressBar.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceForm.hpp>

namespace {

// --align-clocks: the merged run's traces rewritten on rank 0's clock
// (hdtrace::clocks::alignRun). The project file is written already; an
// error leaves the traces as they were.
int alignClocks(const std::string &projectPath, bool quiet) {
    namespace clocks = hdtrace::clocks;
    const auto began = std::chrono::steady_clock::now();
    try {
        const clocks::AlignReport report = clocks::alignRun(projectPath);
        for (const std::string &warning : report.warnings)
            std::fprintf(stderr, "project-merger: warning: %s\n", warning.c_str());
        if (report.outcome != clocks::AlignOutcome::Rewritten) {
            std::fprintf(stderr, "project-merger: %s\n",
                         clocks::describeOutcome(projectPath, report).c_str());
        } else if (!quiet) {
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
            std::printf(
                "%s: %zu trace(s) put on rank 0's clock in %.2f s (originals kept as "
                "*.trc%s; hdtrace align --undo restores them)\n",
                projectPath.c_str(), report.traces, seconds, clocks::kBackupSuffix);
        }
        return 0;
    } catch (const hdtrace::reader::ReadError &error) {
        std::fprintf(stderr, "project-merger: error: %s\n", error.what());
    } catch (const std::exception &error) {
        std::fprintf(stderr, "project-merger: error: %s\n", error.what());
    }
    std::fprintf(stderr,
                 "project-merger: the project file was written; the traces were not aligned "
                 "and are unchanged\n");
    return 1;
}

// --xml-traces: the XML form of every trace of the merged project that is
// only in compact form, written beside it (the PIOsim tools read only XML;
// the project then names the XML files, which the readers prefer).
int writeXmlTraces(const std::string &projectPath, bool quiet) {
    namespace reader = hdtrace::reader;
    try {
        size_t written = 0;
        for (const reader::TopologyLeaf &leaf : reader::readProject(projectPath).leaves) {
            if (reader::traceFormOf(leaf.tracePath) != reader::TraceForm::Compact) continue;
            reader::convertTrace(
                leaf.tracePath,
                reader::traceBasePath(leaf.tracePath) + std::string(hdtrace::kXmlTraceSuffix),
                reader::TraceForm::Xml);
            ++written;
        }
        if (!quiet)
            std::printf("%s: %zu XML trace(s) written beside the compact ones\n",
                        projectPath.c_str(), written);
        return 0;
    } catch (const std::exception &error) {
        std::fprintf(stderr, "project-merger: error: %s\n", error.what());
    }
    std::fprintf(stderr,
                 "project-merger: the project file was written; the XML traces written before "
                 "the error are complete, no other was written\n");
    return 1;
}

}  // namespace

int main(int argc, char **argv) {
    // GLib prints --help in the user's character set.
    std::setlocale(LC_ALL, "");
    gchar *output = nullptr;
    gchar *description = nullptr;
    gchar *distributionClass = nullptr;
    gchar *chunkSize = nullptr;
    gboolean force = FALSE;
    gboolean quiet = FALSE;
    gboolean alignClocksOption = FALSE;
    gboolean xmlTraces = FALSE;
    gboolean version = FALSE;
    gint jobs = 0;
    gchar **inputs = nullptr;
    const std::string defaultsText = std::string("CLASS of the file distribution (default ") +
                                     hdtrace::merger::kDefaultDistributionClass + ")";
    GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
         "write the project description to FILE (default: <program>.proj beside the traces)",
         "FILE"},
        {"description", 'd', 0, G_OPTION_ARG_STRING, &description,
         "TEXT of the project's <Description>", "TEXT"},
        {"distribution-class", 0, 0, G_OPTION_ARG_STRING, &distributionClass, defaultsText.c_str(),
         "CLASS"},
        {"chunk-size", 0, 0, G_OPTION_ARG_STRING, &chunkSize,
         "SIZE of the distribution's chunks (default 64K)", "SIZE"},
        {"force", 0, 0, G_OPTION_ARG_NONE, &force,
         "write what can be merged and list what was dropped as warnings, instead of failing",
         nullptr},
        {"align-clocks", 0, 0, G_OPTION_ARG_NONE, &alignClocksOption,
         "then rewrite the traces on rank 0's clock with the offsets measured by the wrapper "
         "(as 'hdtrace align'; originals kept as *.trc.unaligned)",
         nullptr},
        {"xml-traces", 0, 0, G_OPTION_ARG_NONE, &xmlTraces,
         "then write the XML form of each compact trace (.ctrc) beside it as .trc, byte for "
         "byte what XML tracing writes: the traces the PIOsim tools read",
         nullptr},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
         "print nothing but errors and warnings (no progress either)", nullptr},
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
         "read the .info files on N threads (default: one per core the process may run on; "
         "the project is the same whatever N)",
         "N"},
        {"version", 'V', 0, G_OPTION_ARG_NONE, &version, "print the version and exit", nullptr},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, nullptr, "INPUT..."},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};

    GOptionContext *context =
        g_option_context_new("- unify the .info files of a traced run into <program>.proj");
    g_option_context_set_summary(
        context,
        "An INPUT is a .info file, a .trc or .ctrc file, a trace base name (dir/app_host_0_0),\n"
        "a directory holding the run, or a program prefix (dir/app), in any mix.");
    g_option_context_set_description(
        context,
        "Exit status: 0 when the project file was written, 1 on bad input or an\n"
        "output error (nothing is written then), 2 on a usage error. With\n"
        "--align-clocks, 1 also when the traces cannot be aligned (the project file\n"
        "is written then, the traces are left unchanged); with --xml-traces, 1 also\n"
        "when a compact trace cannot be converted (the project file is written).\n"
        "Report bugs at the HDTrace repository.");
    g_option_context_add_main_entries(context, entries, nullptr);
    GError *error = nullptr;
    const bool parsed = g_option_context_parse(context, &argc, &argv, &error);
    g_option_context_free(context);
    if (!parsed) {
        std::fprintf(stderr, "project-merger: %s\nTry 'project-merger --help'.\n", error->message);
        g_error_free(error);
        return 2;
    }
    if (version) {
        std::printf("project-merger (HDTrace) %s\n", HDTRACE_VERSION);
        return 0;
    }
    if (jobs < 0 || jobs > 1024) {
        std::fprintf(stderr,
                     "project-merger: --jobs wants a number from 1 to 1024 (0: one per core)\n"
                     "Try 'project-merger --help'.\n");
        return 2;
    }

    hdtrace::merger::MergeOptions options;
    for (gchar **input = inputs; input && *input; ++input)
        options.inputs.emplace_back(*input);
    if (output) options.outputPath = output;
    if (description) options.description = description;
    if (distributionClass) options.distributionClass = distributionClass;
    if (chunkSize) options.chunkSize = chunkSize;
    options.force = force;
    hdtrace::merger::ProgressBar progress("project-merger");
    if (!quiet)
        options.progress = [&progress](const hdtrace::merger::MergeProgress &state) {
            progress.update(state);
        };
    options.jobs = static_cast<unsigned>(jobs);
    g_free(output);
    g_free(description);
    g_free(distributionClass);
    g_free(chunkSize);
    g_strfreev(inputs);

    if (options.inputs.empty()) {
        std::fprintf(stderr,
                     "project-merger: empty input: no .info, .trc, directory or program given\n"
                     "Try 'project-merger --help'.\n");
        return 2;
    }
    try {
        const hdtrace::merger::MergeResult result = hdtrace::merger::merge(options);
        for (const std::string &warning : result.warnings)
            std::fprintf(stderr, "project-merger: warning: %s\n", warning.c_str());
        if (!quiet)
            std::printf("%s: %zu ranks, %zu traces, %zu files, %zu communicators, %zu datatypes\n",
                        result.outputPath.c_str(), result.rankCount, result.traceCount,
                        result.fileCount, result.communicatorCount, result.datatypeCount);
        if (xmlTraces) {
            if (const int status = writeXmlTraces(result.outputPath, quiet)) return status;
        }
        if (alignClocksOption) return alignClocks(result.outputPath, quiet);
        return 0;
    } catch (const hdtrace::merger::MergeError &mergeError) {
        progress.finish();
        std::fprintf(stderr, "project-merger: error: %s\n", mergeError.what());
    } catch (const std::exception &unexpected) {
        progress.finish();
        std::fprintf(stderr, "project-merger: error: %s\n", unexpected.what());
    }
    std::fprintf(stderr, "project-merger: no project file written\n");
    return 1;
}
