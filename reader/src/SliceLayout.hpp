// Where one slice of a trace lies in its file (TraceSlices.hpp explains the
// writer's layout that makes slices possible), and the document libxml2
// reads for it: the trace's prolog, the slice's bytes, and a </Program> of
// its own unless the slice ends the file. Both slice readers use it: the
// columns (TraceSlices.cpp) and the event iterator (TraceReader.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/reader/ReadError.hpp>

#include "SaxFileParser.hpp"

namespace hdtrace::reader {

class SliceLayout {
  public:
    // The slice of the trace at path whose top-level elements start in
    // [begin, end) (end past the file's size: to its end).
    SliceLayout(const std::string &path, uint64_t begin, uint64_t end);
    ~SliceLayout();
    SliceLayout(const SliceLayout &) = delete;
    SliceLayout &operator=(const SliceLayout &) = delete;

    // False when the file cannot be read or does not open with the writer's
    // prolog: such a trace cannot be sliced, so the slice that holds its
    // first byte reads it whole (readsWhole()) and every other slice is
    // empty.
    bool inWritersLayout() const { return prolog_.has_value(); }
    // False when the file cannot be opened as a regular file (a whole read
    // says why).
    bool readable() const;
    // Outside the writer's layout: whether this slice reads the file whole.
    // The slice that holds byte 0 does (an empty range at 0 holds nothing,
    // so of the slices of any split exactly one reads it; for an empty file,
    // the slice at 0); and so does every slice of a file that cannot be
    // read, so that each gives the whole read's error.
    bool readsWhole() const;
    uint64_t fileSize() const;

    // The bytes whose calls the slice reads (in the writer's layout).
    uint64_t from() const { return from_; }
    uint64_t to() const { return to_; }
    bool empty() const { return from_ >= to_; }
    bool endsTheFile() const;
    // The root's timeAdjustment, as the prolog spells it.
    const std::string &timeAdjustment() const { return prolog_->timeAdjustment; }

    // The document libxml2 parses for the slice.
    std::vector<InputPiece> documentPieces() const;
    // The file's line for a line of that document (called on errors only:
    // it counts the newlines before the slice). Notes whether the line lies
    // in the closing tag added after the slice.
    int fileLine(int documentLine);
    bool errorInAddedClosingTag() const { return inAddedClosingTag_; }
    // A line that starts with a start tag inside a call: the slice's end is
    // not between top-level elements. The caller first reads the whole
    // trace strictly, so that real damage is reported as a whole read does.
    ReadError notInLayout() const;

  private:
    class File;
    struct Prolog {
        uint64_t length = 0;
        std::string timeAdjustment;
    };
    static std::optional<Prolog> writersProlog(const File &file);

    std::string path_;
    std::unique_ptr<File> file_;
    std::optional<Prolog> prolog_;
    uint64_t begin_ = 0, end_ = 0;  // as asked
    uint64_t from_ = 0, to_ = 0;
    std::optional<int> linesBefore_, sliceLines_;
    bool inAddedClosingTag_ = false;
};

}  // namespace hdtrace::reader
