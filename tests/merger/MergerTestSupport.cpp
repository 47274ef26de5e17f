#include "MergerTestSupport.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

namespace hdtrace::merger::testing {
namespace {

const xmlChar *xml(const std::string &text) {
    return reinterpret_cast<const xmlChar *>(text.c_str());
}

std::string textOf(const xmlChar *text) {
    return text ? std::string(reinterpret_cast<const char *>(text)) : std::string();
}

void removeTree(const std::string &path) {
    struct stat status {};
    if (lstat(path.c_str(), &status) != 0) return;
    if (S_ISDIR(status.st_mode)) {
        if (DIR *directory = opendir(path.c_str())) {
            while (const dirent *entry = readdir(directory)) {
                const std::string name = entry->d_name;
                if (name != "." && name != "..") removeTree(path + "/" + name);
            }
            closedir(directory);
        }
        rmdir(path.c_str());
    } else {
        unlink(path.c_str());
    }
}

}  // namespace

const char *const kOpenMpiLine =
    "Mpi library='Open MPI v4.1.4, package: Debian OpenMPI' order_c=0 order_fortran=1 "
    "distribute_block=0 distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n";

std::string standardHeader(int rank, int ranks) {
    return std::string(kOpenMpiLine) + "Comm map='0.." + std::to_string(ranks - 1) + "->0.." +
           std::to_string(ranks - 1) + ";' id=0 name='WORLD'\nComm map='" + std::to_string(rank) +
           "->0;' id=1 name='SELF'\n";
}

RunDirectory::RunDirectory() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/merger-test-XXXXXX";
    if (!mkdtemp(pattern.data())) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
}

RunDirectory::~RunDirectory() {
    removeTree(path_);
}

void RunDirectory::write(const std::string &name, const std::string &content) const {
    std::ofstream out(file(name), std::ios::binary);
    out << content;
    ASSERT_TRUE(out.good()) << file(name);
}

void RunDirectory::addTrace(const std::string &program, const std::string &host, int rank,
                            int thread, const std::string &info, bool withTrace) const {
    const std::string base =
        program + "_" + host + "_" + std::to_string(rank) + "_" + std::to_string(thread);
    write(base + ".info", info);
    if (withTrace)
        write(base + ".trc",
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n"
              "</Program>\n");
}

bool RunDirectory::exists(const std::string &name) const {
    return access(file(name).c_str(), F_OK) == 0;
}

std::vector<std::string> RunDirectory::names() const {
    std::vector<std::string> result;
    if (DIR *directory = opendir(path_.c_str())) {
        while (const dirent *entry = readdir(directory)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..") result.push_back(name);
        }
        closedir(directory);
    }
    std::sort(result.begin(), result.end());
    return result;
}

ProjectXml::ProjectXml(const std::string &path) {
    document_ = xmlReadFile(path.c_str(), nullptr, XML_PARSE_NONET);
    EXPECT_NE(document_, nullptr) << path << " is not well-formed XML";
}

ProjectXml::~ProjectXml() {
    if (document_) xmlFreeDoc(static_cast<xmlDocPtr>(document_));
}

namespace {

template <typename Visit>
void select(void *document, const std::string &xpath, Visit visit) {
    if (!document) return;
    xmlXPathContextPtr context = xmlXPathNewContext(static_cast<xmlDocPtr>(document));
    xmlXPathObjectPtr result = xmlXPathEvalExpression(xml(xpath), context);
    EXPECT_NE(result, nullptr) << "bad XPath " << xpath;
    if (result && result->nodesetval) {
        for (int i = 0; i < result->nodesetval->nodeNr; ++i)
            visit(result->nodesetval->nodeTab[i]);
    }
    if (result) xmlXPathFreeObject(result);
    xmlXPathFreeContext(context);
}

}  // namespace

std::vector<Attributes> ProjectXml::elements(const std::string &xpath) const {
    std::vector<Attributes> found;
    select(document_, xpath, [&](xmlNodePtr node) {
        Attributes attributes;
        for (xmlAttrPtr attribute = node->properties; attribute; attribute = attribute->next) {
            xmlChar *value = xmlNodeGetContent(reinterpret_cast<xmlNodePtr>(attribute));
            attributes[textOf(attribute->name)] = textOf(value);
            xmlFree(value);
        }
        found.push_back(std::move(attributes));
    });
    return found;
}

std::vector<std::string> ProjectXml::texts(const std::string &xpath) const {
    std::vector<std::string> found;
    select(document_, xpath, [&](xmlNodePtr node) {
        xmlChar *value = xmlNodeGetContent(node);
        found.push_back(textOf(value));
        xmlFree(value);
    });
    return found;
}

std::vector<std::string> ProjectXml::childTags(const std::string &xpath) const {
    std::vector<std::string> tags;
    select(document_, xpath, [&](xmlNodePtr node) {
        for (xmlNodePtr child = node->children; child; child = child->next)
            if (child->type == XML_ELEMENT_NODE) tags.push_back(textOf(child->name));
    });
    return tags;
}

MergeResult mergeDirectory(const RunDirectory &run, bool force) {
    MergeOptions options;
    options.inputs = {run.path()};
    options.force = force;
    return merge(options);
}

MergeError mergeError(const RunDirectory &run) {
    try {
        mergeDirectory(run);
    } catch (const MergeError &error) {
        return error;
    }
    ADD_FAILURE() << "the merge succeeded";
    return MergeError("", 0, "");
}

}  // namespace hdtrace::merger::testing
