// Fuzz target: the compact codec both ways, without a file. The input is a
// program of states: calls of the dialect with the calls they made beneath
// them (the encoder's typed path), states of shapes the frame defines, with
// children or with a <Nested> block (its general path), events, and states
// larger than a frame, with any values and times. They are coded into
// frames held in memory of a size the input picks, then decoded. Checks:
// the encoder takes every state that fits a frame and refuses the others
// with EMSGSIZE; every frame decodes on its own; the states it took come
// back in order with their names, attributes, values and times, and a
// refused one leaves nothing behind and disturbs none after it.
#include <errno.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

#include "FuzzSupport.hpp"
#include "MemoryFrames.hpp"

using hdtrace::fuzz::fail;
using namespace hdtrace;
namespace items = hdtrace::compact_items;

namespace {

// The input read front to back; zeros once it is used up.
class Input {
  public:
    Input(const uint8_t *data, size_t size) : at_(data), end_(data + size) {}
    bool done() const { return at_ == end_; }
    uint8_t byte() { return at_ == end_ ? 0 : *at_++; }
    int64_t number() {
        // Mostly small numbers, as traces hold; now and then any 64 bits.
        const uint8_t kind = byte();
        if (kind < 200) return static_cast<int64_t>(byte()) - 16;
        uint64_t value = 0;
        for (int i = 0; i < 8; ++i)
            value = value << 8 | byte();
        return static_cast<int64_t>(value);
    }
    int64_t gap() { return kind() ? byte() : number(); }
    std::string text(size_t longest) {
        const size_t length = byte() % (longest + 1);
        std::string out;
        for (size_t i = 0; i < length && !done(); ++i)
            out += static_cast<char>(byte());
        return out;
    }

  private:
    bool kind() { return byte() < 240; }
    const uint8_t *at_;
    const uint8_t *end_;
};

class Program {
  public:
    Program(CompactEncoder &encoder, uint32_t frameBytes)
        : encoder_(encoder), frameBytes_(frameBytes) {}

    void step(Input &in) {
        switch (in.byte() % 6) {
            case 0:
                return typedCall(in, "File_write_at", "pwrite");
            case 1:
                return typedCall(in, "File_read_at", "pread");
            case 2:
                return generalState(in, false);
            case 3:
                return generalState(in, true);
            case 4:
                return event(in);
            default:
                return largeState(in);
        }
    }
    std::vector<std::string> expected;

  private:
    // The clock moves on by the input's gap, wrapping as the codec's
    // differences do.
    int64_t advance(Input &in) {
        clock_ =
            static_cast<int64_t>(static_cast<uint64_t>(clock_) + static_cast<uint64_t>(in.gap()));
        return clock_;
    }
    std::string callLine(const CallPlan &plan, const int64_t *values, int64_t start,
                         int64_t end) const {
        std::string line = "<" + std::string(compact::staticShapes()[plan.shape].element);
        for (uint32_t index = 0; index < plan.own; ++index)
            line += " " + std::string(plan.attributes[index].name) + "=" +
                    std::to_string(values[index]);
        return line + " time=" + std::to_string(start) + " end=" + std::to_string(end);
    }

    // A call of the dialect with up to three calls beneath it, by values.
    void typedCall(Input &in, const char *name, const char *nestedName) {
        const CallPlan *plan = plans_.planOf(name, true);
        const CallPlan *nestedPlan = plans_.planOf(nestedName, true);
        if (!plan || !nestedPlan) fail(std::string("no plan for ") + name + " or " + nestedName);
        std::vector<int64_t> values(plan->own);
        for (int64_t &value : values)
            value = in.number();
        const uint8_t form = in.byte();
        const uint32_t count = form % 4;
        // A call with nothing beneath it takes the leaf's shorter way, or
        // appendCall's, as the byte says: both must code the same records.
        const bool leaf = count == 0 && (form & 4) != 0;
        std::vector<int64_t> nestedValues(nestedPlan->own * count);
        for (int64_t &value : nestedValues)
            value = in.number();
        const int64_t start = advance(in);
        std::vector<int64_t> times;
        for (uint32_t state = 0; state < count; ++state) {
            times.push_back(advance(in));
            times.push_back(advance(in));
        }
        const int64_t end = advance(in);
        std::vector<const CallPlan *> plans(count, nestedPlan);
        CompactEncoder::Nested nested;
        nested.plans = plans.data();
        nested.count = count;
        nested.values = nestedValues.data();
        nested.times = times.data();
        const int error = leaf ? encoder_.appendLeafCall(*plan, values.data(), start, end)
                               : encoder_.appendCall(*plan, values.data(), start, end, {}, nested,
                                                     std::string_view());
        if (error != 0) fail("a typed call refused: " + std::to_string(error));
        if (count > 0) {
            expected.push_back("<Nested");
            for (uint32_t state = 0; state < count; ++state) {
                expected.push_back(callLine(*nestedPlan,
                                            nestedValues.data() + state * nestedPlan->own,
                                            times[2 * state], times[2 * state + 1]));
                expected.push_back("</" + std::string(nestedName));
            }
            expected.push_back("</Nested");
        }
        expected.push_back(callLine(*plan, values.data(), start, end));
        expected.push_back("</" + std::string(name));
    }

    // A leaf of a shape the frame defines: numbers and texts, then times.
    void leaf(Input &in, TextBuffer &out, std::string &line, const std::string &name, bool timed) {
        const size_t lengthAt = items::beginElement(out, items::kLeaf, name);
        line = "<" + name;
        attributes(in, out, line);
        if (timed) times(in, out, line);
        items::endElement(out, lengthAt);
    }
    void attributes(Input &in, TextBuffer &out, std::string &line) {
        const uint8_t count = in.byte() % 5;
        for (uint8_t index = 0; index < count; ++index) {
            const std::string name = "a" + std::to_string(in.byte() % 6);
            if (in.byte() % 3 == 0) {
                const std::string text = in.text(12);
                items::putText(out, compact::kText, name, text);
                line += " " + name + "=" + text;
            } else {
                const int64_t value = in.number();
                items::putNumber(out, compact::kInteger, name, value);
                line += " " + name + "=" + std::to_string(value);
            }
        }
    }
    void times(Input &in, TextBuffer &out, std::string &line) {
        const int64_t start = advance(in);
        const int64_t end = advance(in);
        items::putNumber(out, compact::kTime, "time", start);
        items::putNumber(out, compact::kEnd, "end", end);
        line += " time=" + std::to_string(start) + " end=" + std::to_string(end);
    }

    // A state of a frame-defined shape, with children or with the states
    // it made in a <Nested> block before it.
    void generalState(Input &in, bool withNested) {
        TextBuffer out;
        std::vector<std::string> lines;
        std::string line;
        if (withNested) {
            items::putOp(out, items::kNestedOpen);
            lines.push_back("<Nested");
            const uint8_t count = 1 + in.byte() % 3;
            for (uint8_t state = 0; state < count; ++state) {
                const std::string name = "inner" + std::to_string(in.byte() % 3);
                leaf(in, out, line, name, true);
                lines.push_back(line);
                lines.push_back("</" + name);
            }
            items::putOp(out, items::kNestedClose);
            lines.push_back("</Nested");
        }
        const std::string name = "S" + std::to_string(in.byte() % 4);
        const uint8_t children = withNested ? 0 : in.byte() % 3;
        if (children == 0) {
            leaf(in, out, line, name, true);
            lines.push_back(line);
        } else {
            const size_t lengthAt = items::beginElement(out, items::kOpen, name);
            line = "<" + name;
            attributes(in, out, line);
            times(in, out, line);
            items::endElement(out, lengthAt);
            lines.push_back(line);
            for (uint8_t child = 0; child < children; ++child) {
                const std::string childName = child % 2 ? "Data" : "For";
                leaf(in, out, line, childName, false);
                lines.push_back(line);
                lines.push_back("</" + childName);
            }
            items::putOp(out, items::kEndItem);
        }
        lines.push_back("</" + name);
        append(out, lines);
    }

    void event(Input &in) {
        TextBuffer out;
        const std::string name = in.text(8);
        const int64_t at = advance(in);
        const size_t lengthAt = items::beginElement(out, items::kLeaf, "Event");
        items::putText(out, compact::kText, "name", name);
        items::putNumber(out, compact::kTime, "time", at);
        items::endElement(out, lengthAt);
        append(out, {"<Event name=" + name + " time=" + std::to_string(at), "</Event"});
    }

    // A state whose text alone is larger than a frame: refused.
    void largeState(Input &in) {
        TextBuffer out;
        const size_t lengthAt = items::beginElement(out, items::kLeaf, "Large");
        items::putText(out, compact::kText, "text", std::string(frameBytes_ + in.byte(), 'x'));
        std::string ignored;
        times(in, out, ignored);
        items::endElement(out, lengthAt);
        const int error = encoder_.append(out.view(), clock_);
        if (error != EMSGSIZE)
            fail("a state larger than a frame gave " + std::to_string(error) + ", not EMSGSIZE");
    }

    void append(const TextBuffer &out, const std::vector<std::string> &lines) {
        // Anything the general path takes fits a frame: small names, at most
        // a dozen short texts, at most a few hundred bytes.
        const int error = encoder_.append(out.view(), clock_);
        if (error != 0) fail("a state that fits a frame refused: " + std::to_string(error));
        expected.insert(expected.end(), lines.begin(), lines.end());
    }

    CompactEncoder &encoder_;
    CallPlanCache plans_;
    uint32_t frameBytes_;
    int64_t clock_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Input in(data, size);
    // Frames of 1 to 4.5 KiB: a few states each, so that frames start
    // often, and room for the largest state the general path is given.
    const uint32_t frameBytes = 1024u + 512u * (in.byte() % 8);
    test::MemorySink sink(frameBytes);
    int error = 0;
    const auto encoder = CompactEncoder::create(sink, in.number(), in.number(), &error);
    if (!encoder) fail("the encoder was refused its Program: " + std::to_string(error));
    Program program(*encoder, frameBytes);
    for (int state = 0; state < 2000 && !in.done(); ++state)
        program.step(in);
    std::string problem;
    const std::vector<std::string> decoded = test::decodeFrames(sink, &problem);
    if (!problem.empty()) fail("a frame the encoder wrote is refused: " + problem);
    if (decoded.size() != program.expected.size())
        fail("decoded " + std::to_string(decoded.size()) + " lines for " +
             std::to_string(program.expected.size()));
    for (size_t line = 0; line < decoded.size(); ++line)
        if (decoded[line] != program.expected[line])
            fail("line " + std::to_string(line) + ": decoded '" + decoded[line] + "', given '" +
                 program.expected[line] + "'");
    return 0;
}
