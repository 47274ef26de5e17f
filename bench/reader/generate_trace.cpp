// Writes a one-rank project with a trace of N calls (default one million)
// through libhdtrace, so that the benchmark reads what the writer produces:
// a mix of point-to-point, non-blocking with Wait/For, and file I/O calls.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <hdtrace/TraceWriter.hpp>

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s DIR [EVENTS]\n", argv[0]);
        return 2;
    }
    const std::string directory = argv[1];
    const long events = argc == 3 ? std::atol(argv[2]) : 1000000;
    if (events <= 0) {
        std::fprintf(stderr, "%s: EVENTS must be a positive number\n", argv[0]);
        return 2;
    }
    hdtrace::TraceOptions options;
    options.directory = directory;
    options.program = "bench";
    options.levels = {"node01", "0", "0"};
    std::string error;
    auto writer = hdtrace::TraceWriter::create(options, &error);
    if (!writer) {
        std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
        return 1;
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
        std::fprintf(stderr, "%s: writing %s failed\n", argv[0], writer->tracePath().c_str());
        return 1;
    }
    std::ofstream project(directory + "/bench.proj");
    project << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Application name=\"bench\">\n"
               " <Description>reader benchmark</Description>\n <FileList>\n"
               "  <File name=\"bench.dat\"><InitialSize>0</InitialSize><Distribution "
               "implementation=\"de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe\">"
               "<ChunkSize>64K</ChunkSize></Distribution></File>\n </FileList>\n"
               " <Topology>\n  <Level type=\"Hostname\"><Level type=\"Rank\"><Level "
               "type=\"Thread\"></Level></Level></Level>\n"
               "  <Node name=\"node01\"><Node name=\"0\"><Node name=\"0\"/></Node></Node>\n"
               " </Topology>\n <CommunicatorList>\n  <Communicator name=\"WORLD\"><Rank "
               "global=\"0\" local=\"0\" cid=\"0\"/></Communicator>\n </CommunicatorList>\n"
               " <Datatypes><Rank name=\"0\"/></Datatypes>\n</Application>\n";
    if (!project) {
        std::fprintf(stderr, "%s: cannot write %s/bench.proj\n", argv[0], directory.c_str());
        return 1;
    }
    std::printf("%s: %ld calls\n", writer->tracePath().c_str(), written);
    return 0;
}
