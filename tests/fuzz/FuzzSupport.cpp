#include "FuzzSupport.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include <libxml/parser.h>

namespace hdtrace::fuzz {
namespace {

bool isDirectory(const std::string &path) {
    struct stat status {};
    return stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

void removeTree(const std::string &path) {
    struct stat status {};
    if (lstat(path.c_str(), &status) != 0) return;
    if (S_ISDIR(status.st_mode)) {
        emptyDirectory(path);
        rmdir(path.c_str());
    } else {
        unlink(path.c_str());
    }
}

struct ScratchDirectory {
    std::string path;
    ScratchDirectory() {
        const char *chosen = std::getenv("HDTRACE_FUZZ_TMPDIR");
        std::string base;
        if (chosen && *chosen) {
            base = chosen;
        } else if (isDirectory("/dev/shm")) {
            base = "/dev/shm";
        } else {
            const char *tmp = std::getenv("TMPDIR");
            base = tmp && *tmp ? tmp : "/tmp";
        }
        std::string pattern = base + "/hdtrace-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data())) fail("cannot create a scratch directory in " + base);
        path = pattern;
    }
    ~ScratchDirectory() { removeTree(path); }
};

}  // namespace

const std::string &scratchDirectory() {
    static ScratchDirectory directory;
    return directory.path;
}

std::string writeScratchFile(const std::string &name, std::string_view data) {
    const std::string path = scratchDirectory() + "/" + name;
    std::FILE *file = std::fopen(path.c_str(), "wb");
    if (!file) fail("cannot create " + path);
    const bool written = std::fwrite(data.data(), 1, data.size(), file) == data.size();
    if (std::fclose(file) != 0 || !written) fail("cannot write " + path);
    return path;
}

std::vector<std::string> listDirectory(const std::string &directory) {
    std::vector<std::string> names;
    if (DIR *handle = opendir(directory.c_str())) {
        while (const dirent *entry = readdir(handle)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..") names.push_back(name);
        }
        closedir(handle);
    }
    std::sort(names.begin(), names.end());
    return names;
}

void emptyDirectory(const std::string &directory) {
    for (const std::string &name : listDirectory(directory))
        removeTree(directory + "/" + name);
}

void fail(const std::string &what) {
    std::fprintf(stderr, "hdtrace fuzz: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

bool isWellFormedXml(std::string_view text, std::string *error) {
    xmlParserCtxtPtr context = xmlNewParserCtxt();
    if (!context) fail("xmlNewParserCtxt failed");
    xmlDocPtr document = xmlCtxtReadMemory(
        context, text.data(), static_cast<int>(text.size()), "written.xml", nullptr,
        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE);
    const bool wellFormed = document && context->wellFormed;
    if (!wellFormed && error) {
        const xmlError *last = xmlCtxtGetLastError(context);
        std::ostringstream message;
        if (last) message << "line " << last->line << ": " << (last->message ? last->message : "?");
        *error = message.str();
    }
    if (document) xmlFreeDoc(document);
    xmlFreeParserCtxt(context);
    return wellFormed;
}

std::string readWholeFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint64_t hashOf(const uint8_t *data, size_t size) {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (size_t i = 0; i < size; ++i) {
        hash ^= data[i];
        hash *= 1099511628211ull;
    }
    return hash;
}

}  // namespace hdtrace::fuzz
