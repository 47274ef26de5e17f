// A libxml2 SAX2 push parser over one file, read in fixed-size chunks so
// that memory stays constant whatever the file's length.
//
// Safety: no DTD is accepted (a document type declaration is an error), no
// entity is declared, loaded or substituted, and the network is never used
// (XML_PARSE_NONET; neither XML_PARSE_NOENT nor XML_PARSE_DTDLOAD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/reader/ReadError.hpp>

struct _xmlParserCtxt;

namespace hdtrace::reader {

// The attributes of one start tag, valid during the startElement callback.
class AttributeList {
  public:
    AttributeList(const unsigned char **raw, int count, std::deque<std::string> &scratch)
        : raw_(raw), count_(count), scratch_(scratch) {}
    int size() const { return count_; }
    std::string_view name(int index) const;
    // The value with every character and entity reference decoded. Valid,
    // like the values of the other attributes, for the whole callback.
    std::string_view value(int index) const;
    // The value of the attribute called name, or nullptr-data view when absent.
    bool find(std::string_view attributeName, std::string_view *valueOut) const;

  private:
    const unsigned char **raw_;  // libxml2's (localname, prefix, URI, value, end) quintuples
    int count_;
    // Decoded values. A deque: adding one moves none of the others, whose
    // views a handler may still hold (a vector's growth freed them).
    std::deque<std::string> &scratch_;
};

class SaxHandler {
  public:
    virtual ~SaxHandler() = default;
    virtual void startElement(std::string_view name, const AttributeList &attributes) = 0;
    virtual void endElement(std::string_view name) = 0;
    virtual void characters(std::string_view /*text*/) {}
};

// A part of the document a SaxFileParser reads from pieces: bytes of the
// file, or text of its own (when text is not empty).
struct InputPiece {
    uint64_t offset = 0;
    uint64_t length = 0;
    std::string text;
};

// Text of the document produced on demand (a compact trace rendered as its
// XML form, CompactXmlText.hpp): fills out with up to room bytes and
// returns how many; sets *last with the final bytes. May throw ReadError.
using TextSource = std::function<size_t(char *out, size_t room, bool *last)>;

// Thrown instead of the error that libxml2 reports only at the end of
// input that ends in text of its own (see SaxFileParser::afterParse).
class InputEndError : public ReadError {
  public:
    using ReadError::ReadError;
};

class SaxFileParser {
  public:
    // Deeper nesting is refused, so that nothing built from the elements
    // (events, datatypes, their Python copies) recurses deeper than this.
    // The same as libxml2's own default for its pull parser.
    static constexpr int kMaxElementDepth = 256;

    // Opens path; throws ReadError when it cannot be opened or is not a
    // regular file (a FIFO, directory or device).
    SaxFileParser(std::string path, SaxHandler &handler, size_t chunkBytes = 256 * 1024);
    // Parses the pieces one after the other as the document (a slice of a
    // trace behind its prolog, TraceSlices.cpp). fileLine turns a line of
    // that document into the file's line; it is called on errors only, for
    // the positions and for "line N" in libxml2's messages.
    SaxFileParser(std::string path, SaxHandler &handler, std::vector<InputPiece> pieces,
                  std::function<int(int)> fileLine, size_t chunkBytes = 256 * 1024);
    // Parses the text source gives as the document; path only names it in
    // messages (no file is opened).
    SaxFileParser(std::string path, SaxHandler &handler, TextSource source,
                  size_t chunkBytes = 256 * 1024);
    ~SaxFileParser();
    SaxFileParser(const SaxFileParser &) = delete;
    SaxFileParser &operator=(const SaxFileParser &) = delete;

    // Parses the next chunk; false once the document is complete or stopped.
    // Throws ReadError (file, line, column, problem) on malformed input,
    // a truncated file, a DTD, or an error reported through fail().
    bool parseNextChunk();
    void parseAll() {
        while (parseNextChunk()) {
        }
    }

    // For handlers: end parsing early without error.
    void stop();
    // For handlers: end parsing with an error at the current position.
    void fail(std::string problem);
    int line() const;
    int column() const;
    const std::string &path() const { return path_; }

  private:
    static void onStartElement(void *context, const unsigned char *localName,
                               const unsigned char *prefix, const unsigned char *uri,
                               int namespaceCount, const unsigned char **namespaces,
                               int attributeCount, int defaultedCount,
                               const unsigned char **attributes);
    static void onEndElement(void *context, const unsigned char *localName,
                             const unsigned char *prefix, const unsigned char *uri);
    static void onCharacters(void *context, const unsigned char *text, int length);
    static void onInternalSubset(void *context, const unsigned char *name,
                                 const unsigned char *externalId, const unsigned char *systemId);
    // truncated: the error came only with the end of the input.
    void throwParseError(bool truncated);
    void createContext();
    // Fills chunk_ from the pieces; *last when they are all read.
    size_t readPieces(bool *last);
    int fileLine(int line) const { return fileLine_ ? fileLine_(line) : line; }
    std::string withFileLines(std::string problem) const;
    // After xmlParseChunk: throws on a failure, false when stopped.
    bool afterParse(int status, bool atEnd);

    std::string path_;
    SaxHandler &handler_;
    std::FILE *file_ = nullptr;
    _xmlParserCtxt *context_ = nullptr;
    std::vector<char> chunk_;
    std::deque<std::string> scratch_;
    std::string failure_;
    int failureLine_ = 0;
    int failureColumn_ = 0;
    size_t bytesRead_ = 0;
    int openElements_ = 0;
    bool failed_ = false;
    bool stopped_ = false;
    bool finished_ = false;
    std::vector<InputPiece> pieces_;  // empty: the whole file
    size_t piece_ = 0;
    uint64_t pieceDone_ = 0;  // bytes of pieces_[piece_] read
    std::function<int(int)> fileLine_;
    TextSource source_;  // set: the document comes from it, not from file_
};

}  // namespace hdtrace::reader
