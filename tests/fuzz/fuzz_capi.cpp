// Fuzz target: libhdtrace fed hostile strings through its C API (program
// and level names, state and element names, attribute text, .info text)
// and its typed C++ attributes (escaped values). Checks:
// - the files are <sanitised program>_<sanitised levels>.trc/.info in the
//   directory asked for, and their name parses back into the same parts;
// - a name that is not an XML name is refused with EINVAL;
// - the trace is well-formed XML and reads back with the project's reader,
//   with each escaped value as given (when it is text XML can hold);
// - the .info holds exactly the text written to it.
#include <errno.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <libxml/parser.h>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/hdTrace.h>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "FuzzSupport.hpp"

using hdtrace::fuzz::fail;

namespace {

bool isXmlName(const std::string &name) {
    auto isStart = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    };
    if (name.empty() || !isStart(name[0])) return false;
    return std::all_of(name.begin() + 1, name.end(), [&](char c) {
        return isStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
}

// Whether text, appended to a start tag as hdT_logAttributes does, is a
// well-formed attribute list whose names are new to the element (not in
// *used, not time/end, no namespaces), with the wrapper's number attributes
// within 64 bits (hdTrace.h asks that of the caller). Adds the names to *used.
bool isSafeAttributeText(const std::string &text, std::set<std::string> *used) {
    if (text.find(':') != std::string::npos) return false;
    const std::string element = "<x " + text + "/>";
    xmlDocPtr document =
        xmlReadMemory(element.data(), static_cast<int>(element.size()), "a.xml", nullptr,
                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!document) return false;
    bool safe = true;
    std::vector<std::string> names;
    for (xmlAttrPtr attribute = xmlDocGetRootElement(document)->properties; attribute;
         attribute = attribute->next) {
        const std::string name = reinterpret_cast<const char *>(attribute->name);
        if (name == "time" || name == "end" || used->count(name)) safe = false;
        xmlChar *value = xmlNodeListGetString(document, attribute->children, 1);
        if (value && hdtrace::reader::isNumberAttribute(name) &&
            hdtrace::reader::isOutOfRangeInteger(reinterpret_cast<const char *>(value)))
            safe = false;
        xmlFree(value);
        names.push_back(name);
    }
    xmlFreeDoc(document);
    if (safe) used->insert(names.begin(), names.end());
    return safe;
}

// Length of the UTF-8 sequence at text[i] that XML 1.0 can hold as a
// character (no C0 controls but tab, newline, return; no U+FFFE/U+FFFF), or 0.
size_t xmlCharLength(const std::string &text, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) return (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') ? 1 : 0;
    size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (length == 0 || c > 0xF4 || i + length > text.size()) return 0;
    uint32_t point = c & (0x3F >> (length - 1));
    for (size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        point = (point << 6) | (byte(i + k) & 0x3F);
    }
    const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < minimum[length] || point > 0x10FFFF) return 0;
    if ((point >= 0xD800 && point <= 0xDFFF) || point == 0xFFFE || point == 0xFFFF) return 0;
    return length;
}

bool isXmlText(const std::string &text) {
    for (size_t i = 0; i < text.size();) {
        const size_t length = xmlCharLength(text, i);
        if (length == 0) return false;
        i += length;
    }
    return true;
}

const hdtrace::reader::Event *findAttributeOwner(const std::vector<hdtrace::reader::Event> &events,
                                                 const std::string &name) {
    for (const auto &event : events)
        if (event.attribute(name)) return &event;
    return nullptr;
}

// The C API part: names, raw attributes, elements, .info text.
void fuzzCApi(FuzzedDataProvider &input, const std::string &directory) {
    // As C strings: what the C API sees ends at the first NUL.
    const std::string program = input.ConsumeRandomLengthString(40).c_str();
    std::vector<std::string> levels(input.ConsumeIntegralInRange<size_t>(0, 3));
    for (std::string &level : levels)
        level = input.ConsumeRandomLengthString(20).c_str();
    std::vector<const char *> levelPointers;
    for (const std::string &level : levels)
        levelPointers.push_back(level.c_str());

    hdTrace trace = hdT_createTrace(directory.c_str(), program.c_str(),
                                    static_cast<int>(levels.size()), levelPointers.data());
    const std::string base = hdtrace::traceBaseName(program, levels);
    if (!trace) {
        // Only a name too long for the file system may fail.
        if (base.size() + 5 <= 255) fail("hdT_createTrace failed for '" + base + "'");
        if (!hdtrace::fuzz::listDirectory(directory).empty())
            fail("a failed hdT_createTrace left files behind");
        return;
    }
    const std::vector<std::string> expectedFiles = {base + ".info", base + ".trc"};
    if (hdtrace::fuzz::listDirectory(directory) != expectedFiles)
        fail("hdT_createTrace did not create " + base + ".trc/.info");
    const auto parsed = hdtrace::parseTraceFileName(directory + "/" + base + ".trc", levels.size());
    if (!parsed || parsed->program != hdtrace::sanitizeNamePart(program))
        fail("the trace file name " + base + ".trc does not parse back");
    for (size_t i = 0; i < levels.size(); ++i)
        if (parsed->levels[i] != hdtrace::sanitizeNamePart(levels[i]))
            fail("level " + std::to_string(i) + " of " + base + ".trc does not parse back");

    std::string infoWritten;
    std::vector<std::set<std::string>> attributeNames;  // per open state
    int depth = 0;
    while (input.remaining_bytes() > 0) {
        switch (input.ConsumeIntegralInRange(0, 7)) {
            case 0: {
                const std::string name = input.ConsumeRandomLengthString(20).c_str();
                const int result = hdT_logStateStart(trace, name.c_str());
                if (!isXmlName(name)) {
                    if (result != -1 || errno != EINVAL) fail("state name '" + name + "' accepted");
                } else if (depth < HD_LOG_MAX_DEPTH) {
                    if (result != 0) fail("state '" + name + "' refused");
                    ++depth;
                    attributeNames.emplace_back();
                } else if (result != -1 || errno != EOVERFLOW) {
                    fail("a state beyond HD_LOG_MAX_DEPTH did not give EOVERFLOW");
                }
                break;
            }
            case 1:
                if (hdT_logStateEnd(trace) == 0) {
                    if (depth == 0) fail("a state end without a state was accepted");
                    --depth;
                    attributeNames.pop_back();
                }
                break;
            case 2: {
                const std::string text = input.ConsumeRandomLengthString(40).c_str();
                if (depth > 0 && isSafeAttributeText(text, &attributeNames.back()))
                    hdT_logAttributes(trace, "%s", text.c_str());
                break;
            }
            case 3: {
                const std::string name = input.ConsumeRandomLengthString(20).c_str();
                const std::string text = input.ConsumeRandomLengthString(40).c_str();
                std::set<std::string> own;
                const bool safe = isSafeAttributeText(text, &own);
                const int result =
                    hdT_logElement(trace, name.c_str(), "%s", safe ? text.c_str() : "");
                if (!isXmlName(name) && (result != -1 || errno != EINVAL))
                    fail("element name '" + name + "' accepted");
                break;
            }
            case 4: {
                const std::string text = input.ConsumeRandomLengthString(60);
                if (hdT_writeInfo(trace, "%s", text.c_str()) != 0) fail("hdT_writeInfo failed");
                infoWritten += text.c_str();  // what %s writes: up to a NUL
                break;
            }
            case 5:
                hdT_setNestedDepth(trace, input.ConsumeIntegralInRange(-1, HD_LOG_MAX_DEPTH));
                break;
            case 6:
                hdT_setForceFlush(trace, input.ConsumeBool());
                break;
            case 7:
                if (input.ConsumeBool())
                    hdT_enableTrace(trace);
                else
                    hdT_disableTrace(trace);
                break;
        }
    }
    if (hdT_finalize(trace) != 0) fail("hdT_finalize failed");

    const std::string tracePath = directory + "/" + base + ".trc";
    std::string error;
    if (!hdtrace::fuzz::isWellFormedXml(hdtrace::fuzz::readWholeFile(tracePath), &error))
        fail("the trace written through the C API is not well-formed: " + error);
    try {
        hdtrace::reader::TraceReader reader(tracePath);
        hdtrace::reader::Event event;
        while (reader.next(event)) {
        }
    } catch (const hdtrace::reader::ReadError &readError) {
        fail(std::string("the trace written through the C API does not read back: ") +
             readError.what());
    }
    if (hdtrace::fuzz::readWholeFile(directory + "/" + base + ".info") != infoWritten)
        fail("the .info does not hold the text written to it");
}

// The typed C++ API: escaped attribute values of any bytes.
void fuzzEscapedValues(FuzzedDataProvider &input, const std::string &directory) {
    hdtrace::TraceOptions options;
    options.directory = directory;
    options.program = "typed";
    options.backgroundWrites = false;
    std::string error;
    auto writer = hdtrace::TraceWriter::create(options, &error);
    if (!writer) fail("TraceWriter::create failed: " + error);
    std::vector<std::string> values;
    while (input.remaining_bytes() > 0 && values.size() < 16) {
        values.push_back(input.ConsumeRandomLengthString(80));
        writer->beginState("State");
        writer->attribute("v" + std::to_string(values.size() - 1), values.back());
        if (input.ConsumeBool()) {
            writer->beginElement("Data");
            writer->attribute("w", values.back());
            writer->endElement();
        }
        writer->endState();
    }
    if (writer->close() != 0) fail("TraceWriter::close failed");
    const std::string tracePath = writer->tracePath();
    writer.reset();
    if (!hdtrace::fuzz::isWellFormedXml(hdtrace::fuzz::readWholeFile(tracePath), &error))
        fail("escaped values gave a trace that is not well-formed: " + error);
    // A program's own attributes read back as written, even digits beyond
    // 64 bits: the readers refuse those only in the wrapper's number
    // attributes (docs/user/python.md, "Errors").
    std::vector<hdtrace::reader::Event> events;
    try {
        hdtrace::reader::TraceReader reader(tracePath);
        hdtrace::reader::Event event;
        while (reader.next(event))
            events.push_back(event);
    } catch (const hdtrace::reader::ReadError &readError) {
        fail(std::string("escaped values do not read back: ") + readError.what());
    }
    if (events.size() != values.size()) fail("escaped values: states lost");
    for (size_t i = 0; i < values.size(); ++i) {
        const std::string name = "v" + std::to_string(i);
        const auto *owner = findAttributeOwner(events, name);
        if (!owner) fail("escaped values: attribute " + name + " lost");
        if (isXmlText(values[i]) && *owner->attribute(name) != values[i])
            fail("escaped values: " + name + " reads back as another text");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string directory = hdtrace::fuzz::scratchDirectory() + "/out";
    hdtrace::fuzz::emptyDirectory(directory);
    FuzzedDataProvider input(data, size);
    if (input.ConsumeBool())
        fuzzCApi(input, directory);
    else
        fuzzEscapedValues(input, directory);
    hdtrace::fuzz::emptyDirectory(directory);
    return 0;
}
