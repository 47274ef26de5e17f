// Writes a project of RANKS ranks (default one) with a trace of N calls each
// (default one million) through libhdtrace, so that the benchmark reads what
// the writer produces: a mix of point-to-point, non-blocking with Wait/For,
// and file I/O calls.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <hdtrace/TraceWriter.hpp>

namespace {

// Writes rank's trace of events calls; false (after a message) on failure.
bool writeTrace(const std::string &directory, int rank, long events, const char *program);

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: %s DIR [EVENTS [RANKS]]\n", argv[0]);
        return 2;
    }
    const std::string directory = argv[1];
    const long events = argc >= 3 ? std::atol(argv[2]) : 1000000;
    const int ranks = argc == 4 ? std::atoi(argv[3]) : 1;
    if (events <= 0 || ranks <= 0) {
        std::fprintf(stderr, "%s: EVENTS and RANKS must be positive numbers\n", argv[0]);
        return 2;
    }
    for (int rank = 0; rank < ranks; ++rank)
        if (!writeTrace(directory, rank, events, argv[0])) return 1;
    std::string nodes, members;
    for (int rank = 0; rank < ranks; ++rank) {
        const std::string number = std::to_string(rank);
        nodes += "<Node name=\"" + number + "\"><Node name=\"0\"/></Node>";
        members += "<Rank global=\"" + number + "\" local=\"" + number + "\" cid=\"0\"/>";
    }
    std::string datatypes;
    for (int rank = 0; rank < ranks; ++rank)
        datatypes += "<Rank name=\"" + std::to_string(rank) + "\"/>";
    std::ofstream project(directory + "/bench.proj");
    project << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Application name=\"bench\">\n"
               " <Description>reader benchmark</Description>\n <FileList>\n"
               "  <File name=\"bench.dat\"><InitialSize>0</InitialSize><Distribution "
               "implementation=\"de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe\">"
               "<ChunkSize>64K</ChunkSize></Distribution></File>\n </FileList>\n"
               " <Topology>\n  <Level type=\"Hostname\"><Level type=\"Rank\"><Level "
               "type=\"Thread\"></Level></Level></Level>\n"
               "  <Node name=\"node01\">"
            << nodes
            << "</Node>\n"
               " </Topology>\n <CommunicatorList>\n  <Communicator name=\"WORLD\">"
            << members << "</Communicator>\n </CommunicatorList>\n <Datatypes>" << datatypes
            << "</Datatypes>\n</Application>\n";
    if (!project) {
        std::fprintf(stderr, "%s: cannot write %s/bench.proj\n", argv[0], directory.c_str());
        return 1;
    }
    return 0;
}

namespace {

bool writeTrace(const std::string &directory, int rank, long events, const char *program) {
    hdtrace::TraceOptions options;
    options.directory = directory;
    options.program = "bench";
    options.levels = {"node01", std::to_string(rank), "0"};
    std::string error;
    auto writer = hdtrace::TraceWriter::create(options, &error);
    if (!writer) {
        std::fprintf(stderr, "%s: %s\n", program, error.c_str());
        return false;
    }
    hdtrace::Timestamp time = hdtrace::Timestamp::now();
    auto advance = [&time](int64_t nanoseconds) {
        time.nanoseconds += nanoseconds;
        return time;
    };
    long written = 0;
    int64_t offset = 0, rid = 0;
    while (written < events) {
        switch (written % 4) {
            case 0:
                writer->beginState("Send", advance(700));
                writer->attribute("size", int64_t{4096});
                writer->attribute("count", int64_t{1024});
                writer->attribute("tid", int64_t{1275069445});
                writer->attribute("toRank", int64_t{1});
                writer->attribute("toTag", int64_t{42});
                writer->attribute("cid", int64_t{0});
                writer->endState(advance(1300));
                break;
            case 1:
                writer->beginState("Isend", advance(500));
                writer->attribute("size", int64_t{64});
                writer->attribute("count", int64_t{16});
                writer->attribute("tid", int64_t{1275069445});
                writer->attribute("toRank", int64_t{1});
                writer->attribute("toTag", int64_t{7});
                writer->attribute("cid", int64_t{0});
                writer->attribute("rid", rid);
                writer->endState(advance(200));
                break;
            case 2:
                writer->beginState("Wait", advance(300));
                writer->beginElement("For");
                writer->attribute("rid", rid++);
                writer->endElement();
                writer->endState(advance(900));
                break;
            default:
                writer->beginState("File_write_at", advance(400));
                writer->attribute("fid", int64_t{0});
                writer->attribute("offset", offset);
                writer->attribute("size", int64_t{65536});
                writer->attribute("count", int64_t{16384});
                writer->attribute("tid", int64_t{1275069445});
                writer->endState(advance(25000));
                offset += 65536;
                break;
        }
        ++written;
    }
    if (writer->close() != 0) {
        std::fprintf(stderr, "%s: writing %s failed\n", program, writer->tracePath().c_str());
        return false;
    }
    std::printf("%s: %ld calls\n", writer->tracePath().c_str(), written);
    return true;
}

}  // namespace
