// A small run written by libhdtrace's TraceWriter for the slice tests
// (TraceSlicesTest.cpp, tests/python/test_dask.py through reader_sliced_run):
// every kind of element a slice must keep whole or skip. Per cycle and rank:
// a Send to the next rank and a Recv from the one before, an Isend and an
// Irecv completed by a Waitall two calls later, a Startall of persistent
// requests made once at the start and a Waitall for them, a File_open whose
// escaped name holds '<', a newline and quotes, with two levels of nested
// calls (<Nested> blocks) and an <Info> child, a split collective with a
// <Data> child, and an <Event>. At the end, an Isend and an Irecv that match
// but are never waited for, a Send never received and a Recv never sent.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <hdtrace/TraceWriter.hpp>

namespace hdtrace::testing {

inline std::string writeSlicedRunTrace(const std::string &directory, int rank, int ranks,
                                       int cycles, std::string *error) {
    hdtrace::TraceOptions options;
    options.directory = directory;
    options.program = "sliced";
    options.levels = {"node01", std::to_string(rank), "0"};
    options.nestedDepth = 2;
    auto writer = hdtrace::TraceWriter::create(options, error);
    if (!writer) return {};
    hdtrace::Timestamp time = hdtrace::Timestamp::now();
    const auto at = [&time](int64_t nanoseconds) {
        time.nanoseconds += nanoseconds;
        return time;
    };
    const int64_t next = (rank + 1) % ranks, previous = (rank + ranks - 1) % ranks;
    // Each name its own duration: no two names tie in the sums of stats().
    const auto duration = [](const char *name) {
        return int64_t{300} + 11 * name[0] + 5 * name[1] +
               3 * static_cast<int64_t>(std::strlen(name));
    };
    const auto point = [&](const char *name, const char *peerName, int64_t peer, int64_t tag,
                           int64_t rid) {
        writer->beginState(name, at(100 + rank));
        writer->attribute("size", int64_t{8} * (tag + 1));
        writer->attribute("count", int64_t{2} * (tag + 1));
        writer->attribute("tid", int64_t{1275069445});
        writer->attribute(peerName, peer);
        writer->attribute(peerName[0] == 't' ? "toTag" : "fromTag", tag);
        writer->attribute("cid", int64_t{0});
        if (rid >= 0) writer->attribute("rid", rid);
        writer->endState(at(duration(name)));
    };
    const auto waitFor = [&](const char *name, std::vector<int64_t> rids) {
        writer->beginState(name, at(50));
        for (int64_t rid : rids) {
            writer->beginElement("For");
            writer->attribute("rid", rid);
            writer->endElement();
        }
        writer->endState(at(duration(name) + 100));
    };
    int64_t rid = 0;
    const int64_t sendInit = rid++, recvInit = rid++;
    point("Send_init", "toRank", next, 3, sendInit);
    point("Recv_init", "fromRank", previous, 3, recvInit);
    for (int cycle = 0; cycle < cycles; ++cycle) {
        point("Send", "toRank", next, 1, -1);
        point("Recv", "fromRank", previous, 1, -1);
        const int64_t isend = rid++, irecv = rid++;
        point("Isend", "toRank", next, 2, isend);
        point("Irecv", "fromRank", previous, 2, irecv);
        waitFor("Startall", {sendInit, recvInit});
        // Two levels of nested calls: a <Nested> block before File_open, one in it.
        writer->beginState("File_open", at(20));
        writer->attribute("cid", int64_t{0});
        writer->attribute("name", "a <file> & its \"name\"\nline 'two'");
        writer->attribute("flags", int64_t{37});
        writer->attribute("fid", int64_t{cycle});
        writer->beginState("Allreduce", at(10));
        writer->attribute("size", int64_t{4});
        writer->attribute("cid", int64_t{0});
        writer->beginState("Bcast", at(5));
        writer->attribute("size", int64_t{4});
        writer->attribute("root", int64_t{0});
        writer->attribute("cid", int64_t{0});
        writer->endState(at(5));
        writer->endState(at(10));
        writer->beginElement("Info");
        writer->attribute("key", "cb_nodes");
        writer->attribute("value", "<2>");
        writer->endElement();
        writer->endState(at(20));
        waitFor("Waitall", {isend, irecv});
        writer->beginState("File_write_all_begin", at(30));
        writer->attribute("fid", int64_t{cycle});
        writer->attribute("rid", rid);
        writer->beginElement("Data");
        writer->attribute("offset", int64_t{64} * cycle);
        writer->attribute("size", int64_t{64});
        writer->endElement();
        writer->endState(at(30));
        waitFor("Wait", {rid++});
        writer->event("cycle", at(5));
        waitFor("Waitall", {sendInit, recvInit});
    }
    point("Isend", "toRank", next, 4, rid++);        // matched, never completed
    point("Irecv", "fromRank", previous, 4, rid++);  // matched, never completed
    point("Send", "toRank", next, 6, -1);            // never received
    point("Recv", "fromRank", previous, 7, -1);      // never sent
    if (writer->close() != 0) {
        *error = "writing " + writer->tracePath() + " failed";
        return {};
    }
    return writer->tracePath();
}

// Writes the traces and DIR/sliced.proj; the trace paths, or none with *error.
inline std::vector<std::string> writeSlicedRun(const std::string &directory, int ranks, int cycles,
                                               std::string *error) {
    std::vector<std::string> traces;
    for (int rank = 0; rank < ranks; ++rank) {
        traces.push_back(writeSlicedRunTrace(directory, rank, ranks, cycles, error));
        if (traces.back().empty()) return {};
    }
    std::string nodes, members, datatypes;
    for (int rank = 0; rank < ranks; ++rank) {
        const std::string number = std::to_string(rank);
        nodes += "<Node name='" + number + "'><Node name='0'/></Node>";
        members += "<Rank global='" + number + "' local='" + number + "' cid='0'/>";
        datatypes += "<Rank name='" + number + "'/>";
    }
    std::ofstream project(directory + "/sliced.proj");
    project << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Application name='sliced'>\n"
               "<Description>slice tests</Description>\n<FileList>\n</FileList>\n"
               "<Topology>\n<Level type='Hostname'><Level type='Rank'><Level "
               "type='Thread'></Level></Level></Level>\n<Node name='node01'>"
            << nodes << "</Node>\n</Topology>\n<CommunicatorList>\n<Communicator name='WORLD'>"
            << members << "</Communicator>\n</CommunicatorList>\n<Datatypes>" << datatypes
            << "</Datatypes>\n</Application>\n";
    if (!project) {
        *error = "cannot write " + directory + "/sliced.proj";
        return {};
    }
    return traces;
}

}  // namespace hdtrace::testing
