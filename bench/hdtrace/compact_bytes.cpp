// bench_compact_bytes: where the bytes of compact traces go. For the
// traces given (typically every .ctrc of one run), prints the bytes of the
// container (file headers, frame headers, index, footer: whatever is not a
// frame's payload), of the payloads as stored, and of the decoded records
// by kind of operation: Program, string definitions, shape definitions,
// elements (static and dynamic shapes), and the structure around them
// (<Nested>, end of children), and the elements' bytes by what they code
// (the shape code, times (a <Nested> block's start among them), ends, ids,
// other integers, text indexes). Each
// kind is also charged what it adds to the stored payload: the frame
// compressed without that kind's bytes (zstd level 1, as the writer)
// against the frame compressed whole. With -s, every string defined, with
// the number of frames that define it.
// Figures only, no assertions.
//
//     bench_compact_bytes [-s] TRACE.ctrc...
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/reader/FrameFile.hpp>

namespace {

using namespace hdtrace;

enum Kind { kProgramKind, kStringKind, kShapeKind, kStaticKind, kDynamicKind, kStructure, kKinds };
const char *const kKindNames[kKinds] = {"Program",
                                        "string definitions",
                                        "shape definitions",
                                        "elements, static shapes",
                                        "elements, dynamic shapes",
                                        "structure (Nested, ends)"};

// What the bytes of an element code.
enum Part { kCodePart, kTimePart, kEndPart, kIdPart, kFieldPart, kTextPart, kParts };
const char *const kPartNames[kParts] = {"shape codes", "times",          "ends",
                                        "ids",         "other integers", "text indexes"};

Part partOf(uint8_t coding) {
    switch (coding) {
        case compact::kTime:
            return kTimePart;
        case compact::kEnd:
            return kEndPart;
        case compact::kText:
        case compact::kRaw:
            return kTextPart;
        case compact::kInteger:
        case compact::kFieldDelta:
            return kFieldPart;
        default:
            return kIdPart;
    }
}

struct Tally {
    uint64_t files = 0;
    uint64_t fileBytes = 0;
    uint64_t storedBytes = 0;
    uint64_t frames = 0;
    uint64_t records = 0;
    uint64_t elements = 0;
    uint64_t decoded[kKinds] = {};
    uint64_t count[kKinds] = {};
    int64_t compressedShare[kKinds] = {};
    uint64_t parts[kParts] = {};
    std::map<std::string, uint64_t> strings;  // text -> frames defining it
};

size_t compressedSize(const std::vector<unsigned char> &bytes) {
    if (bytes.empty()) return 0;
    std::vector<unsigned char> out(ZSTD_compressBound(bytes.size()));
    const size_t size = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 1);
    // The writer stores a payload that zstd does not make smaller.
    return ZSTD_isError(size) || size >= bytes.size() ? bytes.size() : size;
}

bool varint(const unsigned char *&in, const unsigned char *end, uint64_t *value) {
    return compact::getVarint(&in, end, value);
}

// Splits one decoded frame into its operations; owner[i] is the kind of
// byte i. False when the frame does not decode (the tool then says so).
bool classify(const std::vector<unsigned char> &frame, std::vector<unsigned char> &owner,
              Tally &tally) {
    const unsigned char *const begin = frame.data();
    const unsigned char *const end = begin + frame.size();
    const unsigned char *in = begin;
    std::vector<std::vector<uint8_t>> dynamicCodings;
    uint32_t staticCount = compact::staticShapeCount();
    uint32_t strings = 0;
    uint64_t recordsVersion = compact::kRecordsVersion;
    owner.assign(frame.size(), kStructure);
    while (in < end) {
        const unsigned char *start = in;
        uint64_t op = 0, value = 0;
        if (!varint(in, end, &op)) return false;
        Kind kind = kStructure;
        if (op == compact::kProgram) {
            kind = kProgramKind;
            uint64_t fingerprint = 0;
            if (!varint(in, end, &recordsVersion) || !varint(in, end, &fingerprint) ||
                !varint(in, end, &value))
                return false;
            staticCount = compact::staticShapeCountFor(static_cast<uint32_t>(fingerprint));
        } else if (op == compact::kNestedOpen && recordsVersion >= 3) {
            // The block's owner's start: structure, but its bytes code a time.
            const unsigned char *before = in;
            if (!varint(in, end, &value)) return false;
            tally.parts[kTimePart] += static_cast<uint64_t>(in - before);
        } else if (op == compact::kString) {
            kind = kStringKind;
            if (!varint(in, end, &value) || value > static_cast<uint64_t>(end - in)) return false;
            tally.strings[std::string(reinterpret_cast<const char *>(in), value)] += 1;
            in += value;
            ++strings;
        } else if (op == compact::kShape) {
            kind = kShapeKind;
            uint64_t attributes = 0;
            if (!varint(in, end, &value) || !varint(in, end, &attributes)) return false;
            std::vector<uint8_t> codings;
            for (uint64_t i = 0; i < attributes; ++i) {
                if (!varint(in, end, &value) || in == end) return false;
                codings.push_back(*in++);
            }
            dynamicCodings.push_back(std::move(codings));
        } else if (op >= compact::kFirstElementCode) {
            const uint64_t shape = (op - compact::kFirstElementCode) / 2;
            std::vector<uint8_t> codings;
            if (shape < staticCount) {
                kind = kStaticKind;
                const compact::StaticShape &known = compact::staticShapes()[shape];
                for (uint32_t i = 0; i < known.count; ++i)
                    codings.push_back(known.attributes[i].coding);
            } else if (shape - staticCount < dynamicCodings.size()) {
                kind = kDynamicKind;
                codings = dynamicCodings[shape - staticCount];
            } else {
                return false;
            }
            tally.parts[kCodePart] += static_cast<uint64_t>(in - start);
            for (const uint8_t coding : codings) {
                const unsigned char *before = in;
                if (!varint(in, end, &value)) return false;
                tally.parts[partOf(coding)] += static_cast<uint64_t>(in - before);
            }
            ++tally.elements;
        }
        std::fill(owner.begin() + (start - begin), owner.begin() + (in - begin),
                  static_cast<unsigned char>(kind));
        tally.decoded[kind] += static_cast<uint64_t>(in - start);
        tally.count[kind] += 1;
    }
    return true;
}

bool addTrace(const std::string &path, Tally &tally) {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) {
        std::fprintf(stderr, "bench_compact_bytes: cannot stat %s\n", path.c_str());
        return false;
    }
    reader::FrameFile file(path);
    tally.files += 1;
    tally.fileBytes += static_cast<uint64_t>(info.st_size);
    std::vector<unsigned char> frame, owner, without;
    for (size_t position = 0; position < file.frames().size(); ++position) {
        tally.storedBytes += file.frames()[position].storedBytes;
        tally.records += file.frames()[position].records;
        tally.frames += 1;
        file.readFrame(position, frame);
        if (!classify(frame, owner, tally)) {
            std::fprintf(stderr, "bench_compact_bytes: %s: frame %zu does not decode\n",
                         path.c_str(), position);
            return false;
        }
        const int64_t whole = static_cast<int64_t>(compressedSize(frame));
        for (int kind = 0; kind < kKinds; ++kind) {
            without.clear();
            for (size_t i = 0; i < frame.size(); ++i)
                if (owner[i] != kind) without.push_back(frame[i]);
            tally.compressedShare[kind] += whole - static_cast<int64_t>(compressedSize(without));
        }
    }
    return true;
}

}  // namespace

int main(int argc, char **argv) {
    bool listStrings = false;
    int first = 1;
    if (argc > 1 && std::strcmp(argv[1], "-s") == 0) {
        listStrings = true;
        first = 2;
    }
    if (first >= argc) {
        std::fprintf(stderr, "usage: bench_compact_bytes [-s] TRACE.ctrc...\n");
        return 2;
    }
    Tally tally;
    try {
        for (int i = first; i < argc; ++i)
            if (!addTrace(argv[i], tally)) return 1;
    } catch (const std::exception &error) {
        std::fprintf(stderr, "bench_compact_bytes: %s\n", error.what());
        return 1;
    }
    const uint64_t decoded = [&] {
        uint64_t sum = 0;
        for (uint64_t bytes : tally.decoded)
            sum += bytes;
        return sum;
    }();
    const double elements = tally.elements ? static_cast<double>(tally.elements) : 1.0;
    std::printf("%llu files, %llu frames, %llu records, %llu elements\n",
                static_cast<unsigned long long>(tally.files),
                static_cast<unsigned long long>(tally.frames),
                static_cast<unsigned long long>(tally.records),
                static_cast<unsigned long long>(tally.elements));
    std::printf("%-28s %10s %10s\n", "", "bytes", "B/element");
    std::printf("%-28s %10llu %10.2f\n", "files", static_cast<unsigned long long>(tally.fileBytes),
                tally.fileBytes / elements);
    const uint64_t container = tally.fileBytes - tally.storedBytes;
    std::printf("%-28s %10llu %10.2f  (%.1f per file)\n", "container",
                static_cast<unsigned long long>(container), container / elements,
                static_cast<double>(container) / static_cast<double>(tally.files));
    std::printf("%-28s %10llu %10.2f\n", "payloads as stored",
                static_cast<unsigned long long>(tally.storedBytes), tally.storedBytes / elements);
    std::printf("%-28s %10llu %10.2f\n", "records decoded",
                static_cast<unsigned long long>(decoded), decoded / elements);
    std::printf("\n%-28s %8s %10s %10s %14s\n", "decoded, by kind", "count", "bytes", "B/element",
                "adds stored B");
    for (int kind = 0; kind < kKinds; ++kind)
        std::printf("%-28s %8llu %10llu %10.2f %14lld\n", kKindNames[kind],
                    static_cast<unsigned long long>(tally.count[kind]),
                    static_cast<unsigned long long>(tally.decoded[kind]),
                    tally.decoded[kind] / elements,
                    static_cast<long long>(tally.compressedShare[kind]));
    std::printf("\n%-28s %10s %10s\n", "elements' bytes, by part", "bytes", "B/element");
    for (int part = 0; part < kParts; ++part)
        std::printf("%-28s %10llu %10.2f\n", kPartNames[part],
                    static_cast<unsigned long long>(tally.parts[part]),
                    tally.parts[part] / elements);
    if (listStrings) {
        std::printf("\nstrings (frames defining each, text):\n");
        std::vector<std::pair<uint64_t, std::string>> byFrames;
        for (const auto &[text, frames] : tally.strings)
            byFrames.emplace_back(frames, text);
        std::sort(byFrames.rbegin(), byFrames.rend());
        for (const auto &[frames, text] : byFrames)
            std::printf("%6llu  %s\n", static_cast<unsigned long long>(frames), text.c_str());
    }
    return 0;
}
