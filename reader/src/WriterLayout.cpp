#include "WriterLayout.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::reader::layout {

bool classify(std::string_view line, Line *out) {
    size_t at = 0;
    while (at < line.size() && line[at] == ' ')
        ++at;
    std::string_view text = line.substr(at);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.remove_suffix(1);
    *out = Line{};
    out->text = text;
    if (text.empty()) return true;
    if (text.size() < 3 || text.front() != '<' || text.back() != '>' ||
        text.find('<', 1) != std::string_view::npos)
        return false;
    using Kind = Line::Kind;
    if (text.rfind("<?", 0) == 0 || text.rfind("<Program", 0) == 0 || text == "</Program>")
        out->kind = Kind::Outside;
    else if (text == "<Nested>")
        out->kind = Kind::NestedOpen;
    else if (text == "</Nested>")
        out->kind = Kind::NestedClose;
    else if (text[1] == '/')
        out->kind = Kind::EndTag;
    else {
        out->kind = Kind::StartTag;
        out->leaf = text[text.size() - 2] == '/';
        size_t nameEnd = 1;
        while (nameEnd < text.size() && text[nameEnd] != ' ' && text[nameEnd] != '>' &&
               text[nameEnd] != '/')
            ++nameEnd;
        out->name = text.substr(1, nameEnd - 1);
    }
    return true;
}

std::string_view attributeIn(std::string_view tag, std::string_view name) {
    for (size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
        const size_t equals = at + name.size();
        if (at == 0 || tag[at - 1] != ' ' || equals + 1 >= tag.size() || tag[equals] != '=')
            continue;
        const char mark = tag[equals + 1];
        const size_t end = tag.find(mark, equals + 2);
        if ((mark != '\'' && mark != '"') || end == std::string_view::npos) return {};
        return tag.substr(equals + 2, end - equals - 2);
    }
    return {};
}

namespace {

// The calling thread's scratch directory: made at its first scratch file,
// removed (empty by then) when the thread ends. A child forked from the
// thread makes one of its own: the numbers of the parent's files go on
// there.
class ThreadScratchDirectory {
  public:
    ~ThreadScratchDirectory() {
        if (!path_.empty() && owner_ == ::getpid()) ::rmdir(path_.c_str());
    }
    const std::string &path() {
        // Made again if it went meanwhile (a cleaner of old temporary
        // files, in a process that converts now and then for days).
        if (!path_.empty() && (owner_ != ::getpid() || ::access(path_.c_str(), W_OK | X_OK) != 0))
            path_.clear();
        if (path_.empty()) {
            std::string pattern =
                (std::filesystem::temp_directory_path() / "hdtrace-XXXXXX").string();
            if (!::mkdtemp(pattern.data()))
                throw ReadError(
                    pattern, 0, 0,
                    std::string("cannot create a temporary directory: ") + std::strerror(errno));
            path_ = pattern;
            owner_ = ::getpid();
        }
        return path_;
    }
    uint64_t nextNumber() { return files_++; }

  private:
    std::string path_;
    pid_t owner_ = 0;
    uint64_t files_ = 0;
};

ThreadScratchDirectory &threadScratchDirectory() {
    thread_local ThreadScratchDirectory directory;
    return directory;
}

}  // namespace

ScratchFile::ScratchFile(const std::string &suffix) {
    ThreadScratchDirectory &directory = threadScratchDirectory();
    path_ = directory.path() + "/" + std::to_string(directory.nextNumber()) + suffix;
}

ScratchFile::~ScratchFile() {
    ::unlink(path_.c_str());
}

}  // namespace hdtrace::reader::layout
