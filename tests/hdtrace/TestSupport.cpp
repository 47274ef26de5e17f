#include "TestSupport.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace hdtrace::test {

Timestamp at(int64_t nanoseconds) {
    static const int64_t origin = (Timestamp::now().nanoseconds / 1000000000 - 100) * 1000000000;
    return Timestamp{origin + nanoseconds};
}

ScratchDirectory::ScratchDirectory() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/hdtrace-test-XXXXXX";
    if (!mkdtemp(pattern.data())) ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

std::string readFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TraceOptions traceOptionsIn(const ScratchDirectory &directory, const std::string &program) {
    TraceOptions options;
    options.directory = directory.path();
    options.program = program;
    options.levels = {"host", "0", "0"};
    return options;
}

std::string writeTraceBy(const ScratchDirectory &directory, const std::string &program,
                         TraceOptions::Format format,
                         const std::function<void(TraceWriter &)> &drive) {
    TraceOptions options = traceOptionsIn(directory, program);
    options.format = format;
    options.earliestTime = at(0);
    std::string error;
    auto writer = TraceWriter::create(options, &error);
    EXPECT_TRUE(writer) << error;
    if (!writer) return "";
    drive(*writer);
    EXPECT_EQ(writer->close(), 0);
    return writer->tracePath();
}

const std::string &Element::attribute(const std::string &key) const {
    for (const auto &[attributeName, value] : attributes) {
        if (attributeName == key) return value;
    }
    static const std::string missing = "<missing>";
    ADD_FAILURE() << "<" << name << "> at line " << line << " has no attribute " << key;
    return missing;
}

bool Element::hasAttribute(const std::string &key) const {
    for (const auto &attribute : attributes) {
        if (attribute.first == key) return true;
    }
    return false;
}

std::vector<std::string> Element::attributeNames() const {
    std::vector<std::string> names;
    for (const auto &attribute : attributes)
        names.push_back(attribute.first);
    return names;
}

namespace {

Element convert(xmlNode *node) {
    Element element;
    element.name = reinterpret_cast<const char *>(node->name);
    element.line = static_cast<int>(xmlGetLineNo(node));
    for (xmlAttr *attribute = node->properties; attribute; attribute = attribute->next) {
        xmlChar *value = xmlNodeListGetString(node->doc, attribute->children, 1);
        element.attributes.emplace_back(reinterpret_cast<const char *>(attribute->name),
                                        value ? reinterpret_cast<const char *>(value) : "");
        xmlFree(value);
    }
    for (xmlNode *child = node->children; child; child = child->next) {
        if (child->type == XML_ELEMENT_NODE) element.children.push_back(convert(child));
    }
    return element;
}

}  // namespace

Element parseXmlFile(const std::string &path) {
    xmlDoc *document = xmlReadFile(path.c_str(), nullptr, XML_PARSE_NONET);
    if (!document) {
        ADD_FAILURE() << path << " is not well-formed XML:\n" << readFile(path);
        return Element{};
    }
    Element root = convert(xmlDocGetRootElement(document));
    xmlFreeDoc(document);
    return root;
}

long long parseTime(const std::string &text) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string unsignedText = text.substr(negative ? 1 : 0);
    const size_t point = unsignedText.find('.');
    auto allDigits = [](const std::string &part) {
        return !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    };
    if (point == std::string::npos || !allDigits(unsignedText.substr(0, point)) ||
        unsignedText.size() - point - 1 != 9 || !allDigits(unsignedText.substr(point + 1))) {
        ADD_FAILURE() << "time '" << text << "' is not [-]SEC.FRAC with 9 digits";
        return 0;
    }
    const long long magnitude = std::stoll(unsignedText.substr(0, point)) * 1000000000LL +
                                std::stoll(unsignedText.substr(point + 1));
    return negative ? -magnitude : magnitude;
}

}  // namespace hdtrace::test
