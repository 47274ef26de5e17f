#include "SliceLayout.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace hdtrace::reader {
namespace {

constexpr std::string_view kPrologStart =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='";
constexpr std::string_view kPrologEnd = "'>\n";
// The lines of the prolog: the document a slice's libxml2 reader parses
// starts with them.
constexpr int kPrologLines = 2;
constexpr size_t kBlockBytes = 64 * 1024;

}  // namespace

class SliceLayout::File {
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
    // start tag: bytes p-1, p, p+1 are '\n', '<' and a name's first letter,
    // and the line before is not "</Nested>" (a call owns the <Nested>
    // block before it, so the two stay in one slice). The file's size when
    // there is none.
    uint64_t lineStartTag(uint64_t from) const {
        constexpr std::string_view kNestedEnd = "\n</Nested>";
        for (uint64_t block = from - 1; block < size_; block += kBlockBytes) {
            // The bytes before the block, for the line before a mark at its
            // start, and two bytes after it, for a mark across its end.
            const uint64_t behind = std::min<uint64_t>(block, kNestedEnd.size());
            const std::string bytes = read(block - behind, behind + kBlockBytes + 2);
            const char *const scanEnd = bytes.data() + std::min(bytes.size(), behind + kBlockBytes);
            for (const char *newline = bytes.data() + behind;
                 (newline = static_cast<const char *>(
                      std::memchr(newline, '\n', static_cast<size_t>(scanEnd - newline))));
                 ++newline) {
                const size_t at = static_cast<size_t>(newline - bytes.data());
                if (at + 2 >= bytes.size() || bytes[at + 1] != '<') continue;
                const char first = bytes[at + 2];
                if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') ||
                      first == '_'))
                    continue;
                if (at >= kNestedEnd.size() &&
                    bytes.compare(at - kNestedEnd.size(), kNestedEnd.size(), kNestedEnd) == 0)
                    continue;
                return block - behind + at + 1;
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

std::optional<SliceLayout::Prolog> SliceLayout::writersProlog(const File &file) {
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

SliceLayout::SliceLayout(const std::string &path, uint64_t begin, uint64_t end)
    : path_(path), file_(std::make_unique<File>(path)), begin_(begin), end_(end) {
    if (file_->valid()) prolog_ = writersProlog(*file_);
    if (!prolog_) return;
    const uint64_t size = file_->size();
    from_ = begin <= prolog_->length ? prolog_->length : file_->lineStartTag(begin);
    to_ = end >= size ? size : file_->lineStartTag(std::max(end, from_));
    if (from_ >= to_) to_ = from_;
}

SliceLayout::~SliceLayout() = default;

bool SliceLayout::readable() const {
    return file_->valid();
}

bool SliceLayout::readsWhole() const {
    if (!readable()) return true;
    return begin_ == 0 && (end_ > 0 || file_->size() == 0);
}

uint64_t SliceLayout::fileSize() const {
    return file_->size();
}

bool SliceLayout::endsTheFile() const {
    return to_ == file_->size();
}

std::vector<InputPiece> SliceLayout::documentPieces() const {
    std::vector<InputPiece> pieces{{0, prolog_->length, {}}, {from_, to_ - from_, {}}};
    if (!endsTheFile()) pieces.push_back({0, 0, "</Program>"});
    return pieces;
}

int SliceLayout::fileLine(int documentLine) {
    if (documentLine <= kPrologLines) return documentLine;
    if (!linesBefore_) linesBefore_ = file_->newlines(0, from_);
    if (!endsTheFile() && !sliceLines_) sliceLines_ = file_->newlines(from_, to_);
    if (sliceLines_ && documentLine > kPrologLines + *sliceLines_) inAddedClosingTag_ = true;
    return documentLine - kPrologLines + *linesBefore_;
}

ReadError SliceLayout::notInLayout() const {
    return ReadError(path_, file_->newlines(0, to_) + 1, 1,
                     "a line that starts with a start tag inside a call: the trace is not in the "
                     "writer's layout, read it whole instead of in slices");
}

}  // namespace hdtrace::reader
