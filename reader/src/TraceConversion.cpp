// XML to compact: the XML is read by libxml2 (SaxFileParser) element by
// element; each top-level call, with the <Nested> block before it, becomes
// the writer's items (CompactItems.hpp) with each value typed as the writer
// types it where its text is what the writer would write for that value
// (an integer, a time of nine digits), as text otherwise, and goes through
// the writer's encoder (CompactEncoder). The result is then rendered back
// (CompactXmlText) and compared with the source byte for byte.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Format.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>

#include "CompactSource.hpp"
#include "CompactToXml.hpp"
#include "CompactXmlText.hpp"
#include "SaxFileParser.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {
namespace {

namespace items = compact_items;

constexpr std::string_view kProgramEnd = "</Program>\n";

// Where a conversion writes: a temporary file beside target, renamed to
// target when kept and removed unless kept; or, for a scratch target (a
// name no one else uses), target itself, removed unless kept.
class ConversionOutput {
  public:
    ConversionOutput(const std::string &target, ConversionTarget kind)
        : target_(target), inPlace_(kind == ConversionTarget::Scratch) {
        if (inPlace_) {
            path_ = target;
            return;
        }
        // A name no other conversion uses, and the mode the target would be
        // created with (0666 less the umask), both from a file made under
        // that name with O_EXCL. The file is then removed, for the writer
        // to create anew: a writer's O_TRUNC on an existing file, even an
        // empty one, makes ext4 write the file out to the disk when it is
        // closed, which the conversions of a run of many small traces
        // (hdtrace score) paid per trace.
        static std::atomic<unsigned> counter{0};
        for (int attempt = 0;; ++attempt) {
            path_ = target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
            const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd >= 0) {
                struct stat status {};
                if (::fstat(fd, &status) == 0) mode_ = status.st_mode & 07777;
                ::close(fd);
                ::unlink(path_.c_str());
                return;
            }
            if (errno != EEXIST || attempt == 100)
                throw ReadError(target, 0, 0,
                                std::string("cannot create: ") + std::strerror(errno));
        }
    }
    ~ConversionOutput() {
        if (!kept_) std::remove(path_.c_str());
    }
    ConversionOutput(const ConversionOutput &) = delete;
    ConversionOutput &operator=(const ConversionOutput &) = delete;
    const std::string &path() const { return path_; }
    void keep() {
        if (!inPlace_ && (::chmod(path_.c_str(), mode_) != 0 ||
                          std::rename(path_.c_str(), target_.c_str()) != 0))
            throw ReadError(target_, 0, 0, std::string("cannot write: ") + std::strerror(errno));
        kept_ = true;
    }

  private:
    std::string target_;
    std::string path_;
    bool inPlace_;
    mode_t mode_ = 0644;
    bool kept_ = false;
};

// The damage FrameFile describes ("file: byte N: problem") as the error.
[[noreturn]] void throwDamage(const std::string &file, const std::string &damage) {
    const std::string prefix = file + ": ";
    throw ReadError(
        file, 0, 0,
        damage.compare(0, prefix.size(), prefix) == 0 ? damage.substr(prefix.size()) : damage);
}

// The coding the writer gives a value with this text, and the value.
uint8_t codingOf(std::string_view attribute, std::string_view text, int64_t *value) {
    char formatted[kMaxNumberChars];
    if (grammar::isTime(attribute)) {
        const auto time = parseDecimalSeconds(text);
        if (time &&
            std::string_view(formatted,
                             static_cast<size_t>(formatRelativeTime(formatted, time->nanoseconds) -
                                                 formatted)) == text) {
            *value = time->nanoseconds;
            return grammar::isStartTime(attribute) ? compact::kTime : compact::kEnd;
        }
        return compact::kText;
    }
    const auto number = parseInteger(text);
    if (number && std::string_view(
                      formatted,
                      static_cast<size_t>(formatInteger(formatted, *number) - formatted)) == text) {
        *value = *number;
        return compact::kInteger;
    }
    return compact::kText;
}

// The SAX handler that turns the XML's elements into records.
class XmlToRecords final : public SaxHandler {
  public:
    XmlToRecords(std::string compactPath, uint32_t frameBytes, std::vector<uint32_t> *recordBytes)
        : compactPath_(std::move(compactPath)),
          frameBytes_(frameBytes),
          recordBytes_(recordBytes) {}
    void setParser(SaxFileParser *parser) { parser_ = parser; }
    // After the parse: the last frame, the index and the footer.
    void close() {
        if (!encoder_) openEncoder(0);
        if (items_.size() > 0) append();
        if (frames_->close() != 0)
            throw ReadError(compactPath_, 0, 0,
                            std::string("cannot write: ") + std::strerror(errno));
    }

    void startElement(std::string_view name, const AttributeList &attributes) override {
        ++depth_;
        if (depth_ == 1) return startProgram(name, attributes);
        if (grammar::isNestedBlock(name) && attributes.size() == 0 && !inCall_) {
            items::putOp(items_, items::kNestedOpen);
            open_.push_back(Open{0, true, false});
            return;
        }
        if (!open_.empty() && !open_.back().nested) open_.back().hasChildren = true;
        const size_t opAt = items_.size();
        const size_t lengthAt = items::beginElement(items_, items::kOpen, name);
        for (int index = 0; index < attributes.size(); ++index) {
            const std::string_view attribute = attributes.name(index);
            const std::string_view text = attributes.value(index);
            int64_t value = 0;
            const uint8_t coding = codingOf(attribute, text, &value);
            if (coding == compact::kText)
                items::putText(items_, coding, attribute, text);
            else
                items::putNumber(items_, coding, attribute, value);
            if (coding == compact::kTime && !inCall_) recordTime_ = value;
        }
        items::endElement(items_, lengthAt);
        open_.push_back(Open{opAt, false, false});
        inCall_ = true;
    }

    void endElement(std::string_view) override {
        const int depth = depth_--;
        if (depth == 1) return;
        const Open open = open_.back();
        open_.pop_back();
        if (open.nested) {
            items::putOp(items_, items::kNestedClose);
        } else if (open.hasChildren) {
            items::putOp(items_, items::kEndItem);
        } else {
            // No children: a leaf, as the writer codes it.
            const_cast<char *>(items_.data())[open.opAt] = static_cast<char>(items::kLeaf);
        }
        inCall_ = !open_.empty() && !open_.back().nested;
        if (depth == 2 && !open.nested) append();
    }

  private:
    struct Open {
        size_t opAt;  // of the element's op in items_
        bool nested;  // a <Nested> block
        bool hasChildren;
    };

    void startProgram(std::string_view name, const AttributeList &attributes) {
        if (!grammar::isRoot(name)) return parser_->fail(grammar::rootProblem(name));
        std::string_view text;
        int64_t seconds = 0;
        if (attributes.size() != 1 || !attributes.find("timeAdjustment", &text) ||
            codingOf("timeAdjustment", text, &seconds) != compact::kInteger)
            return parser_->fail(
                "the root is not <Program timeAdjustment='whole seconds'> as XML mode writes it: "
                "a compact form could not give this XML back");
        openEncoder(seconds);
    }

    void openEncoder(int64_t seconds) {
        FrameWriterOptions options;
        options.background = false;
        if (frameBytes_ != 0) options.frameBytes = frameBytes_;
        std::string error;
        frames_ = FrameWriter::create(compactPath_, options, &error);
        if (!frames_) throw ReadError(compactPath_, 0, 0, error);
        int appendError = 0;
        encoder_ = CompactEncoder::create(*frames_, seconds, 0, &appendError);
        if (!encoder_)
            throw ReadError(compactPath_, 0, 0,
                            std::string("cannot write: ") + std::strerror(appendError));
        if (recordBytes_)
            recordBytes_->push_back(static_cast<uint32_t>(encoder_->lastRecordBytes()));
    }

    void append() {
        const int error = encoder_->append(items_.view(), recordTime_);
        if (error != 0)
            throw ReadError(parser_->path(), parser_->line(), 0,
                            error == EMSGSIZE ? "a call larger than a compact frame"
                                              : std::string("cannot write ") + compactPath_ + ": " +
                                                    std::strerror(error));
        if (recordBytes_)
            recordBytes_->push_back(static_cast<uint32_t>(encoder_->lastRecordBytes()));
        items_.clear();
    }

    std::string compactPath_;
    uint32_t frameBytes_;                 // 0: the writer's default
    std::vector<uint32_t> *recordBytes_;  // or nullptr
    SaxFileParser *parser_ = nullptr;
    std::unique_ptr<FrameWriter> frames_;
    std::unique_ptr<CompactEncoder> encoder_;
    TextBuffer items_;
    std::vector<Open> open_;
    int depth_ = 0;
    bool inCall_ = false;  // the innermost open element is a call or below one
    int64_t recordTime_ = 0;
};

// The first byte where the XML form of the compact trace at compactPath
// differs from the file at xmlPath; -1 when they are the same.
int64_t firstDifference(const std::string &compactPath, const std::string &xmlPath) {
    TraceOptions options;
    CompactXmlText text(openCompactSource(compactPath, options));
    std::FILE *xml = std::fopen(xmlPath.c_str(), "rb");
    if (!xml) throw ReadError(xmlPath, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    std::vector<char> rendered(1 << 16), original(1 << 16);
    int64_t offset = 0;
    bool last = false;
    int64_t difference = -1;
    while (difference < 0) {
        const size_t count = last ? 0 : text.read(rendered.data(), rendered.size(), &last);
        const size_t got = std::fread(original.data(), 1, count == 0 ? 1 : count, xml);
        if (count == 0) {
            if (got != 0) difference = offset;  // the XML goes on
            break;
        }
        const size_t same = static_cast<size_t>(
            std::mismatch(rendered.begin(),
                          rendered.begin() + static_cast<long>(std::min(count, got)),
                          original.begin())
                .first -
            rendered.begin());
        if (same < count) difference = offset + static_cast<int64_t>(same);
        offset += static_cast<int64_t>(count);
    }
    std::fclose(xml);
    return difference;
}

// The frame size of the default (0): a trace whose records fit in a frame
// is one frame at any size that holds them, so its frame is made no larger
// than its XML's bytes, twice over and a page more (a record is smaller
// than its XML text). A writer makes its frames resident, and zstd's
// tables with them, some 3-5 MB at the default size: a run of many small
// traces paid that for each.
uint32_t frameBytesFor(const std::string &source, uint32_t asked) {
    const uint32_t defaultBytes = FrameWriterOptions{}.frameBytes;
    if (asked != 0) return asked;
    struct stat status {};
    if (::stat(source.c_str(), &status) != 0 || status.st_size < 0) return 0;
    const uint64_t enough = 2 * static_cast<uint64_t>(status.st_size) + 4096;
    return enough < defaultBytes ? static_cast<uint32_t>(enough) : 0;
}

void xmlToCompact(const std::string &source, const std::string &target, uint32_t frameBytes,
                  std::vector<uint32_t> *recordBytes, ConversionTarget kind) {
    if (traceFormOf(source) != TraceForm::Xml)
        throw ReadError(source, 0, 0, "is a compact trace already");
    frameBytes = frameBytesFor(source, frameBytes);
    ConversionOutput output(target, kind);
    {
        XmlToRecords records(output.path(), frameBytes, recordBytes);
        SaxFileParser parser(source, records);
        records.setParser(&parser);
        parser.parseAll();
        records.close();
    }
    const int64_t difference = firstDifference(output.path(), source);
    if (difference >= 0)
        throw ReadError(source, 0, 0,
                        "byte " + std::to_string(difference) +
                            ": the compact form would not give this XML back from here on (the "
                            "trace is not in the layout XML mode writes); nothing written");
    output.keep();
}

void compactToXml(const std::string &source, const std::string &target, ConversionTarget kind) {
    if (traceFormOf(source) != TraceForm::Compact)
        throw ReadError(source, 0, 0, "is an XML trace already");
    // Partial, for a trace whose writer was killed inside a frame: its
    // complete frames are converted. Damage elsewhere is an error.
    FrameFile file(source, FrameFileOptions{true});
    const bool cut = !file.indexed();
    if (!cut && file.damage()) throwDamage(source, *file.damage());
    ConversionOutput output(target, kind);
    std::FILE *out = std::fopen(output.path().c_str(), "wb");
    if (!out) throw ReadError(target, 0, 0, std::string("cannot create: ") + std::strerror(errno));
    bool written = false;
    try {
        CompactToXml renderer(out);
        // Every frame; a trace cut at its last frame is not an error here:
        // its XML is cut after the last call, as XML mode leaves it.
        CompactTraceReader reader(file);
        reader.read(renderer);
        written = renderer.drain();
    } catch (...) {
        std::fclose(out);
        throw;
    }
    if (std::fclose(out) != 0 || !written)
        throw ReadError(target, 0, 0, "cannot write the XML text");
    if (!cut && file.damage()) throwDamage(source, *file.damage());
    if (cut) {
        // Without its closing tag, as the XML writer leaves a killed trace.
        const int fd = ::open(output.path().c_str(), O_RDWR | O_CLOEXEC);
        const off_t size = fd < 0 ? -1 : ::lseek(fd, 0, SEEK_END);
        const bool truncated = size >= static_cast<off_t>(kProgramEnd.size()) &&
                               ::ftruncate(fd, size - static_cast<off_t>(kProgramEnd.size())) == 0;
        if (fd >= 0) ::close(fd);
        if (!truncated) throw ReadError(target, 0, 0, "cannot cut the XML text");
    }
    output.keep();
}

}  // namespace

void convertTrace(const std::string &source, const std::string &target, TraceForm to,
                  uint32_t compactFrameBytes, std::vector<uint32_t> *recordBytes,
                  ConversionTarget kind) {
    if (recordBytes) recordBytes->clear();
    if (to == TraceForm::Compact)
        xmlToCompact(source, target, compactFrameBytes, recordBytes, kind);
    else
        compactToXml(source, target, kind);
}

}  // namespace hdtrace::reader
