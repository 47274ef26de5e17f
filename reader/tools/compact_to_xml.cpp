// hdtrace-compact-to-xml [--partial] TRACE OUTPUT
// Writes the compact trace TRACE as the XML text XML mode writes for the
// same states (OUTPUT "-": standard output). Damage is an error naming the
// file and byte offset, and nothing is written; with --partial, the frames
// before the damage are converted and the damage is reported on stderr. A
// trace whose writer was killed converts up to its last complete frame, and
// stderr says where it was cut.
#include <cstdio>
#include <cstring>
#include <string>

#include <hdtrace/reader/ReadError.hpp>

#include "CompactToXml.hpp"

int main(int argc, char **argv) {
    bool partial = false;
    int first = 1;
    if (argc > 1 && std::strcmp(argv[1], "--partial") == 0) {
        partial = true;
        first = 2;
    }
    if (argc - first != 2) {
        std::fprintf(stderr, "usage: hdtrace-compact-to-xml [--partial] TRACE OUTPUT\n");
        return 2;
    }
    try {
        const std::string damage =
            hdtrace::reader::convertCompactToXml(argv[first], argv[first + 1], partial);
        if (!damage.empty())
            std::fprintf(stderr, "hdtrace-compact-to-xml: cut: %s\n", damage.c_str());
        return 0;
    } catch (const hdtrace::reader::ReadError &error) {
        std::fprintf(stderr, "hdtrace-compact-to-xml: %s\n", error.what());
        return 1;
    }
}
