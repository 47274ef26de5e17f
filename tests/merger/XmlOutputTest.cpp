// XmlOutput against libxml2's text writer, which wrote the project before
// and whose layout the PIOsim tools have always read: the same bytes for
// elements nested deeper than XmlOutput holds open elements inline, with
// attributes, texts and empty elements at every depth.
#include <string>

#include <gtest/gtest.h>
#include <libxml/xmlwriter.h>

#include "XmlOutput.hpp"

namespace hdtrace::merger::testing {
namespace {

constexpr int kDepth = 20;

const char *const kTags[kDepth] = {"d0",  "d1",  "d2",  "d3",  "d4",  "d5",  "d6",
                                   "d7",  "d8",  "d9",  "d10", "d11", "d12", "d13",
                                   "d14", "d15", "d16", "d17", "d18", "d19"};

const xmlChar *xml(const char *text) {
    return reinterpret_cast<const xmlChar *>(text);
}

std::string withLibxml2() {
    xmlBufferPtr buffer = xmlBufferCreate();
    xmlTextWriterPtr writer = xmlNewTextWriterMemory(buffer, 0);
    xmlTextWriterSetIndent(writer, 1);
    xmlTextWriterSetIndentString(writer, xml(" "));
    const auto text = [](const std::string &value) { return xml(value.c_str()); };
    for (int depth = 0; depth < kDepth; ++depth) {
        xmlTextWriterStartElement(writer, xml(kTags[depth]));
        xmlTextWriterWriteAttribute(writer, xml("level"), text(std::to_string(depth)));
        xmlTextWriterWriteAttribute(writer, xml("note"), xml("a < b & \"c\""));
        // An empty element and one with text before the next level.
        xmlTextWriterStartElement(writer, xml("empty"));
        xmlTextWriterEndElement(writer);
        xmlTextWriterStartElement(writer, xml("text"));
        xmlTextWriterWriteString(writer, text("at depth " + std::to_string(depth) + " > 0"));
        xmlTextWriterEndElement(writer);
    }
    for (int depth = kDepth - 1; depth >= 0; --depth) {
        if (depth % 3 == 0) {
            xmlTextWriterStartElement(writer, xml("after"));
            xmlTextWriterEndElement(writer);
        }
        xmlTextWriterEndElement(writer);
    }
    xmlFreeTextWriter(writer);
    std::string out(reinterpret_cast<const char *>(xmlBufferContent(buffer)),
                    static_cast<size_t>(xmlBufferLength(buffer)));
    xmlBufferFree(buffer);
    return out;
}

std::string withXmlOutput() {
    std::string out;
    XmlOutput xml(out);
    for (int depth = 0; depth < kDepth; ++depth) {
        xml.startElement(kTags[depth]);
        xml.attribute("level", int64_t{depth});
        xml.attribute("note", std::string("a < b & \"c\""));
        xml.startElement("empty");
        xml.endElement();
        xml.startElement("text");
        xml.text("at depth " + std::to_string(depth) + " > 0");
        xml.endElement();
    }
    for (int depth = kDepth - 1; depth >= 0; --depth) {
        if (depth % 3 == 0) {
            xml.startElement("after");
            xml.endElement();
        }
        xml.endElement();
    }
    EXPECT_FALSE(xml.anyOpen());
    return out;
}

TEST(XmlOutput, DeepNestingIsWrittenAsLibxml2WritesIt) {
    const std::string expected = withLibxml2();
    ASSERT_NE(expected.find("<d19 level=\"19\""), std::string::npos) << expected;
    EXPECT_EQ(withXmlOutput(), expected);
}

}  // namespace
}  // namespace hdtrace::merger::testing
