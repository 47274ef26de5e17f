// A trace written in the other form: XML (.trc) from a compact trace
// (.ctrc), byte for byte the XML that XML mode writes for the same calls;
// and a compact trace from an XML one, checked before it is kept: its XML
// form must be the XML it came from, byte for byte, so a trace converts
// only when nothing is lost (a trace in the writer's own layout; not one
// of another layout, such as the original implementation's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <hdtrace/reader/TraceForm.hpp>

namespace hdtrace::reader {

// Writes the trace at source in form `to` at target, under a temporary
// name in target's directory renamed when complete: on any failure
// target is left as it was and no temporary remains. Throws ReadError
// naming the file and the byte offset (the source's damage, the first
// byte a compact form could not reproduce) or the output's error.
//
// A compact trace whose writer did not close it (cut at its last complete
// frame) gives XML cut after its last call, as XML mode leaves it.
//
// compactFrameBytes: the compact output's frame size (records per frame
// before compression, FrameFormat.hpp's limits); 0 for the writer's
// default. Smaller frames let readers split a trace more finely.
//
// recordBytes (compact output only): the bytes of each record the output
// holds, before compression, in file order: the writer's opening record
// (its Program), then one a top-level call with its <Nested> block.
//
// kind Scratch: target is a name no one else uses (a scratch file of the
// process's own): written in place, without the temporary name and the
// rename, and removed on failure.
enum class ConversionTarget { Replaced, Scratch };
void convertTrace(const std::string &source, const std::string &target, TraceForm to,
                  uint32_t compactFrameBytes = 0, std::vector<uint32_t> *recordBytes = nullptr,
                  ConversionTarget kind = ConversionTarget::Replaced);

}  // namespace hdtrace::reader
