// The background writer thread as the rest of the process sees it: started
// only when wanted, named, free of the rank's core binding, deaf to signals.
// Each test runs in a fork() child, which starts without any such thread.
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::ScratchDirectory;

std::string readProcFile(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Thread ids of this process whose name is name.
std::vector<pid_t> threadsNamed(const std::string &name) {
    std::vector<pid_t> found;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return found;
    while (const dirent *entry = readdir(tasks)) {
        if (entry->d_name[0] == '.') continue;
        const std::string base = std::string("/proc/self/task/") + entry->d_name;
        if (readProcFile(base + "/comm") == name + "\n") found.push_back(std::stoi(entry->d_name));
    }
    closedir(tasks);
    return found;
}

void writeManyStates(TraceWriter &writer) {
    for (int i = 0; i < 500; ++i) {  // far more than one 2 KiB half
        writer.beginState("Send");
        writer.attribute("index", int64_t{i});
        writer.endState();
    }
}

// Runs body in a child; body returns 0 for success or a code naming the
// failed check. Returns the child's exit code.
template <typename Body>
int inChild(Body body) {
    const pid_t child = fork();
    if (child == 0) _exit(body());
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

TEST(BackgroundWriter, RunsUnboundAndNamedAndBlocksSignals) {
    ScratchDirectory directory;
    const int code = inChild([&directory] {
        cpu_set_t original;
        if (sched_getaffinity(0, sizeof original, &original) != 0) return 10;
        // As an MPI launcher binds a rank: the traced thread on one CPU.
        cpu_set_t firstCpu;
        CPU_ZERO(&firstCpu);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &original)) {
                CPU_SET(cpu, &firstCpu);
                break;
            }
        if (sched_setaffinity(0, sizeof firstCpu, &firstCpu) != 0) return 11;

        TraceOptions options = test::traceOptionsIn(directory, "bg");
        options.bufferBytes = 4096;
        auto writer = TraceWriter::create(options);
        if (!writer) return 12;
        if (!threadsNamed("hdtrace-writer").empty()) return 13;  // not before it is needed
        writeManyStates(*writer);
        const std::vector<pid_t> threads = threadsNamed("hdtrace-writer");
        if (threads.size() != 1) return 14;

        cpu_set_t writerCpus;
        if (sched_getaffinity(threads[0], sizeof writerCpus, &writerCpus) != 0) return 15;
        if (!CPU_EQUAL(&writerCpus, &original)) return 16;  // every CPU the process may use

        // SigBlk: hexadecimal mask, bit n-1 for signal n.
        const std::string status =
            readProcFile("/proc/self/task/" + std::to_string(threads[0]) + "/status");
        const size_t at = status.find("SigBlk:");
        if (at == std::string::npos) return 17;
        const uint64_t blocked = std::stoull(status.substr(at + 7), nullptr, 16);
        for (int signalNumber : {SIGINT, SIGTERM, SIGSEGV, SIGUSR1, SIGXFSZ, SIGPIPE})
            if (!(blocked & (uint64_t{1} << (signalNumber - 1)))) return 18;
        if (writer->close() != 0) return 19;
        return 0;
    });
    EXPECT_EQ(code, 0) << "failed check " << code << " (see the test's return codes)";
}

TEST(BackgroundWriter, IsNeverStartedWhenTracesAreWrittenInPlace) {
    ScratchDirectory directory;
    const int code = inChild([&directory] {
        TraceOptions options = test::traceOptionsIn(directory, "inplace");
        options.bufferBytes = 4096;
        options.backgroundWrites = false;
        auto writer = TraceWriter::create(options);
        if (!writer) return 12;
        writeManyStates(*writer);
        if (!threadsNamed("hdtrace-writer").empty()) return 13;
        return writer->close() == 0 ? 0 : 19;
    });
    EXPECT_EQ(code, 0) << "failed check " << code;
}

}  // namespace
}  // namespace hdtrace
