#include <cstring>
#include <string>
#include <vector>

#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/codec/Inlining.hpp>

namespace hdtrace::compact {
namespace {

constexpr size_t kTrailerBytes = kGatheredTrailerBytes;

struct Failure {
    const unsigned char *at;
    std::string problem;
};

bool isTime(uint8_t coding) {
    return coding == kTime || coding == kEnd;
}

// A static shape's values as the walk takes them: a number of values to
// copy as they are, then a time (the attribute index of its slot), and so
// on; the last segment may have no time. Looked up for every element.
struct Segment {
    static constexpr uint16_t kNoTime = UINT16_MAX;
    uint16_t copies;
    uint16_t time;
};
struct StaticSegments {
    std::vector<Segment> segments;
    std::vector<uint32_t> first;   // by shape, and the end after the last
    std::vector<uint32_t> fields;  // by shape: staticFieldOffset, kept beside the segments
    const uint32_t fieldCount = staticFieldCount();
    StaticSegments() {
        const uint32_t count = staticShapeCount();
        for (uint32_t shape = 0; shape < count; ++shape) {
            first.push_back(static_cast<uint32_t>(segments.size()));
            fields.push_back(staticFieldOffset(shape));
            const StaticShape &known = staticShapes()[shape];
            uint16_t copies = 0;
            for (uint32_t index = 0; index < known.count; ++index) {
                if (!isTime(known.attributes[index].coding)) {
                    ++copies;
                    continue;
                }
                segments.push_back(Segment{copies, static_cast<uint16_t>(index)});
                copies = 0;
            }
            if (copies > 0) segments.push_back(Segment{copies, Segment::kNoTime});
        }
        first.push_back(static_cast<uint32_t>(segments.size()));
    }
};
const StaticSegments &staticSegments() {
    static const StaticSegments table;
    return table;
}

[[noreturn]] HDTRACE_COLD void cutVarint(const unsigned char *at, const char *what) {
    throw Failure{at, std::string(what) + " is cut or longer than 64 bits"};
}
[[noreturn]] HDTRACE_COLD void tooLong(const unsigned char *at) {
    throw Failure{at, "the records are longer than the frame's decoded size"};
}

}  // namespace

// One walk over a frame's records without their time values: gathering
// reads the records and leaves the times out of its output; scattering
// reads the records' part of a gathered frame and puts the times back. Both
// copy every other byte, and, walking the same bytes, take the same
// decisions. Scattering runs for every frame a reader reads, so the loop
// keeps its cursors in locals: every byte stored could otherwise change
// members the compiler would then read again.
class RecordWalk {
  public:
    RecordWalk(TimeGathering &state, const unsigned char *begin, const unsigned char *end,
               unsigned char *out, unsigned char *outEnd)
        : state_(state), begin_(begin), end_(end), out_(out), outEnd_(outEnd) {}

    // Gathering: the times go to [gathered, gatheredEnd). Scattering: they
    // come from [times, timesEnd).
    template <bool kGather>
    void run(const unsigned char *times, const unsigned char *timesEnd, unsigned char *gathered,
             unsigned char *gatheredEnd);

    unsigned char *out() const { return out_; }
    const unsigned char *times() const { return times_; }
    size_t gatheredBytes() const { return gatheredBytes_; }

  private:
    // The cursors of a walk, in locals of run(): every byte stored could
    // otherwise change members the compiler would then read again.
    struct Cursors {
        const unsigned char *in;
        const unsigned char *const end;
        unsigned char *out;
        unsigned char *const outEnd;
        const unsigned char *times;  // scattering: the times to put back
        const unsigned char *const timesEnd;
        unsigned char *gathered;  // gathering: where the next time goes
        unsigned char *const gatheredEnd;
    };
    HDTRACE_HOT_INLINE static uint64_t readVarint(const unsigned char *&in,
                                                  const unsigned char *end, const char *what) {
        if (end - in >= 2) {  // most values: one or two bytes
            if (in[0] < 0x80) return *in++;
            if (in[1] < 0x80) {
                const uint64_t value = (in[0] & 0x7fu) | (uint64_t{in[1]} << 7);
                in += 2;
                return value;
            }
        }
        uint64_t value;
        const unsigned char *at = in;
        if (!getVarint(&in, end, &value)) cutVarint(at, what);
        return value;
    }
    // One varint as it is.
    HDTRACE_HOT_INLINE static void copyValue(Cursors &c, const char *what) {
        const unsigned char *at = c.in;
        if (c.end - c.in >= static_cast<ptrdiff_t>(kMaxVarintBytes) &&
            c.outEnd - c.out >= static_cast<ptrdiff_t>(kMaxVarintBytes)) {
            for (size_t bytes = 0; bytes < kMaxVarintBytes; ++bytes) {
                const unsigned char byte = *c.in++;
                *c.out++ = byte;
                if (byte < 0x80) return;
            }
            cutVarint(at, what);
        }
        for (size_t bytes = 0; bytes < kMaxVarintBytes && c.in != c.end; ++bytes) {
            if (c.out == c.outEnd) tooLong(c.in);
            const unsigned char byte = *c.in++;
            *c.out++ = byte;
            if (byte < 0x80) return;
        }
        cutVarint(at, what);
    }
    // count varints as they are. Eight bytes at a time where both sides
    // have the room: the bytes without the high bit end the values.
    HDTRACE_HOT_INLINE static void copyValues(Cursors &c, uint32_t count, const char *what) {
        constexpr uint64_t kHighBits = 0x8080808080808080ull;
        while (count > 0 && c.end - c.in >= 8 && c.outEnd - c.out >= 8) {
            uint64_t word;
            std::memcpy(&word, c.in, 8);
            std::memcpy(c.out, &word, 8);
            uint64_t ends = ~word & kHighBits;  // little-endian: byte i is bits 8i..8i+7
            // The ends counted without a call: each byte's flag moved to its
            // lowest bit, the eight bytes summed into the top one.
            const auto found = static_cast<uint32_t>(((ends >> 7) * 0x0101010101010101ull) >> 56);
            if (found < count) {
                c.in += 8;
                c.out += 8;
                count -= found;
                continue;
            }
            for (uint32_t skipped = 1; skipped < count; ++skipped)
                ends &= ends - 1;
            const size_t bytes = static_cast<size_t>(__builtin_ctzll(ends) / 8) + 1;
            c.in += bytes;
            c.out += bytes;
            return;
        }
        for (; count > 0; --count)
            copyValue(c, what);
    }
    HDTRACE_HOT_INLINE static uint64_t copyVarint(Cursors &c, const char *what) {
        if (c.in != c.end && *c.in < 0x80 && c.out != c.outEnd) {
            *c.out++ = *c.in;
            return *c.in++;
        }
        if (c.end - c.in >= 2 && c.outEnd - c.out >= 2 && c.in[1] < 0x80) {
            c.out[0] = c.in[0];
            c.out[1] = c.in[1];
            c.out += 2;
            return readVarint(c.in, c.end, what);
        }
        const unsigned char *from = c.in;
        const uint64_t value = readVarint(c.in, c.end, what);
        write(c, from, static_cast<size_t>(c.in - from));
        return value;
    }
    HDTRACE_HOT_INLINE static void write(Cursors &c, const unsigned char *from, size_t count) {
        if (count > static_cast<size_t>(c.outEnd - c.out)) tooLong(c.in);
        std::memcpy(c.out, from, count);
        c.out += count;
    }
    // One time value: its difference from the previous value of its slot,
    // out to the times (gathering) or back in place (scattering).
    template <bool kGather>
    HDTRACE_HOT_INLINE void timeValue(Cursors &c, int64_t &previous) {
        if constexpr (kGather) {
            const unsigned char *from = c.in;
            const uint64_t coded = readVarint(c.in, c.end, "a time");
            // Only a value written in its shortest form (no last byte 0
            // after others) comes back byte for byte.
            if (c.in - from > 1 && c.in[-1] == 0)
                throw Failure{from, "a time not in its shortest form"};
            // Times past the room a gathered frame may take (maxGatheredBytes).
            if (c.gatheredEnd - c.gathered < static_cast<ptrdiff_t>(kMaxVarintBytes))
                throw Failure{from, "the gathered times take too much room"};
            const int64_t value = unzigzag(coded);
            c.gathered = putVarint(c.gathered, zigzag(wrappingDifference(value, previous)));
            previous = value;
        } else {
            const uint64_t coded = readVarint(c.times, c.timesEnd, "a gathered time");
            previous = wrappingSum(previous, unzigzag(coded));
            if (c.outEnd - c.out >= static_cast<ptrdiff_t>(kMaxVarintBytes)) {
                c.out = putVarint(c.out, zigzag(previous));
            } else {
                unsigned char bytes[kMaxVarintBytes];
                write(c, bytes, static_cast<size_t>(putVarint(bytes, zigzag(previous)) - bytes));
            }
        }
    }

    TimeGathering &state_;
    const unsigned char *const begin_;
    const unsigned char *const end_;
    unsigned char *out_;
    unsigned char *const outEnd_;
    const unsigned char *times_ = nullptr;  // after run(): where the times ended
    size_t gatheredBytes_ = 0;              // after run<true>(): bytes of the times
};

template <bool kGather>
void RecordWalk::run(const unsigned char *times, const unsigned char *timesEnd,
                     unsigned char *gathered, unsigned char *gatheredEnd) {
    Cursors c{begin_, end_, out_, outEnd_, times, timesEnd, gathered, gatheredEnd};
    if (c.in == c.end || *c.in != kProgram)
        throw Failure{c.in, "the frame does not begin with its Program"};
    copyVarint(c, "the Program");
    const unsigned char *at = c.in;
    const uint64_t version = copyVarint(c, "the records' version");
    if (version != kRecordsVersion)
        throw Failure{at, "records of version " + std::to_string(version) +
                              " do not have their times gathered"};
    at = c.in;
    const uint64_t fingerprint = copyVarint(c, "the shape table's fingerprint");
    const uint64_t staticCount =
        fingerprint > UINT32_MAX ? 0 : staticShapeCountFor(static_cast<uint32_t>(fingerprint));
    if (staticCount == 0) throw Failure{at, "written with another definition of the dialect"};
    copyVarint(c, "timeAdjustment");

    const StaticSegments &known = staticSegments();
    const Segment *const staticSegments = known.segments.data();
    const uint32_t *const staticFirst = known.first.data();
    const uint32_t *const staticFields = known.fields.data();
    const uint32_t fieldCount = known.fieldCount;
    state_.previous_.assign(fieldCount, 0);
    state_.dynamicCodings_.clear();
    state_.dynamicFirst_.clear();
    int64_t blockStart = 0;
    while (c.in != c.end) {
        at = c.in;
        const uint64_t code = copyVarint(c, "an operation");
        if (code >= kFirstElementCode) {
            const uint64_t shape = (code - kFirstElementCode) >> 1;
            if (shape < staticCount) {
                int64_t *const previous = state_.previous_.data() + staticFields[shape];
                const Segment *segment = staticSegments + staticFirst[shape];
                const Segment *const last = staticSegments + staticFirst[shape + 1];
                for (; segment != last; ++segment) {
                    copyValues(c, segment->copies, "a value");
                    if (segment->time != Segment::kNoTime)
                        timeValue<kGather>(c, previous[segment->time]);
                }
                continue;
            }
            const uint64_t dynamic = shape - staticCount;
            if (dynamic >= state_.dynamicFirst_.size())
                throw Failure{at, "shape " + std::to_string(shape) + " is not defined"};
            const uint32_t first = state_.dynamicFirst_[dynamic];
            const uint32_t last = dynamic + 1 < state_.dynamicFirst_.size()
                                      ? state_.dynamicFirst_[dynamic + 1]
                                      : static_cast<uint32_t>(state_.dynamicCodings_.size());
            const uint8_t *const codings = state_.dynamicCodings_.data() + first;
            int64_t *const previous = state_.previous_.data() + fieldCount + first;
            for (uint32_t index = 0; index < last - first; ++index) {
                if (isTime(codings[index]))
                    timeValue<kGather>(c, previous[index]);
                else
                    copyValue(c, "a value");
            }
            continue;
        }
        switch (code) {
            case kEndElement:
            case kNestedClose:
                continue;
            case kNestedOpen:
                timeValue<kGather>(c, blockStart);
                continue;
            case kProgram:
                throw Failure{at, "a second Program in the frame"};
            case kString: {
                const unsigned char *lengthAt = c.in;
                const uint64_t length = copyVarint(c, "a string's length");
                if (length > static_cast<uint64_t>(c.end - c.in))
                    throw Failure{lengthAt, "a string runs past the frame's end"};
                write(c, c.in, static_cast<size_t>(length));
                c.in += length;
                continue;
            }
            case kShape: {
                copyValue(c, "a shape's element name");
                const unsigned char *countAt = c.in;
                const uint64_t attributes = copyVarint(c, "a shape's attribute count");
                if (attributes > static_cast<uint64_t>(c.end - c.in) / 2)
                    throw Failure{countAt, "a shape runs past the frame's end"};
                state_.dynamicFirst_.push_back(
                    static_cast<uint32_t>(state_.dynamicCodings_.size()));
                for (uint64_t index = 0; index < attributes; ++index) {
                    copyValue(c, "an attribute name");
                    if (c.in == c.end || !isKnownCoding(*c.in))
                        throw Failure{c.in, "a shape's coding is cut or unknown"};
                    state_.dynamicCodings_.push_back(*c.in);
                    write(c, c.in, 1);
                    ++c.in;
                }
                state_.previous_.resize(fieldCount + state_.dynamicCodings_.size(), 0);
                continue;
            }
            default:
                throw Failure{at, "unknown operation " + std::to_string(code)};
        }
    }
    out_ = c.out;
    times_ = c.times;
    gatheredBytes_ = static_cast<size_t>(c.gathered - gathered);
}

bool TimeGathering::gather(const unsigned char *records, size_t size,
                           std::vector<unsigned char> &out) {
    const size_t most = maxGatheredBytes(size);
    if (times_.size() < most) times_.resize(most);  // grows only: no zeroing per frame
    return gather(records, size, out, times_.data(), times_.size());
}

bool TimeGathering::gather(const unsigned char *records, size_t size,
                           std::vector<unsigned char> &out, unsigned char *scratch,
                           size_t scratchBytes) {
    const size_t most = maxGatheredBytes(size);
    if (size <= kTrailerBytes || scratchBytes < most) return false;
    out.resize(most);
    RecordWalk walk(*this, records, records + size, out.data(), out.data() + most - kTrailerBytes);
    try {
        walk.run<true>(nullptr, nullptr, scratch, scratch + most);
    } catch (const Failure &) {
        return false;
    }
    const size_t structure = static_cast<size_t>(walk.out() - out.data());
    const size_t times = walk.gatheredBytes();
    if (structure + times + kTrailerBytes > most) return false;
    std::memcpy(out.data() + structure, scratch, times);
    unsigned char *trailer = out.data() + structure + times;
    for (size_t byte = 0; byte < kTrailerBytes; ++byte)
        trailer[byte] = static_cast<unsigned char>(structure >> (8 * byte));
    out.resize(structure + times + kTrailerBytes);
    return true;
}

bool gatheredParts(const unsigned char *gathered, size_t size, size_t *recordsBytes) {
    if (size < kTrailerBytes) return false;
    const unsigned char *trailer = gathered + size - kTrailerBytes;
    uint64_t structure = 0;
    for (size_t byte = 0; byte < kTrailerBytes; ++byte)
        structure |= uint64_t{trailer[byte]} << (8 * byte);
    if (structure > size - kTrailerBytes) return false;
    *recordsBytes = static_cast<size_t>(structure);
    return true;
}

void TimeGathering::scatter(const unsigned char *gathered, size_t size,
                            std::vector<unsigned char> &records, size_t recordsSize) {
    size_t structure;
    if (!gatheredParts(gathered, size, &structure))
        throw GatheredTimesProblem{size < kTrailerBytes ? 0 : size - kTrailerBytes,
                                   "the trailer of a gathered frame is cut or points past it"};
    const unsigned char *trailer = gathered + size - kTrailerBytes;
    records.resize(recordsSize);
    RecordWalk walk(*this, gathered, gathered + structure, records.data(),
                    records.data() + recordsSize);
    try {
        walk.run<false>(gathered + structure, trailer, nullptr, nullptr);
    } catch (const Failure &failure) {
        throw GatheredTimesProblem{static_cast<size_t>(failure.at - gathered), failure.problem};
    }
    if (walk.times() != trailer)
        throw GatheredTimesProblem{static_cast<size_t>(walk.times() - gathered),
                                   "gathered times left over after the records' last time"};
    if (walk.out() != records.data() + recordsSize)
        throw GatheredTimesProblem{
            structure, "the records are " + std::to_string(walk.out() - records.data()) +
                           " bytes, the frame's header says " + std::to_string(recordsSize)};
}

}  // namespace hdtrace::compact
