// The XML trace as the writer lays it out (docs/format/trace.md): one
// element a line, indented two spaces a level. What the readers that work
// line by line on it share (call costs, the filtered trace): reading the
// lines, what a line is, an attribute's value in it, and a scratch file.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace hdtrace::reader::layout {

// One line of the layout, its indentation and line break taken off.
struct Line {
    enum class Kind { Blank, Outside, NestedOpen, NestedClose, EndTag, StartTag };
    Kind kind = Kind::Blank;
    std::string_view text;  // the element's tag
    std::string_view name;  // StartTag: the element's name
    bool leaf = false;      // StartTag: ends with "/>"
};

// What line is; false when it is not one element alone (another layout).
// Outside: the prolog, <Program ...> and </Program>.
bool classify(std::string_view line, Line *out);

// The value of attribute name in a start tag, or empty.
std::string_view attributeIn(std::string_view tag, std::string_view name);

// Calls take(line) for every line of file, its line break included (the
// last may lack one). false when the file could not be read to its end.
template <typename Take>
bool forEachLine(std::FILE *file, Take take) {
    char chunk[1 << 16];
    std::string carry;
    for (size_t count; (count = std::fread(chunk, 1, sizeof chunk, file)) > 0;) {
        std::string_view text(chunk, count);
        size_t at = 0;
        for (size_t newline = text.find('\n'); newline != std::string_view::npos;
             newline = text.find('\n', at)) {
            if (carry.empty()) {
                take(text.substr(at, newline + 1 - at));
            } else {
                carry.append(text.substr(at, newline + 1 - at));
                take(std::string_view(carry));
                carry.clear();
            }
            at = newline + 1;
        }
        carry.append(text.substr(at));
    }
    if (!carry.empty()) take(std::string_view(carry));
    return std::ferror(file) == 0;
}

// A file name, with suffix, in a directory of the temporary directory that
// the calling thread made for itself (once, and removed when the thread
// ends; a child forked from it makes its own): no other process or thread
// makes files there, so the name needs no reserving file, and threads that
// convert traces side by side do not wait for each other's changes to one
// directory. The file, if made, is removed when done. Throws ReadError when
// the directory cannot be made.
class ScratchFile {
  public:
    explicit ScratchFile(const std::string &suffix);
    ~ScratchFile();
    ScratchFile(const ScratchFile &) = delete;
    ScratchFile &operator=(const ScratchFile &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace hdtrace::reader::layout
