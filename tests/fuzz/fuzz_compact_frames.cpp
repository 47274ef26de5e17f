// Fuzz target: the container of compact traces (reader/src/FrameFile), its
// frame headers, index and footer. Two kinds of input, by the parity of the
// first byte:
// - even (every real file: its magic starts with 'H'): the input is the
//   file. Checks: opening and reading throw nothing but ReadError; a
//   partial read never throws after opening, decodes exactly the frames a
//   strict read decodes before its first error, and no decoded frame is
//   larger than the file's frame size; a time window lists only frames that
//   meet it.
// - odd: the rest of the input is cut into records written by FrameWriter,
//   and the file is then cut short or has one bit flipped where the input
//   says. Checks: an intact file reads back as written, with its index; a
//   damaged one is refused by a strict read (every flip is caught by a
//   checksum) or, when only cut, read in part; whatever a partial read
//   decodes is the start of what was written, ending at a record boundary.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "FuzzSupport.hpp"

using hdtrace::fuzz::fail;
using namespace hdtrace::reader;

namespace {

struct Decoded {
    std::vector<std::vector<unsigned char>> frames;
    bool failed = false;
    size_t framesListed = 0;
    bool indexed = false;
};

Decoded readStrict(const std::string &path) {
    Decoded out;
    try {
        FrameFile file(path);
        out.framesListed = file.frames().size();
        out.indexed = file.indexed();
        std::vector<unsigned char> payload;
        for (size_t i = 0; i < file.frames().size(); ++i) {
            file.readFrame(i, payload);
            out.frames.push_back(payload);
        }
    } catch (const ReadError &) {
        out.failed = true;
    }
    return out;
}

Decoded readPartial(const std::string &path) {
    Decoded out;
    std::unique_ptr<FrameFile> file;
    try {
        file.reset(new FrameFile(path, FrameFileOptions{true}));
    } catch (const ReadError &) {
        out.failed = true;  // no usable file header: nothing to keep
        return out;
    }
    out.indexed = file->indexed();
    std::vector<unsigned char> payload;
    for (size_t i = 0; i < file->frames().size(); ++i) {
        if (!file->readFrame(i, payload)) {
            if (!file->damage()) fail("a partial read stopped without saying why");
            break;
        }
        if (payload.size() != file->frames()[i].rawBytes || payload.size() > file->maxFrameBytes())
            fail("a decoded frame is not the size its header and the file allow");
        out.frames.push_back(payload);
    }
    out.framesListed = file->frames().size();
    if (out.frames.size() != out.framesListed)
        fail("a partial read kept frames it could not decode");
    // Windows list only frames that meet them.
    for (const auto &[from, to] :
         {std::pair<int64_t, int64_t>{0, 1000}, std::pair<int64_t, int64_t>{INT64_MIN, INT64_MAX},
          std::pair<int64_t, int64_t>{-5, -1}}) {
        for (size_t i : file->framesInWindow(from, to)) {
            const FrameInfo &frame = file->frames()[i];
            if (frame.latest < from || frame.earliest > to)
                fail("a time window lists a frame outside it");
        }
    }
    return out;
}

void checkFileInput(const std::string &path) {
    const Decoded strict = readStrict(path);
    const Decoded partial = readPartial(path);
    if (partial.failed) {
        if (!strict.failed) fail("a partial read refused a file a strict read took");
        return;
    }
    // The partial read keeps what the strict read decoded before its error.
    if (partial.frames.size() < strict.frames.size())
        fail("a partial read decoded fewer frames than a strict one");
    for (size_t i = 0; i < strict.frames.size(); ++i)
        if (partial.frames[i] != strict.frames[i]) fail("strict and partial reads disagree");
    if (!strict.failed && partial.frames.size() != strict.frames.size())
        fail("a partial read of an intact file differs from a strict one");
}

void checkWrittenInput(const uint8_t *data, size_t size) {
    const uint64_t hash = hdtrace::fuzz::hashOf(data, size);
    hdtrace::FrameWriterOptions options;
    options.frameBytes = 256 + static_cast<uint32_t>(hash % 1800);
    options.background = false;
    const std::string path = hdtrace::fuzz::scratchDirectory() + "/written.ctrc";
    std::vector<size_t> recordEnds;  // in the concatenated records
    std::string written;
    {
        auto writer = hdtrace::FrameWriter::create(path, options);
        if (!writer) fail("cannot create a compact trace in the scratch directory");
        size_t at = 0;
        int64_t time = static_cast<int64_t>(hash >> 40);
        while (at < size) {
            const size_t length = std::min<size_t>(1 + data[at] % 48, size - at);
            time += data[at] % 7;
            if (writer->append(data + at, length, time) != 0) fail("an append failed");
            written.append(reinterpret_cast<const char *>(data + at), length);
            recordEnds.push_back(written.size());
            at += length;
        }
        if (writer->close() != 0) fail("close failed");
    }
    std::string bytes = hdtrace::fuzz::readWholeFile(path);
    const int damage = static_cast<int>((hash >> 8) % 3);  // none, cut, flip
    const size_t position = static_cast<size_t>((hash >> 16) % bytes.size());
    if (damage == 1) bytes.resize(position);
    if (damage == 2) bytes[position] = static_cast<char>(bytes[position] ^ (1 << (hash >> 60 & 7)));
    hdtrace::fuzz::writeScratchFile("written.ctrc", bytes);

    const Decoded strict = readStrict(path);
    if (damage == 0 && (strict.failed || !strict.indexed)) fail("an intact file did not read");
    if (damage == 2 && !strict.failed) fail("a flipped bit went unnoticed");
    const Decoded partial = readPartial(path);
    std::string decoded;
    for (const auto &frame : partial.frames)
        decoded.append(frame.begin(), frame.end());
    if (written.compare(0, decoded.size(), decoded) != 0)
        fail("a partial read decoded records that were not written");
    if (!decoded.empty() &&
        std::find(recordEnds.begin(), recordEnds.end(), decoded.size()) == recordEnds.end())
        fail("a partial read ends inside a record");
    if (damage == 0 && decoded != written) fail("an intact file lost records");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    if (data[0] % 2 == 0) {
        checkFileInput(hdtrace::fuzz::writeScratchFile(
            "input.ctrc", std::string_view(reinterpret_cast<const char *>(data), size)));
    } else if (size > 1) {
        checkWrittenInput(data + 1, size - 1);
    }
    hdtrace::fuzz::emptyDirectory(hdtrace::fuzz::scratchDirectory());
    return 0;
}
