// Fuzz target: the record decoder of compact traces (the codec's
// CompactDecoder), on what one frame's payload decodes to. Checks: decoding
// throws nothing but CompactRecordProblem, at a position inside the input;
// a frame that decodes reports every start with its end, nested properly,
// and every attribute answers (names, values as text, numbers); decoding
// the same bytes twice with one decoder gives the same elements and the
// same rendered XML (nothing of one frame leaks into the next). Gathering
// the times of bytes that gather (GatheredTimes.hpp) is undone byte for
// byte by scattering them, and the decoder reads the gathered frame in
// place to the same elements, or refuses it as it refuses the frame; the
// bytes taken as a gathered frame scatter or are refused inside them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <hdtrace/codec/GatheredTimes.hpp>

#include "CompactRecords.hpp"
#include "CompactToXml.hpp"
#include "FuzzSupport.hpp"

using hdtrace::fuzz::fail;
using namespace hdtrace;
using namespace hdtrace::reader;

namespace {

// Writes everything it is told as text, and checks the nesting.
class Transcript final : public CompactHandler {
  public:
    std::string text;
    std::vector<std::string> open;

    void frameStart(int64_t seconds) override { text += "frame " + std::to_string(seconds) + "\n"; }
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        open.emplace_back(name);
        text += "<" + std::string(name);
        for (int i = 0; i < attributes.size(); ++i) {
            std::string_view value;
            if (!attributes.find(attributes.name(i), &value)) fail("find() misses a listed name");
            text += " " + std::string(attributes.name(i)) + "=" + std::string(attributes.value(i)) +
                    ":" + std::to_string(static_cast<int>(attributes.kind(i))) + ":" +
                    std::to_string(attributes.integer(i));
        }
        for (int i = 0; i < attributes.slotCount(); ++i)
            text += " [" + std::string(attributes.slot(i).text) + "]";
        text += "\n";
    }
    void endElement(std::string_view name) override {
        if (open.empty() || open.back() != name) fail("an end that does not match its start");
        open.pop_back();
        text += "</" + std::string(name) + ">\n";
    }
};

// Renders the frame as XML inside a Program of its own.
class Rendered final : public CompactHandler {
  public:
    std::string text;
    CompactToXml xml{&text};
    CompactAttributes none;
    void frameStart(int64_t) override { xml.startElement("Program", none); }
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        xml.startElement(name, attributes);
    }
    void endElement(std::string_view name) override { xml.endElement(name); }
};

// The decoded elements of data, or why they are refused.
std::string decodeOnce(CompactFrameDecoder &decoder, const uint8_t *data, size_t size,
                       bool *decoded) {
    Transcript transcript;
    try {
        decoder.decode(data, size, transcript);
    } catch (const CompactRecordProblem &problem) {
        if (problem.position > size) fail("a problem placed past the end of the records");
        if (problem.problem.empty()) fail("a problem without a description");
        *decoded = false;
        return "refused at " + std::to_string(problem.position) + ": " + problem.problem;
    }
    if (!transcript.open.empty()) fail("a frame that decoded left elements open");
    *decoded = true;
    return transcript.text;
}

std::string render(CompactFrameDecoder &decoder, const uint8_t *data, size_t size) {
    Rendered rendered;
    decoder.decode(data, size, rendered);
    rendered.xml.endElement("Program");
    rendered.xml.drain();
    return rendered.text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    CompactFrameDecoder decoder;
    bool first = false, second = false;
    const std::string once = decodeOnce(decoder, data, size, &first);
    const std::string twice = decodeOnce(decoder, data, size, &second);
    if (once != twice || first != second) fail("the same frame decoded twice differs");
    if (first && render(decoder, data, size) != render(decoder, data, size))
        fail("the same frame rendered twice differs");

    compact::TimeGathering gathering;
    std::vector<unsigned char> gathered, scattered;
    if (gathering.gather(data, size, gathered)) {
        if (gathered.size() > compact::maxGatheredBytes(size))
            fail("a gathered frame larger than its bound");
        try {
            gathering.scatter(gathered.data(), gathered.size(), scattered, size);
        } catch (const compact::GatheredTimesProblem &problem) {
            fail("gathered times that do not scatter: " + problem.problem);
        }
        if (scattered != std::vector<unsigned char>(data, data + size))
            fail("gathered times that scatter to other bytes");
        Transcript inPlace;
        bool decodedInPlace = true;
        try {
            decoder.decodeGatheredFrame(gathered.data(), gathered.size(), inPlace);
        } catch (const CompactRecordProblem &problem) {
            if (problem.position > gathered.size())
                fail("a problem placed past the gathered frame");
            decodedInPlace = false;
        }
        if (decodedInPlace != first || (first && inPlace.text != once))
            fail("a gathered frame decodes otherwise than its records");
    }
    // The input taken as a gathered frame: scattered, and decoded in place.
    try {
        gathering.scatter(data, size, scattered, size * 2 + 16);
    } catch (const compact::GatheredTimesProblem &problem) {
        if (problem.position > size) fail("a scatter problem placed past the gathered frame");
        if (problem.problem.empty()) fail("a scatter problem without a description");
    }
    Transcript inPlace;
    try {
        decoder.decodeGatheredFrame(data, size, inPlace);
        if (!inPlace.open.empty()) fail("a gathered frame that decoded left elements open");
    } catch (const CompactRecordProblem &problem) {
        if (problem.position > size) fail("a problem placed past the gathered frame");
        if (problem.problem.empty()) fail("a problem without a description");
    }
    return 0;
}
