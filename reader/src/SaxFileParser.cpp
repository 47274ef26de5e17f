#include "SaxFileParser.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::reader {
namespace {

std::string_view view(const unsigned char *begin, const unsigned char *end) {
    return {reinterpret_cast<const char *>(begin), static_cast<size_t>(end - begin)};
}

std::string_view view(const unsigned char *text) {
    return text ? std::string_view(reinterpret_cast<const char *>(text)) : std::string_view();
}

// Without entity substitution libxml2 hands '&' in attribute values on as
// the character reference "&#38;" (every other reference is decoded).
constexpr std::string_view kEscapedAmpersand = "&#38;";

// Opens path for reading only if it is a regular file: O_NONBLOCK keeps a
// FIFO from blocking the open, and fstat then refuses it, a directory or a
// device before anything is read.
std::FILE *openRegularFile(const std::string &path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw ReadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    struct stat info {};
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        throw ReadError(
            path, 0, 0,
            S_ISDIR(info.st_mode) ? "not a regular file (a directory)" : "not a regular file");
    }
    std::FILE *file = fdopen(fd, "rb");
    if (!file) {
        int error = errno;
        ::close(fd);
        throw ReadError(path, 0, 0, std::string("cannot open: ") + std::strerror(error));
    }
    return file;
}

// libxml2 reports some errors (input encoding conversion, I/O) through its
// generic handler, which prints to stderr, besides the parser error that
// becomes the ReadError: it is silenced while a chunk is parsed.
class QuietGenericErrors {
  public:
    QuietGenericErrors() : function_(xmlGenericError), context_(xmlGenericErrorContext) {
        xmlSetGenericErrorFunc(nullptr, &ignore);
    }
    ~QuietGenericErrors() { xmlSetGenericErrorFunc(context_, function_); }
    QuietGenericErrors(const QuietGenericErrors &) = delete;
    QuietGenericErrors &operator=(const QuietGenericErrors &) = delete;

  private:
    static void ignore(void *, const char *, ...) {}
    xmlGenericErrorFunc function_;
    void *context_;
};

}  // namespace

std::string_view AttributeList::name(int index) const {
    return view(raw_[index * 5]);
}

std::string_view AttributeList::value(int index) const {
    std::string_view text = view(raw_[index * 5 + 3], raw_[index * 5 + 4]);
    if (text.find(kEscapedAmpersand) == std::string_view::npos) return text;
    std::string decoded;
    size_t pos = 0;
    for (size_t hit; (hit = text.find(kEscapedAmpersand, pos)) != std::string_view::npos;
         pos = hit + kEscapedAmpersand.size()) {
        decoded.append(text.substr(pos, hit - pos));
        decoded.push_back('&');
    }
    decoded.append(text.substr(pos));
    scratch_.push_back(std::move(decoded));
    return scratch_.back();
}

bool AttributeList::find(std::string_view attributeName, std::string_view *valueOut) const {
    for (int index = 0; index < count_; ++index) {
        if (name(index) == attributeName) {
            *valueOut = value(index);
            return true;
        }
    }
    return false;
}

SaxFileParser::SaxFileParser(std::string path, SaxHandler &handler, size_t chunkBytes)
    : path_(std::move(path)), handler_(handler) {
    file_ = openRegularFile(path_);
    // No larger than the file and the byte that finds its end: a process
    // that holds many small traces open at once (a merge of every rank's
    // calls in start order) held a whole chunk for each.
    struct stat info {};
    if (fstat(fileno(file_), &info) == 0 && info.st_size >= 0)
        chunkBytes = std::min(chunkBytes, static_cast<size_t>(info.st_size) + 1);
    chunk_.resize(std::max<size_t>(chunkBytes, 1));
    createContext();
}

SaxFileParser::SaxFileParser(std::string path, SaxHandler &handler, std::vector<InputPiece> pieces,
                             std::function<int(int)> fileLine, size_t chunkBytes)
    : path_(std::move(path)),
      handler_(handler),
      chunk_(chunkBytes),
      pieces_(std::move(pieces)),
      fileLine_(std::move(fileLine)) {
    file_ = openRegularFile(path_);
    createContext();
}

SaxFileParser::SaxFileParser(std::string path, SaxHandler &handler, TextSource source,
                             size_t chunkBytes)
    : path_(std::move(path)), handler_(handler), chunk_(chunkBytes), source_(std::move(source)) {
    createContext();
}

void SaxFileParser::createContext() {
    xmlSAXHandler sax;
    std::memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = &SaxFileParser::onStartElement;
    sax.endElementNs = &SaxFileParser::onEndElement;
    sax.characters = &SaxFileParser::onCharacters;
    sax.internalSubset = &SaxFileParser::onInternalSubset;
    context_ = xmlCreatePushParserCtxt(&sax, this, nullptr, 0, path_.c_str());
    if (!context_) {
        if (file_) std::fclose(file_);
        throw ReadError(path_, 0, 0, "cannot create an XML parser");
    }
    xmlCtxtUseOptions(context_, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

SaxFileParser::~SaxFileParser() {
    if (context_) xmlFreeParserCtxt(context_);
    if (file_) std::fclose(file_);
}

size_t SaxFileParser::readPieces(bool *last) {
    size_t length = 0;
    while (length < chunk_.size() && piece_ < pieces_.size()) {
        const InputPiece &piece = pieces_[piece_];
        if (!piece.text.empty()) {
            const size_t count = std::min(piece.text.size() - pieceDone_, chunk_.size() - length);
            std::memcpy(chunk_.data() + length, piece.text.data() + pieceDone_, count);
            length += count, pieceDone_ += count;
            if (pieceDone_ == piece.text.size()) ++piece_, pieceDone_ = 0;
            continue;
        }
        const size_t wanted = static_cast<size_t>(
            std::min<uint64_t>(piece.length - pieceDone_, chunk_.size() - length));
        ssize_t got = wanted == 0 ? 0
                                  : ::pread(fileno(file_), chunk_.data() + length, wanted,
                                            static_cast<off_t>(piece.offset + pieceDone_));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            finished_ = true;
            throw ReadError(path_, 0, 0, std::string("read failed: ") + std::strerror(errno));
        }
        length += static_cast<size_t>(got), pieceDone_ += static_cast<uint64_t>(got);
        if (got == 0 || pieceDone_ == piece.length) ++piece_, pieceDone_ = 0;
    }
    *last = piece_ == pieces_.size();
    return length;
}

bool SaxFileParser::parseNextChunk() {
    if (finished_) return false;
    bool last = false;
    size_t length = 0;
    if (source_) {
        try {
            length = source_(chunk_.data(), chunk_.size(), &last);
        } catch (...) {
            finished_ = true;
            throw;
        }
    } else if (!pieces_.empty()) {
        length = readPieces(&last);
    } else {
        length = std::fread(chunk_.data(), 1, chunk_.size(), file_);
        if (length < chunk_.size() && std::ferror(file_)) {
            finished_ = true;
            throw ReadError(path_, 0, 0, std::string("read failed: ") + std::strerror(errno));
        }
        last = length < chunk_.size() && std::feof(file_);
    }
    bytesRead_ += length;
    if (last && bytesRead_ == 0) {
        // libxml2 would call it "extra content"; say what it is.
        finished_ = true;
        throw ReadError(path_, 0, 0, "the file is empty");
    }
    scratch_.clear();
    // The data first, then (at the end of the file) the end of the input on
    // its own: an error that only the end reveals means the document was
    // cut short, wherever the cut is (between elements, inside a tag, in
    // the prolog); an error in the data itself is reported as it is.
    const QuietGenericErrors quiet;
    int status = xmlParseChunk(context_, chunk_.data(), static_cast<int>(length), 0);
    if (!afterParse(status, false)) return false;
    if (last) {
        status = xmlParseChunk(context_, nullptr, 0, 1);
        if (!afterParse(status, true)) return false;
        finished_ = true;
    }
    return !finished_;
}

bool SaxFileParser::afterParse(int status, bool atEnd) {
    if (failed_) {
        finished_ = true;
        throw ReadError(path_, fileLine(failureLine_), failureColumn_, failure_);
    }
    if (stopped_) {
        finished_ = true;
        return false;
    }
    if (status != 0 || !context_->wellFormed) {
        // Input that ends in text of its own (a slice's closing tag) is not
        // where the file ends: an error libxml2 reports only at its end
        // (it waits for more data, e.g. for the ';' of a reference) may
        // come elsewhere, and be worded otherwise, in the whole file.
        if (atEnd && !pieces_.empty() && !pieces_.back().text.empty()) {
            finished_ = true;
            throw InputEndError(path_, 0, 0, "an error at the end of a slice");
        }
        throwParseError(atEnd);
    }
    return true;
}

void SaxFileParser::throwParseError(bool truncated) {
    finished_ = true;
    const xmlError *error = xmlCtxtGetLastError(context_);
    std::string problem = error && error->message ? error->message : "malformed XML";
    while (!problem.empty() && (problem.back() == '\n' || problem.back() == ' '))
        problem.pop_back();
    int line = error ? error->line : 0;
    int column = error ? error->int2 : 0;
    problem = withFileLines(std::move(problem));
    if (truncated) {
        // libxml2 calls a cut between two elements "extra content"; say
        // what happened. A cut right after a newline is placed at the
        // start of the next, empty line: name the last line with content.
        if (column <= 1 && line > 1) {
            --line;
            column = 0;
        }
        std::string what = "truncated after line " + std::to_string(fileLine(line));
        if (problem.find("Extra content") == std::string::npos) what += " (" + problem + ")";
        problem = what;
    }
    throw ReadError(path_, fileLine(line), column, problem);
}

// libxml2 names the line of an element's start tag in some messages
// ("... in tag Send line 12"): those lines are the document's too.
std::string SaxFileParser::withFileLines(std::string problem) const {
    if (!fileLine_) return problem;
    constexpr std::string_view kLine = " line ";
    std::string out;
    size_t at = 0;
    for (size_t hit; (hit = problem.find(kLine, at)) != std::string::npos;) {
        size_t digits = hit + kLine.size();
        while (digits < problem.size() && problem[digits] >= '0' && problem[digits] <= '9')
            ++digits;
        out.append(problem, at, hit + kLine.size() - at);
        if (digits > hit + kLine.size() && digits - hit - kLine.size() < 10)
            out += std::to_string(fileLine(std::stoi(problem.substr(hit + kLine.size()))));
        else
            out.append(problem, hit + kLine.size(), digits - hit - kLine.size());
        at = digits;
    }
    out.append(problem, at, std::string::npos);
    return out;
}

void SaxFileParser::stop() {
    stopped_ = true;
    xmlStopParser(context_);
}

void SaxFileParser::fail(std::string problem) {
    if (failed_) return;
    failed_ = true;
    failure_ = std::move(problem);
    failureLine_ = line();
    failureColumn_ = column();
    xmlStopParser(context_);
}

int SaxFileParser::line() const {
    return xmlSAX2GetLineNumber(context_);
}
int SaxFileParser::column() const {
    return xmlSAX2GetColumnNumber(context_);
}

void SaxFileParser::onStartElement(void *context, const unsigned char *localName,
                                   const unsigned char *, const unsigned char *, int,
                                   const unsigned char **, int attributeCount, int,
                                   const unsigned char **attributes) {
    auto *self = static_cast<SaxFileParser *>(context);
    if (self->failed_ || self->stopped_) return;
    if (++self->openElements_ > kMaxElementDepth) {
        self->fail("elements nested more than " + std::to_string(kMaxElementDepth) +
                   " deep (the readers' limit)");
        return;
    }
    AttributeList list(attributes, attributeCount, self->scratch_);
    self->handler_.startElement(view(localName), list);
}

void SaxFileParser::onEndElement(void *context, const unsigned char *localName,
                                 const unsigned char *, const unsigned char *) {
    auto *self = static_cast<SaxFileParser *>(context);
    if (self->failed_ || self->stopped_) return;
    --self->openElements_;
    self->handler_.endElement(view(localName));
}

void SaxFileParser::onCharacters(void *context, const unsigned char *text, int length) {
    auto *self = static_cast<SaxFileParser *>(context);
    if (self->failed_ || self->stopped_) return;
    self->handler_.characters(view(text, text + length));
}

void SaxFileParser::onInternalSubset(void *context, const unsigned char *, const unsigned char *,
                                     const unsigned char *) {
    auto *self = static_cast<SaxFileParser *>(context);
    self->fail("a document type declaration (DTD) is not allowed in HDTrace files");
}

}  // namespace hdtrace::reader
