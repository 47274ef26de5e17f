// A compact trace rendered as the XML text the reader gives for it, to
// compare with what the XML writer wrote for the same calls.
#pragma once

#include <string>

#include <hdtrace/reader/FrameFile.hpp>

#include "CompactRecords.hpp"
#include "CompactToXml.hpp"

namespace hdtrace::test {

inline std::string compactAsXml(const std::string &path) {
    reader::FrameFile file(path);
    std::string text;
    reader::CompactToXml converter(&text);
    reader::CompactTraceReader traceReader(file);
    traceReader.read(converter);
    converter.drain();
    return text;
}

}  // namespace hdtrace::test
