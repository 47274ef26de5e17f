#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <hdtrace/codec/XmlReferences.hpp>

#include "DialectBytes.hpp"
#include "DialectScanner.hpp"
#include "DialectTagScan.hpp"

namespace hdtrace::reader {

using namespace dialect;

// run and runSlice: the scan with a DialectHandler's virtual calls.
template DialectScanner::Outcome DialectScanner::runWith(DialectHandler &);
template DialectScanner::Outcome DialectScanner::runSliceWith(DialectHandler &, uint64_t, uint64_t,
                                                              bool);

namespace {

// The set of name's shape: a hash of its first and last eight bytes (the
// buffer's padding makes the loads safe) and its length.
inline int shapeSet(std::string_view name) {
    uint64_t head = 0, tail = 0;
    std::memcpy(&head, name.data(), 8);
    if (name.size() < 8) head &= (uint64_t{1} << (8 * name.size())) - 1;
    if (name.size() > 8) std::memcpy(&tail, name.data() + name.size() - 8, 8);
    uint64_t hash = (head * 0x9e3779b97f4a7c15u) ^ (tail * 0xc2b2ae3d27d4eb4fu) ^ name.size();
    hash *= 0x9e3779b97f4a7c15u;
    static_assert(DialectScanner::kShapeSets == 128, "the hash gives 7 bits");
    return static_cast<int>(hash >> 57);
}

// Length of the valid UTF-8 sequence of an XML character at position, 0 if
// invalid, -1 if it runs past end.
int utf8CharLength(const char *position, const char *end) {
    const unsigned char lead = byteAt(position);
    int length = lead < 0xc2 ? 0 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf5 ? 4 : 0;
    if (length == 0) return 0;
    if (end - position < length) return -1;
    uint32_t codePoint = lead & (0x7f >> length);
    for (int i = 1; i < length; ++i) {
        const unsigned char next = byteAt(position + i);
        if ((next & 0xc0) != 0x80) return 0;
        codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if ((length == 3 && codePoint < 0x800) || (length == 4 && codePoint < 0x10000) ||
        codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff) ||
        codePoint == 0xfffe || codePoint == 0xffff)
        return 0;
    return length;
}

// The XML declarations of our writer, the older layout and the tests; any other is left to libxml2.
constexpr std::string_view kPrologs[] = {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version=\"1.0\"?>",
    "<?xml version='1.0' encoding='UTF-8'?>", "<?xml version='1.0'?>"};

}  // namespace

DialectScanner::Tables &DialectScanner::sparesOfThisThread() {
    thread_local Tables spares;
    return spares;
}

DialectScanner::DialectScanner(std::string path, size_t chunkBytes)
    : path_(std::move(path)), capacity_(chunkBytes) {
    Tables &spares = sparesOfThisThread();
    openNames_.swap(spares.openNames);
    shapes_.swap(spares.shapes);
    openNames_.resize(kMaxDepth + 1);
    if (shapes_.size() == kShapeSlots) {
        // An earlier scanner's: a slot of generation 0 is empty, whatever
        // else it still holds.
        for (TagShape &shape : shapes_)
            shape.generation = 0;
    } else {
        shapes_.resize(kShapeSlots);
    }
    shapeByHead_.fill(-1);
}

DialectScanner::~DialectScanner() {
    if (mapArea_) munmap(mapArea_, mapBytes_);
    if (fd_ >= 0) ::close(fd_);
    Tables &spares = sparesOfThisThread();
    if (spares.shapes.empty()) {
        spares.shapes.swap(shapes_);
        spares.openNames.swap(openNames_);
    }
}

DialectScanner::TagResult DialectScanner::unrecognised(const char *why) {
    reason_ = why;
    return TagResult::Unrecognised;
}

bool DialectScanner::open() {
    // Like SaxFileParser: never block on a FIFO, read regular files only.
    // Every refusal is left to libxml2's reader, which words the error.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) return false;
    struct stat info {};
    if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) return false;
    fileBytes_ = static_cast<size_t>(info.st_size);
    // Mapped only when asked (HDTRACE_READER_MMAP=1): on the development
    // machine, mapping and unmapping the chunks cost as much as read(2)'s copy
    // (docs/dev/performance.md, "The scanner at speed"), and a file cut short by another
    // process while mapped kills the reader with SIGBUS. Never for a file
    // that says it is empty: files of /proc and /sys do, and have text.
    const char *setting = std::getenv("HDTRACE_READER_MMAP");
    mapped_ = fileBytes_ > 0 && setting && std::strcmp(setting, "1") == 0;
    // A small file gets a chunk of its size (it may still grow: then a tag
    // longer than the chunk goes to libxml2). Mapped chunks end on a page.
    if (fileBytes_ + 1 < capacity_) capacity_ = std::max<size_t>(fileBytes_ + 1, kPageBytes);
    if (mapped_) {
        capacity_ = (capacity_ + kPageBytes - 1) & ~(kPageBytes - 1);
        posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    return true;
}

bool DialectScanner::refill(const char *keepFrom) {
    const size_t keepOffset = chunkOffset_ + static_cast<size_t>(keepFrom - begin_);
    const size_t keep = static_cast<size_t>(end_ - keepFrom);
    if (keepFrom > begin_) byteBeforeChunk_ = keepFrom[-1];
    if (mapped_) {
        if (mapChunk(keepOffset, keep)) return true;
        if (mapped_) return false;  // a tag longer than the chunk
    }
    // read(2) into the buffer: the tag cut by the chunk's end first, then
    // what follows it in the file.
    if (keep == capacity_) return false;
    if (buffer_.empty()) buffer_.resize(capacity_ + kPadding);
    char *begin = buffer_.data();
    if (keep > 0) std::memmove(begin, keepFrom, keep);
    if (mapArea_) {  // switched from mapping: what was kept is copied now
        munmap(mapArea_, mapBytes_);
        mapArea_ = nullptr;
    }
    size_t filled = keep;
    while (filled < capacity_ && !endOfFile_) {
        const uint64_t at = keepOffset + filled;
        if (at >= readEnd_) {
            endOfFile_ = true;  // the slice's end
            break;
        }
        const size_t wanted =
            static_cast<size_t>(std::min<uint64_t>(capacity_ - filled, readEnd_ - at));
        ssize_t got = ::pread(fd_, begin + filled, wanted, static_cast<off_t>(at));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return false;
        if (got == 0) endOfFile_ = true;
        filled += static_cast<size_t>(got);
    }
    begin_ = begin;
    chunkOffset_ = keepOffset;
    end_ = begin + filled;
    std::memset(begin + filled, 0, kPadding);
    indexChunk();
    return true;
}

// The next chunk as a read-only private mapping of the file from the page
// holding keepOffset, followed by zeroed anonymous pages (the sentinel and
// the padding), so the file's bytes are never copied. Only the chunk is
// mapped: the previous one is unmapped once the new one holds the kept tag.
// false with mapped_ still set: no progress possible (a tag longer than the
// chunk); false with mapped_ cleared: mapping failed, read(2) takes over.
bool DialectScanner::mapChunk(size_t keepOffset, size_t keep) {
    const size_t pageOffset = keepOffset & ~(kPageBytes - 1);
    size_t chunkEnd = std::min(fileBytes_, pageOffset + capacity_);
    if (chunkEnd == fileBytes_) {
        // The end of the file as it was: it may have grown since.
        struct stat info {};
        if (fstat(fd_, &info) == 0 && static_cast<size_t>(info.st_size) > fileBytes_) {
            fileBytes_ = static_cast<size_t>(info.st_size);
            chunkEnd = std::min(fileBytes_, pageOffset + capacity_);
        }
    }
    chunkEnd = static_cast<size_t>(std::min<uint64_t>(chunkEnd, readEnd_));
    // No byte after the kept tag: a tag longer than the chunk.
    if (keep > 0 && chunkEnd <= keepOffset + keep) return false;
    const size_t lead = keepOffset - pageOffset;
    const size_t fileSpan = lead + (chunkEnd - keepOffset);
    const size_t filePages = (fileSpan + kPageBytes - 1) & ~(kPageBytes - 1);
    const size_t areaBytes = filePages + ((kPadding + kPageBytes - 1) & ~(kPageBytes - 1));
    void *area =
        mmap(nullptr, areaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) {
        mapped_ = false;
        return false;
    }
    if (filePages > 0 && mmap(area, filePages, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE,
                              fd_, static_cast<off_t>(pageOffset)) == MAP_FAILED) {
        munmap(area, areaBytes);
        mapped_ = false;
        return false;
    }
    char *base = static_cast<char *>(area);
    if (fileSpan % kPageBytes != 0) {
        // The file's last page, partly beyond its end: the kernel shows
        // zeros there, unless the file grows meanwhile. A private copy of the
        // page with zeros written keeps the sentinel whatever happens.
        char *lastPage = base + (fileSpan & ~(kPageBytes - 1));
        if (mprotect(lastPage, kPageBytes, PROT_READ | PROT_WRITE) != 0) {
            munmap(area, areaBytes);
            mapped_ = false;
            return false;
        }
        std::memset(base + fileSpan, 0, kPageBytes - fileSpan % kPageBytes);
    }
    if (mapArea_) munmap(mapArea_, mapBytes_);
    mapArea_ = area;
    mapBytes_ = areaBytes;
    begin_ = base + lead;
    chunkOffset_ = keepOffset;
    end_ = base + fileSpan;
    endOfFile_ = chunkEnd >= fileBytes_ || chunkEnd >= readEnd_;
    indexChunk();
    return true;
}

namespace {

// The index of count 64-byte blocks at begin into quotes and special (see
// quoteBits_ and specialBits_), with SSE2 (every x86-64), AVX2 where the
// processor has it, or byte by byte.
void indexBlocksPortably(const char *begin, size_t count, uint64_t *quotes, uint64_t *special) {
    for (size_t word = 0; word < count; ++word) {
        const char *block = begin + word * 64;
        uint64_t quoteBits = 0, specialBits = 0;
#ifdef __SSE2__
        const __m128i apostrophe = _mm_set1_epi8('\''), space = _mm_set1_epi8(0x20),
                      ampersand = _mm_set1_epi8('&'), less = _mm_set1_epi8('<'),
                      del = _mm_set1_epi8(0x7f);
        for (int part = 0; part < 4; ++part) {
            const __m128i bytes =
                _mm_loadu_si128(reinterpret_cast<const __m128i *>(block + 16 * part));
            // Signed: bytes >= 0x80 are negative, so below 0x20 as well.
            __m128i bad = _mm_cmplt_epi8(bytes, space);
            bad = _mm_or_si128(bad, _mm_cmpeq_epi8(bytes, ampersand));
            bad = _mm_or_si128(bad, _mm_cmpeq_epi8(bytes, less));
            bad = _mm_or_si128(bad, _mm_cmpeq_epi8(bytes, del));
            const auto shift = static_cast<unsigned>(16 * part);
            quoteBits |= static_cast<uint64_t>(static_cast<uint32_t>(
                             _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, apostrophe))))
                         << shift;
            specialBits |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(bad)))
                           << shift;
        }
#else
        for (unsigned bit = 0; bit < 64; ++bit) {
            const uint8_t kind = kTables.value[byteAt(block + bit)];
            quoteBits |= static_cast<uint64_t>(byteAt(block + bit) == '\'') << bit;
            specialBits |=
                static_cast<uint64_t>(kind == kBad || kind == kNonAscii || kind == kAmpersand)
                << bit;
        }
#endif
        quotes[word] = quoteBits;
        special[word] = specialBits;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HDTRACE_HAVE_AVX2_INDEX 1
// Bit i: byte i of the 32 is not special: above 0x1f (signed: not >= 0x80
// either) and none of '&', '<', DEL.
__attribute__((target("avx2"))) inline uint64_t plainBytesWithAvx2(__m256i bytes) {
    __m256i named = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('&'));
    named = _mm256_or_si256(named, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('<')));
    named = _mm256_or_si256(named, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(0x7f)));
    const __m256i plain =
        _mm256_andnot_si256(named, _mm256_cmpgt_epi8(bytes, _mm256_set1_epi8(0x1f)));
    return static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(plain)));
}

// Bit i: byte i of the 32 is a single quote.
__attribute__((target("avx2"))) inline uint64_t quoteBytesWithAvx2(__m256i bytes) {
    return static_cast<uint64_t>(static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\'')))));
}

__attribute__((target("avx2"))) void indexBlocksWithAvx2(const char *begin, size_t count,
                                                         uint64_t *quotes, uint64_t *special) {
    for (size_t word = 0; word < count; ++word) {
        const char *block = begin + word * 64;
        const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block));
        const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + 32));
        quotes[word] = quoteBytesWithAvx2(low) | quoteBytesWithAvx2(high) << 32;
        special[word] = ~(plainBytesWithAvx2(low) | plainBytesWithAvx2(high) << 32);
    }
}
#endif

}  // namespace

// Builds quoteBits_ and specialBits_ for the bytes up to end_ (the last word
// covers zeros of the padding, which are special and not quotes).
void DialectScanner::indexChunk() {
    const char *begin = begin_;
    indexWords_ = (static_cast<size_t>(end_ - begin) + 63) / 64;
    if (specialBits_.size() < indexWords_ + 1) {
        quoteBits_.resize(capacity_ / 64 + 2);
        specialBits_.resize(capacity_ / 64 + 2);
    }
    // The word after the data: no quote, all special (a tag that reaches it
    // is cut by the chunk's end), never bits of an earlier chunk.
    quoteBits_[indexWords_] = 0;
    specialBits_[indexWords_] = ~uint64_t{0};
#ifdef HDTRACE_HAVE_AVX2_INDEX
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
        indexBlocksWithAvx2(begin, indexWords_, quoteBits_.data(), specialBits_.data());
        return;
    }
#endif
    indexBlocksPortably(begin, indexWords_, quoteBits_.data(), specialBits_.data());
}

bool DialectScanner::skipProlog(const char *&position) {
    const std::string_view start(begin_, static_cast<size_t>(end_ - begin_));
    if (start.substr(0, 2) != "<?") return true;
    for (std::string_view prolog : kPrologs) {
        if (start.substr(0, prolog.size()) == prolog) {
            position += prolog.size();
            return true;
        }
    }
    return false;
}

DialectScanner::Outcome DialectScanner::run(DialectHandler &handler) {
    return runWith(handler);
}

DialectScanner::Outcome DialectScanner::runSlice(DialectHandler &handler, uint64_t from,
                                                 uint64_t to, bool toIsEndOfFile) {
    return runSliceWith(handler, from, to, toIsEndOfFile);
}

bool DialectScanner::startFile(const char *&position) {
    if (!open()) {
        reason_ = "cannot open the file as a regular file";
        return false;
    }
    if (!refill(end_)) {
        reason_ = "read failed";
        return false;
    }
    if (end_ == begin_) {
        reason_ = "the file is empty";
        return false;
    }
    position = begin_;
    if (!skipProlog(position)) {
        reason_ = "an XML declaration other than version 1.0 in UTF-8";
        return false;
    }
    return true;
}

bool DialectScanner::startSlice(uint64_t from, uint64_t to, bool toIsEndOfFile) {
    if (!open()) {
        reason_ = "cannot open the file as a regular file";
        return false;
    }
    if (to <= from) {
        reason_ = "an empty slice";
        return false;
    }
    slice_ = true;
    sliceEndsFile_ = toIsEndOfFile;
    readEnd_ = to;
    // A slice needs no chunk larger than itself. A mapped chunk starts at
    // the page holding its first byte and ends on a page: one page more.
    if (to - from + 1 < capacity_) {
        capacity_ = std::max<size_t>(static_cast<size_t>(to - from) + 1, kPageBytes);
        if (mapped_) capacity_ = ((capacity_ + kPageBytes - 1) & ~(kPageBytes - 1)) + kPageBytes;
    }
    // The root <Program> is open: its start tag is in the prolog, read by the caller.
    depth_ = 1;
    rootSeen_ = true;
    OpenName &root = openNames_[1];
    std::memcpy(root.text, "Program", 7);
    root.length = 7;
    chunkOffset_ = static_cast<size_t>(from);  // the first refill reads from here
    if (!refill(end_)) {
        reason_ = "read failed";
        return false;
    }
    return true;
}

// The slot of name's shape, or -1. The set comes from a hash of the name's
// bytes, read in words (the buffer's padding makes the loads safe).
int DialectScanner::findShape(std::string_view name) const {
    const int set = shapeSet(name);
    for (int way = 0; way < 2; ++way) {
        const int slot = 2 * set + way;
        const TagShape &shape = shapes_[static_cast<size_t>(slot)];
        if (shape.generation != 0 && shape.nameLength == name.size() &&
            sameShortBytes(shape.name, name.data(), name.size()))
            return slot;
    }
    return -1;
}

// Makes the tag just scanned in full its name's shape; its slot, or -1 when
// the tag does not fit in a shape.
int DialectScanner::learnShape(std::string_view name, const char *const *gapStarts,
                               const char *const *gapEnds, int count, bool selfClosing,
                               const char *const *attributeNames) {
    if (name.size() > kShortName || count > kMaxShapeAttributes) return -1;
    for (int index = 0; index <= count; ++index)
        if (static_cast<size_t>(gapEnds[index] - gapStarts[index]) > kMaxShapeGap) return -1;
    for (int index = 0; index < count; ++index)
        if (gapEnds[index][-1] != '\'') return -1;  // matchShape looks for single quotes
    const int set = shapeSet(name);
    int slot = findShape(name);
    if (slot < 0) {
        // The way not used last, or an empty one.
        const int way = shapes_[static_cast<size_t>(2 * set)].generation == 0 ? 0
                        : shapes_[static_cast<size_t>(2 * set + 1)].generation == 0
                            ? 1
                            : !recentWay_[static_cast<size_t>(set)];
        slot = 2 * set + way;
    }
    TagShape &shape = shapes_[static_cast<size_t>(slot)];
    if (++generations_ == 0) ++generations_;  // 0 means empty
    shape.generation = generations_;
    shape.count = count;
    shape.selfClosing = selfClosing;
    shape.nameLength = static_cast<uint8_t>(name.size());
    shape.nameMask = name.size() <= 16 ? static_cast<uint16_t>((1u << name.size()) - 1) : 0;
    std::memcpy(shape.name, name.data(), name.size());
    for (int index = 0; index <= count; ++index) {
        const size_t length = static_cast<size_t>(gapEnds[index] - gapStarts[index]);
        TagShape::Gap &gap = shape.gaps[index];
        gap.length = static_cast<uint8_t>(length);
        gap.mask = static_cast<uint16_t>((1u << length) - 1);
        std::memcpy(gap.bytes, gapStarts[index], length);
        if (index < count) {
            const size_t offset = static_cast<size_t>(attributeNames[index] - gapStarts[index]);
            shape.attributes[index] = {
                std::string_view(gap.bytes + offset,
                                 attributes_[static_cast<size_t>(index)].name.size()),
                std::string_view()};
        }
    }
    recentWay_[static_cast<size_t>(set)] = slot & 1;
    return slot;
}

// The attributes and the end of a start tag, from just after its name, in
// full. Records where each gap (see TagShape) starts and ends, and where each
// attribute's name is, for learnShape.
DialectScanner::TagResult DialectScanner::scanAttributes(const char *&position, int *countOut,
                                                         bool *selfClosingOut,
                                                         const char **gapStarts,
                                                         const char **gapEnds,
                                                         const char **attributeNames) {
    const char *cursor = position;
    int count = 0;
    uint64_t seen = 0;
    bool selfClosing = false;
    for (;;) {
        const char *beforeSpace = cursor;
        gapStarts[count] = beforeSpace;
        while (kTables.space[byteAt(cursor)])
            ++cursor;
        if (cursor == end_) return TagResult::NeedMore;
        if (*cursor == '>') {
            ++cursor;
            break;
        }
        if (*cursor == '/') {
            if (cursor + 1 == end_) return TagResult::NeedMore;
            if (cursor[1] != '>') return unrecognised("a malformed empty-element tag");
            cursor += 2;
            selfClosing = true;
            break;
        }
        if (cursor == beforeSpace || !kTables.nameStart[byteAt(cursor)])
            return unrecognised("a malformed attribute");
        if (count == kMaxAttributes) return unrecognised("too many attributes");
        const char *attributeStart = cursor;
        cursor = skipName(cursor);
        const std::string_view attributeName(attributeStart,
                                             static_cast<size_t>(cursor - attributeStart));
        if (attributeName.size() > kMaxNameBytes || sameName(attributeName, "xmlns"))
            return unrecognised("an attribute name outside the dialect");
        while (kTables.space[byteAt(cursor)])
            ++cursor;
        if (cursor == end_) return TagResult::NeedMore;
        if (*cursor != '=') return unrecognised("a malformed attribute");
        ++cursor;
        while (kTables.space[byteAt(cursor)])
            ++cursor;
        if (cursor == end_) return TagResult::NeedMore;
        const char quote = *cursor;
        if (quote != '\'' && quote != '"') return unrecognised("an unquoted attribute value");
        ++cursor;
        gapEnds[count] = cursor;
        attributeNames[count] = attributeStart;
        // Most values are plain text: scanned here, the rest by scanValue.
        const char *valueStart = cursor;
        cursor = skipPlainValue(cursor);
        std::string_view value;
        if (*cursor == quote) {
            value = std::string_view(valueStart, static_cast<size_t>(cursor - valueStart));
            ++cursor;
        } else {
            cursor = valueStart;
            TagResult result = scanValue(cursor, quote, count, &value);
            if (result != TagResult::Done) return result;
        }
        // A repeat is looked for only when an earlier name has the same
        // length and first letter (seen, one bit per such pair).
        const uint64_t bit = uint64_t{1}
                             << ((attributeName.size() * 7 + byteAt(attributeStart)) & 63);
        if (seen & bit) {
            for (int other = 0; other < count; ++other)
                if (sameName(attributes_[static_cast<size_t>(other)].name, attributeName))
                    return unrecognised("a repeated attribute");
        }
        seen |= bit;
        attributes_[static_cast<size_t>(count++)] = {attributeName, value};
    }
    gapEnds[count] = cursor;
    position = cursor;
    *countOut = count;
    *selfClosingOut = selfClosing;
    return TagResult::Done;
}

// Scans an attribute value from just after its opening quote to just after
// its closing one. The value is a view into the buffer unless it holds
// references, which are decoded into decoded_[attributeIndex].
DialectScanner::TagResult DialectScanner::scanValue(const char *&position, char quote,
                                                    int attributeIndex, std::string_view *value) {
    const char *cursor = position;
    const char *run = cursor;  // start of the text not yet copied to decoded
    std::string *decoded = nullptr;
    for (;;) {
        cursor = skipPlainValue(cursor);
        const uint8_t kind = kTables.value[byteAt(cursor)];
        if (kind == kQuote) {
            if (*cursor == quote) break;
            ++cursor;
        } else if (kind == kNonAscii) {
            const int length = utf8CharLength(cursor, end_);
            if (length < 0) return TagResult::NeedMore;
            if (length == 0) return unrecognised("bytes that are not UTF-8 XML characters");
            cursor += length;
        } else if (kind == kAmpersand) {
            if (!decoded) {
                decoded = &decoded_[static_cast<size_t>(attributeIndex)];
                decoded->clear();
            }
            decoded->append(run, static_cast<size_t>(cursor - run));
            const char *referenceEnd = cursor + 1;
            while (referenceEnd < end_ && referenceEnd - cursor <= 10 && *referenceEnd != ';')
                ++referenceEnd;
            if (referenceEnd == end_) return TagResult::NeedMore;
            if (*referenceEnd != ';' ||
                !decodeReference(
                    std::string_view(cursor + 1, static_cast<size_t>(referenceEnd - cursor - 1)),
                    *decoded))
                return unrecognised("a reference outside the dialect");
            cursor = referenceEnd + 1;
            run = cursor;
        } else {
            if (cursor == end_) return TagResult::NeedMore;
            return unrecognised("a character in a value that XML normalises or refuses");
        }
    }
    if (decoded) {
        decoded->append(run, static_cast<size_t>(cursor - run));
        decoded->reserve(decoded->size() + 16);  // see ScannedAttribute::value
        *value = *decoded;
    } else {
        *value = std::string_view(position, static_cast<size_t>(cursor - position));
    }
    position = cursor + 1;
    return TagResult::Done;
}

}  // namespace hdtrace::reader
