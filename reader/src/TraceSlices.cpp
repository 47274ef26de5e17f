#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/SaxFileParser.hpp>
#include <hdtrace/reader/TraceSlices.hpp>

namespace hdtrace::reader {
namespace {

constexpr std::string_view kPrologStart =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='";
constexpr std::string_view kPrologEnd = "'>\n";
// The lines of the prolog: the document a slice's libxml2 reader parses
// starts with them.
constexpr int kPrologLines = 2;
constexpr size_t kBlockBytes = 64 * 1024;

class File {
  public:
    explicit File(const std::string &path)
        : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {
        struct stat info {};
        if (fd_ >= 0 && fstat(fd_, &info) == 0 && S_ISREG(info.st_mode))
            size_ = static_cast<uint64_t>(info.st_size);
        else
            valid_ = false;
    }
    ~File() {
        if (fd_ >= 0) ::close(fd_);
    }
    File(const File &) = delete;
    File &operator=(const File &) = delete;

    bool valid() const { return fd_ >= 0 && valid_; }
    uint64_t size() const { return size_; }

    // Up to length bytes at offset (fewer at the end of the file).
    std::string read(uint64_t offset, size_t length) const {
        std::string bytes(length, '\0');
        size_t done = 0;
        while (done < length) {
            ssize_t got =
                ::pread(fd_, bytes.data() + done, length - done, static_cast<off_t>(offset + done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            done += static_cast<size_t>(got);
        }
        bytes.resize(done);
        return bytes;
    }

    // The first offset p >= from (from >= 1) where a line starts with a
    // start tag: bytes p-1, p, p+1 are '\n', '<' and a name's first letter.
    // The file's size when there is none.
    uint64_t lineStartTag(uint64_t from) const {
        for (uint64_t block = from - 1; block < size_; block += kBlockBytes) {
            // Two bytes more than the block: a mark across its end is seen.
            const std::string bytes = read(block, kBlockBytes + 2);
            const size_t scanned = std::min(bytes.size(), kBlockBytes);
            for (const char *newline = bytes.data();
                 (newline = static_cast<const char *>(
                      std::memchr(newline, '\n', bytes.data() + scanned - newline)));
                 ++newline) {
                const size_t at = static_cast<size_t>(newline - bytes.data());
                if (at + 2 >= bytes.size() || bytes[at + 1] != '<') continue;
                const char first = bytes[at + 2];
                if ((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') ||
                    first == '_')
                    return block + at + 1;
            }
        }
        return size_;
    }

    // Newlines in [from, to): only on the way to an error.
    int newlines(uint64_t from, uint64_t to) const {
        int count = 0;
        for (uint64_t block = from; block < to; block += kBlockBytes) {
            const std::string bytes =
                read(block, static_cast<size_t>(std::min<uint64_t>(kBlockBytes, to - block)));
            count += static_cast<int>(std::count(bytes.begin(), bytes.end(), '\n'));
            if (bytes.empty()) break;
        }
        return count;
    }

  private:
    int fd_;
    bool valid_ = true;
    uint64_t size_ = 0;
};

struct Prolog {
    uint64_t length = 0;
    std::string timeAdjustment;
};

// The writer's prolog, exactly, or nullopt.
std::optional<Prolog> writersProlog(const File &file) {
    const std::string head = file.read(0, kPrologStart.size() + 24 + kPrologEnd.size());
    if (head.compare(0, kPrologStart.size(), kPrologStart) != 0) return std::nullopt;
    size_t digits = kPrologStart.size();
    while (digits < head.size() && head[digits] >= '0' && head[digits] <= '9')
        ++digits;
    const size_t count = digits - kPrologStart.size();
    if (count == 0 || count > 19 || head.compare(digits, kPrologEnd.size(), kPrologEnd) != 0)
        return std::nullopt;
    return Prolog{digits + kPrologEnd.size(), head.substr(kPrologStart.size(), count)};
}

}  // namespace

SliceRead readEventColumnsSlice(const std::string &path, const TraceOptions &options,
                                const LocalToWorldTable *localToWorld, uint64_t begin,
                                uint64_t end) {
    SliceRead slice;
    const File file(path);
    const std::optional<Prolog> prolog =
        file.valid() ? writersProlog(file) : std::optional<Prolog>();
    if (!prolog) {
        // Not the writer's layout (or not readable: the whole read words why).
        slice.whole = true;
        if (begin == 0 || !file.valid()) {
            slice.result = readEventColumns(path, options, localToWorld);
            slice.to = file.size();
        }
        if (begin != 0) slice.result = ColumnsResult();
        return slice;
    }
    const uint64_t size = file.size();
    slice.from = begin <= prolog->length ? prolog->length : file.lineStartTag(begin);
    slice.to = end >= size ? size : file.lineStartTag(std::max(end, slice.from));
    if (slice.from >= slice.to) {
        slice.to = slice.from;
        return slice;
    }
    const bool toEndOfFile = slice.to == size;

    std::string reason;
    if (auto read =
            readEventColumnsByDialectSlice(path, options, localToWorld, prolog->timeAdjustment,
                                           slice.from, slice.to, toEndOfFile, &reason)) {
        slice.result = std::move(*read);
        return slice;
    }

    // libxml2 over the prolog and the slice (closed by a </Program> of its
    // own unless it ends the file): the same result or the error a whole
    // read gives at that place, its line moved to the file's.
    std::vector<InputPiece> pieces{{0, prolog->length, {}},
                                   {slice.from, slice.to - slice.from, {}}};
    if (!toEndOfFile) pieces.push_back({0, 0, "</Program>"});
    std::optional<int> linesBefore, sliceLines;
    bool inClosingTag = false;  // an error at the </Program> added
    const auto fileLine = [&](int line) {
        if (line <= kPrologLines) return line;
        if (!linesBefore) linesBefore = file.newlines(0, slice.from);
        if (!toEndOfFile && !sliceLines) sliceLines = file.newlines(slice.from, slice.to);
        if (sliceLines && line > kPrologLines + *sliceLines) inClosingTag = true;
        return line - kPrologLines + *linesBefore;
    };
    // The slice does not end where the root holds only complete calls: the
    // trace is not in the writer's layout after all (or damaged across the
    // slice's end); or libxml2 saw an error only at the slice's end, where
    // the whole file goes on. The whole read gives its error; without one,
    // say why.
    const auto notInLayout = [&]() -> SliceRead {
        TraceOptions strict = options;
        strict.partial = false;
        readEventColumnsWithLibxml2(path, strict, localToWorld);
        throw ReadError(path, file.newlines(0, slice.to) + 1, 1,
                        "a line that starts with a start tag inside a call: the trace is not "
                        "in the writer's layout, read it whole instead of in slices");
    };
    try {
        slice.result =
            readEventColumnsWithLibxml2(path, options, localToWorld, std::move(pieces), fileLine);
    } catch (const InputEndError &) {
        return notInLayout();
    } catch (const ReadError &) {
        if (inClosingTag) return notInLayout();
        throw;
    }
    if (inClosingTag) return notInLayout();
    slice.result.fallback = std::move(reason);
    return slice;
}

}  // namespace hdtrace::reader
