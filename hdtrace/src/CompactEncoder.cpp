#include "CompactEncoder.hpp"

#include <errno.h>

#include <cstring>

#include <hdtrace/CompactFormat.hpp>
#include <hdtrace/Format.hpp>

#include "CompactItems.hpp"
#include "TraceRegistry.hpp"

namespace hdtrace {

using namespace compact;
namespace items = compact_items;

namespace {

// The shape key of an element: its name, then each attribute's value class
// and name. Integer and id codings share a class: an attribute written as
// an integer matches a static shape whatever its kind.
char classOf(uint8_t coding) {
    if (isIntegerCoding(coding)) return 'i';
    switch (coding) {
        case kText:
            return 's';
        case kTime:
            return 't';
        case kEnd:
            return 'e';
        default:
            return 'r';
    }
}

void appendKeyPart(std::string &key, uint8_t coding, std::string_view name) {
    key += classOf(coding);
    key += name;
    key += '\0';
}

const std::unordered_map<std::string, uint32_t> &staticShapeNumbers() {
    static const std::unordered_map<std::string, uint32_t> numbers = [] {
        std::unordered_map<std::string, uint32_t> table;
        std::string key;
        for (uint32_t shape = 0; shape < staticShapeCount(); ++shape) {
            const StaticShape &known = staticShapes()[shape];
            key.assign(known.element);
            key += '\0';
            for (uint32_t index = 0; index < known.count; ++index)
                appendKeyPart(key, known.attributes[index].coding, known.attributes[index].name);
            table.emplace(key, shape);
        }
        return table;
    }();
    return numbers;
}

unsigned char *varintAt(TextBuffer &out) {
    return reinterpret_cast<unsigned char *>(out.reserve(kMaxVarintBytes));
}
void putVarint(TextBuffer &out, uint64_t value) {
    out.commit(reinterpret_cast<char *>(compact::putVarint(varintAt(out), value)));
}

}  // namespace

std::unique_ptr<CompactEncoder> CompactEncoder::create(const std::string &path,
                                                       const FrameWriterOptions &options,
                                                       int64_t timeAdjustmentSeconds,
                                                       int64_t createdNanoseconds,
                                                       std::string *error) {
    std::unique_ptr<CompactEncoder> encoder(new CompactEncoder());
    encoder->frames_ = FrameWriter::create(path, options, error);
    if (!encoder->frames_) return nullptr;
    // The trace that owns this encoder closes it, saves it on a crash and
    // forgets it after fork(): one entry in the list of open traces.
    registry::remove(encoder->frames_.get());
    encoder->timeAdjustmentSeconds_ = timeAdjustmentSeconds;
    staticShapeNumbers();  // built now rather than in the first traced call
    if (const int appendError = encoder->append(std::string_view(), createdNanoseconds)) {
        if (error) *error = "cannot write '" + path + "': " + std::strerror(appendError);
        return nullptr;
    }
    return encoder;
}

void CompactEncoder::startFrame() {
    frameStarts_ = true;
    strings_.clear();
    dynamicShapes_.clear();
    previousTime_ = 0;
    for (int64_t &previous : previousIds_)
        previous = 0;
}

uint32_t CompactEncoder::stringIndex(std::string_view text) {
    scratch_.assign(text);
    auto [entry, added] = strings_.emplace(scratch_, static_cast<uint32_t>(strings_.size()));
    if (added) {
        putVarint(record_, kString);
        putVarint(record_, text.size());
        record_.append(text);
    }
    return entry->second;
}

bool CompactEncoder::encodeElement(const char **in, const char *end, bool open) {
    const char *p = *in;
    if (end - p < 4) return false;
    const uint32_t nameLength = items::getU32(p);
    p += 4;
    if (static_cast<size_t>(end - p) < nameLength + 4u) return false;
    const std::string_view name(p, nameLength);
    p += nameLength;
    const uint32_t entriesLength = items::getU32(p);
    p += 4;
    if (static_cast<size_t>(end - p) < entriesLength) return false;
    const char *entries = p;
    const char *entriesEnd = p + entriesLength;
    *in = entriesEnd;

    // The shape: by its key, among the static shapes, then the frame's.
    key_.assign(name);
    key_ += '\0';
    uint32_t count = 0;
    for (const char *e = entries; e < entriesEnd; ++count) {
        const uint8_t coding = static_cast<uint8_t>(*e);
        const uint32_t length = items::getU32(e + 1);
        appendKeyPart(key_, coding, std::string_view(e + 5, length));
        e += 5 + length;
        e += (coding == kText || coding == kRaw) ? 4 + items::getU32(e) : 8;
    }
    const StaticShape *known = nullptr;
    uint32_t shape;
    const auto &statics = staticShapeNumbers();
    if (auto found = statics.find(key_); found != statics.end()) {
        shape = found->second;
        known = &staticShapes()[shape];
    } else if (auto defined = dynamicShapes_.find(key_); defined != dynamicShapes_.end()) {
        shape = defined->second;
    } else {
        // Defined in the frame: its strings first, then the shape.
        const uint32_t element = stringIndex(name);
        values_.clear();
        for (const char *e = entries; e < entriesEnd;) {
            const uint8_t coding = static_cast<uint8_t>(*e);
            const uint32_t length = items::getU32(e + 1);
            putVarint(values_, stringIndex(std::string_view(e + 5, length)));
            values_.append(static_cast<char>(coding));
            e += 5 + length;
            e += (coding == kText || coding == kRaw) ? 4 + items::getU32(e) : 8;
        }
        putVarint(record_, kShape);
        putVarint(record_, element);
        putVarint(record_, count);
        record_.append(values_.view());
        shape = staticShapeCount() + static_cast<uint32_t>(dynamicShapes_.size());
        dynamicShapes_.emplace(key_, shape);
    }

    // The values, after any string they define.
    values_.clear();
    int64_t elementTime = 0;
    uint32_t index = 0;
    for (const char *e = entries; e < entriesEnd; ++index) {
        const uint8_t written = static_cast<uint8_t>(*e);
        e += 5 + items::getU32(e + 1);
        const uint8_t coding = known ? known->attributes[index].coding : written;
        if (written == kText || written == kRaw) {
            const uint32_t length = items::getU32(e);
            putVarint(values_, stringIndex(std::string_view(e + 4, length)));
            e += 4 + length;
            continue;
        }
        const int64_t value = items::getI64(e);
        e += 8;
        switch (coding) {
            case kInteger:
                putVarint(values_, zigzag(value));
                break;
            case kTime:
                putVarint(values_, zigzag(wrappingDifference(value, previousTime_)));
                previousTime_ = elementTime = value;
                break;
            case kEnd:
                putVarint(values_, zigzag(wrappingDifference(value, elementTime)));
                break;
            default: {
                int64_t &previous = previousIds_[coding - kIdDelta];
                putVarint(values_, zigzag(wrappingDifference(value, previous)));
                previous = value;
                break;
            }
        }
    }
    putVarint(record_, kFirstElementCode + 2 * uint64_t{shape} + (open ? 1 : 0));
    record_.append(values_.view());
    return true;
}

bool CompactEncoder::encode(std::string_view itemText) {
    record_.clear();
    if (frameStarts_) {
        putVarint(record_, kProgram);
        putVarint(record_, kRecordsVersion);
        putVarint(record_, staticShapesFingerprint());
        putVarint(record_, zigzag(timeAdjustmentSeconds_));
    }
    const char *in = itemText.data();
    const char *end = in + itemText.size();
    while (in < end) {
        const uint8_t op = static_cast<uint8_t>(*in++);
        switch (op) {
            case items::kLeaf:
            case items::kOpen:
                if (!encodeElement(&in, end, op == items::kOpen)) return false;
                break;
            case items::kEndItem:
                putVarint(record_, kEndElement);
                break;
            case items::kNestedOpen:
                putVarint(record_, kNestedOpen);
                break;
            case items::kNestedClose:
                putVarint(record_, kNestedClose);
                break;
            default:
                return false;
        }
    }
    return true;
}

int CompactEncoder::append(std::string_view items, int64_t time) {
    if (frames_->pendingBytes() == 0) startFrame();
    if (!encode(items)) return EINVAL;
    if (record_.size() > frames_->frameBytes() - frames_->pendingBytes()) {
        // The record opens the next frame: encode it again with fresh tables.
        startFrame();
        encode(items);
    }
    const int error = frames_->append(record_.data(), record_.size(), time);
    if (error == 0) frameStarts_ = false;
    return error;
}

}  // namespace hdtrace
