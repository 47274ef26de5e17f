#include "FilePaths.hpp"

#include <unistd.h>

#include <cstdlib>

namespace hdtracempi {
namespace {

// ROMIO's file-system prefixes (ad_*): MPI_File_open("ufs:out") opens "out".
constexpr std::string_view kRomioPrefixes[] = {
    "ufs:", "nfs:",    "lustre:", "gpfs:", "pvfs2:",  "panfs:",
    "xfs:", "testfs:", "daos:",   "ime:",  "quobyte:"};

std::string workingDirectory() {
    std::string directory(256, '\0');
    for (;;) {
        if (::getcwd(directory.data(), directory.size())) {
            directory.resize(std::char_traits<char>::length(directory.data()));
            return directory;
        }
        if (directory.size() > (1u << 20)) return "/";
        directory.resize(directory.size() * 2);
    }
}

}  // namespace

std::string normalisedPath(std::string_view name) {
    for (std::string_view prefix : kRomioPrefixes)
        if (name.substr(0, prefix.size()) == prefix) {
            name.remove_prefix(prefix.size());
            break;
        }
    std::string joined;
    if (name.empty() || name.front() != '/') {
        joined = workingDirectory();
        joined += '/';
    }
    joined += name;
    // Components one by one: "" and "." vanish, ".." removes the one before.
    std::string out;
    size_t start = 0;
    while (start <= joined.size()) {
        size_t end = joined.find('/', start);
        if (end == std::string::npos) end = joined.size();
        const std::string_view part(joined.data() + start, end - start);
        if (part == "..") {
            const size_t slash = out.rfind('/');
            out.resize(slash == std::string::npos ? 0 : slash);
        } else if (!part.empty() && part != ".") {
            out += '/';
            out += part;
        }
        start = end + 1;
    }
    return out.empty() ? "/" : out;
}

ExcludedPaths::ExcludedPaths() : directories_{"/proc", "/sys", "/dev"} {
    // Open MPI's session directory (ompi.HOST.UID) and MPICH's shared-memory
    // files, under /tmp or TMPDIR.
    std::vector<std::string> temporary{"/tmp"};
    if (const char *tmpdir = std::getenv("TMPDIR"); tmpdir && *tmpdir == '/')
        temporary.push_back(normalisedPath(tmpdir));
    for (const std::string &directory : temporary) {
        namePrefixes_.push_back(directory + "/ompi.");
        namePrefixes_.push_back(directory + "/mpich_shar_tmp");
    }
}

bool ExcludedPaths::excludes(std::string_view path) const {
    for (const std::string &directory : directories_) {
        if (path.substr(0, directory.size()) != directory) continue;
        if (path.size() == directory.size() || path[directory.size()] == '/' || directory == "/")
            return true;
    }
    for (const std::string &prefix : namePrefixes_)
        if (path.substr(0, prefix.size()) == prefix) return true;
    return false;
}

}  // namespace hdtracempi
