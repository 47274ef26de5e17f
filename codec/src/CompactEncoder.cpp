#include <errno.h>

#include <algorithm>
#include <cstring>

#include <hdtrace/codec/CallPlans.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Format.hpp>
#include <hdtrace/codec/Inlining.hpp>

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

std::unique_ptr<CompactEncoder> CompactEncoder::create(RecordSink &sink,
                                                       int64_t timeAdjustmentSeconds,
                                                       int64_t createdNanoseconds, int *error) {
    std::unique_ptr<CompactEncoder> encoder(new CompactEncoder(sink));
    encoder->timeAdjustmentSeconds_ = timeAdjustmentSeconds;
    encoder->fields_.resize(staticFieldCount());
    encoder->lastTexts_.resize(staticFieldCount());
    // Built now rather than in the first traced call.
    staticShapeNumbers();
    if (const int appendError = encoder->append(std::string_view(), createdNanoseconds)) {
        if (error) *error = appendError;
        return nullptr;
    }
    return encoder;
}

void CompactEncoder::startFrame() {
    frameStarts_ = true;
    ++frameNumber_;
    strings_.clear();
    dynamicShapes_.clear();
    dynamicShapeList_.clear();
    previousTime_ = 0;
    for (int64_t &previous : previousIds_)
        previous = 0;
    // The frame decodes alone: no value of an earlier frame is coded from.
    std::fill(fields_.begin(), fields_.end(), 0);
}

namespace {

// One entry of the items: its coding, name and where its value starts.
struct EntryView {
    uint8_t coding;
    std::string_view name;
    const char *value;
};
inline const char *nextEntry(const char *e, EntryView *view) {
    view->coding = static_cast<uint8_t>(*e);
    const uint32_t length = items::getU32(e + 1);
    view->name = std::string_view(e + 5, length);
    view->value = e + 5 + length;
    const bool text = view->coding == kText || view->coding == kRaw;
    return view->value + (text ? 4 + items::getU32(view->value) : 8);
}

// A quick hash of a name, 8 bytes a step.
inline uint64_t mixName(uint64_t hash, std::string_view text) {
    constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;
    size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) {
        uint64_t chunk;
        std::memcpy(&chunk, text.data() + i, 8);
        hash = (hash ^ chunk) * kMultiplier;
        hash ^= hash >> 29;
    }
    uint64_t tail = text.size();
    for (; i < text.size(); ++i)
        tail = (tail << 8) | static_cast<unsigned char>(text[i]);
    hash = (hash ^ tail) * kMultiplier;
    return hash ^ (hash >> 29);
}

}  // namespace

std::pair<uint32_t, bool> CompactEncoder::internString(std::string_view text) {
    // The few texts a program repeats (a transfer mode, a layer's names) are
    // found in a small cache of this frame's strings.
    CachedString &cached = stringCache_[mixName(text.size(), text) % kStringCacheSize];
    if (cached.frame == frameNumber_ && cached.text == text) return {cached.index, false};
    scratch_.assign(text);
    const auto [entry, added] = strings_.emplace(scratch_, static_cast<uint32_t>(strings_.size()));
    cached.text.assign(text);
    cached.index = entry->second;
    cached.frame = frameNumber_;
    return {entry->second, added};
}

unsigned char *CompactEncoder::putStringDefinition(unsigned char *out, std::string_view text) {
    out = compact::putVarint(out, kString);
    out = compact::putVarint(out, text.size());
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

uint32_t CompactEncoder::stringIndex(std::string_view text) {
    const auto [index, added] = internString(text);
    if (added) {
        auto *out =
            reinterpret_cast<unsigned char *>(record_.reserve(2 * kMaxVarintBytes + text.size()));
        record_.commit(reinterpret_cast<char *>(putStringDefinition(out, text)));
    }
    return index;
}

bool CompactEncoder::shapeMatches(uint32_t shape, std::string_view name, const char *entries,
                                  const char *entriesEnd) const {
    const uint32_t staticCount = staticShapeCount();
    if (shape < staticCount) {
        const StaticShape &known = staticShapes()[shape];
        if (!items::sameName(known.element, name)) return false;
        uint32_t index = 0;
        EntryView entry;
        for (const char *e = entries; e < entriesEnd; ++index) {
            e = nextEntry(e, &entry);
            if (index >= known.count ||
                !items::sameName(known.attributes[index].name, entry.name) ||
                classOf(known.attributes[index].coding) != classOf(entry.coding))
                return false;
        }
        return index == known.count;
    }
    const DynamicShape &defined = dynamicShapeList_[shape - staticCount];
    if (!items::sameName(defined.element, name)) return false;
    size_t index = 0;
    EntryView entry;
    for (const char *e = entries; e < entriesEnd; ++index) {
        e = nextEntry(e, &entry);
        if (index >= defined.attributes.size() ||
            !items::sameName(defined.attributes[index].first, entry.name) ||
            defined.attributes[index].second != entry.coding)
            return false;
    }
    return index == defined.attributes.size();
}

namespace {

// Where an element's shape is looked for first: a direct-mapped cache by a
// hash of the element's name and the size of its entries. A hit is checked
// against the shape itself, so a collision costs a lookup, never a wrong
// shape.
inline uint64_t cacheHash(std::string_view name, const char *entries, const char *entriesEnd) {
    return mixName(static_cast<uint64_t>(entriesEnd - entries) * 0x9E3779B97F4A7C15ull, name);
}

}  // namespace

__attribute__((always_inline)) inline unsigned char *CompactEncoder::codeNumber(
    unsigned char *out, uint8_t coding, int64_t value, int64_t *endBase, uint32_t field) {
    switch (coding) {
        case kInteger:
            return compact::putVarint(out, zigzag(value));
        case kFieldDelta: {
            int64_t &previous = fields_[field];
            const int64_t before = previous;
            previous = value;
            return compact::putVarint(out, zigzag(wrappingDifference(value, before)));
        }
        case kTime:
            out = compact::putVarint(out, zigzag(wrappingDifference(value, previousTime_)));
            previousTime_ = value;
            *endBase = followsBlock_ ? blockEnd_ : value;
            return out;
        case kEnd:
            out = compact::putVarint(out, zigzag(wrappingDifference(value, *endBase)));
            previousTime_ = value;
            return out;
        default: {
            int64_t &previous = previousIds_[coding - kIdDelta];
            out = compact::putVarint(out, zigzag(wrappingDifference(value, previous)));
            previous = value;
            return out;
        }
    }
}

bool CompactEncoder::encodeKnownWithoutText(std::string_view name, const char *entries,
                                            const char *entriesEnd, bool open) {
    const uint64_t hash = cacheHash(name, entries, entriesEnd);
    const CachedShape &cached = shapeCache_[hash % kShapeCacheSize];
    if (cached.hash != hash || !cached.isStatic || cached.hasText) return false;
    const StaticShape &known = staticShapes()[cached.shape];
    if (known.count > kMaxFastFields || !items::sameName(known.element, name)) return false;
    const uint32_t fieldBase = staticFieldOffset(cached.shape);
    // A plain array, left uninitialised: clearing it would cost more than
    // the element.
    int64_t savedValues[kMaxFastFields];

    // One pass: each entry is checked against the shape as it is coded; a
    // mismatch takes back what was coded.
    const size_t mark = record_.size();
    const int64_t savedTime = previousTime_;
    int64_t savedIds[kIdKindCount];
    std::memcpy(savedIds, previousIds_, sizeof savedIds);
    unsigned char *out =
        reinterpret_cast<unsigned char *>(record_.reserve(kMaxVarintBytes * (known.count + 1)));
    out = compact::putVarint(out, kFirstElementCode + 2 * uint64_t{cached.shape} + (open ? 1 : 0));
    int64_t endBase = 0;
    uint32_t index = 0;
    EntryView entry;
    for (const char *e = entries; e < entriesEnd; ++index) {
        e = nextEntry(e, &entry);
        if (index >= known.count) break;
        const uint8_t coding = known.attributes[index].coding;
        if (classOf(coding) != classOf(entry.coding) ||
            !items::sameName(known.attributes[index].name, entry.name))
            break;
        savedValues[index] = fields_[fieldBase + index];
        out = codeNumber(out, coding, items::getI64(entry.value), &endBase, fieldBase + index);
        if (e == entriesEnd && index + 1 == known.count) {
            record_.commit(reinterpret_cast<char *>(out));
            return true;
        }
    }
    previousTime_ = savedTime;
    std::memcpy(previousIds_, savedIds, sizeof savedIds);
    // The fields coded before the mismatch, as they were.
    for (uint32_t restored = 0; restored < index && restored < kMaxFastFields; ++restored)
        fields_[fieldBase + restored] = savedValues[restored];
    record_.commit(const_cast<char *>(record_.data()) + mark);
    return false;
}

uint32_t CompactEncoder::findShape(std::string_view name, const char *entries,
                                   const char *entriesEnd) {
    const uint64_t hash = cacheHash(name, entries, entriesEnd);
    EntryView entry;
    CachedShape &cached = shapeCache_[hash % kShapeCacheSize];
    if (cached.hash == hash && (cached.isStatic || cached.frame == frameNumber_) &&
        shapeMatches(cached.shape, name, entries, entriesEnd))
        return cached.shape;

    key_.assign(name);
    key_ += '\0';
    uint32_t count = 0;
    for (const char *e = entries; e < entriesEnd; ++count) {
        e = nextEntry(e, &entry);
        appendKeyPart(key_, entry.coding, entry.name);
    }
    uint32_t shape;
    bool isStatic = false;
    const auto &statics = staticShapeNumbers();
    if (auto found = statics.find(key_); found != statics.end()) {
        shape = found->second;
        isStatic = true;
    } else if (auto defined = dynamicShapes_.find(key_); defined != dynamicShapes_.end()) {
        shape = defined->second;
    } else {
        // Defined in the frame: its strings first, then the shape.
        DynamicShape definition;
        definition.element.assign(name);
        const uint32_t element = stringIndex(name);
        values_.clear();
        for (const char *e = entries; e < entriesEnd;) {
            e = nextEntry(e, &entry);
            putVarint(values_, stringIndex(entry.name));
            values_.append(static_cast<char>(entry.coding));
            definition.attributes.emplace_back(std::string(entry.name), entry.coding);
        }
        putVarint(record_, kShape);
        putVarint(record_, element);
        putVarint(record_, count);
        record_.append(values_.view());
        shape = staticShapeCount() + static_cast<uint32_t>(dynamicShapes_.size());
        dynamicShapes_.emplace(key_, shape);
        dynamicShapeList_.push_back(std::move(definition));
    }
    bool hasText = false;
    for (const char *e = entries; e < entriesEnd;) {
        e = nextEntry(e, &entry);
        hasText = hasText || entry.coding == kText || entry.coding == kRaw;
    }
    cached = CachedShape{hash, shape, frameNumber_, isStatic, hasText};
    return shape;
}

bool CompactEncoder::encodeElement(std::string_view name, const char *entries,
                                   const char *entriesEnd, bool open) {
    if (encodeKnownWithoutText(name, entries, entriesEnd, open)) return true;
    const uint32_t shape = findShape(name, entries, entriesEnd);
    const StaticShape *known = shape < staticShapeCount() ? &staticShapes()[shape] : nullptr;
    const uint32_t fieldBase = known ? staticFieldOffset(shape) : 0;

    // Strings first: an element's definitions precede it.
    constexpr size_t kMaxInlineTexts = 32;
    uint32_t textIndices[kMaxInlineTexts];
    textIndicesOverflow_.clear();
    size_t texts = 0;
    size_t count = 0;
    EntryView entry;
    for (const char *e = entries; e < entriesEnd; ++count) {
        e = nextEntry(e, &entry);
        if (entry.coding != kText && entry.coding != kRaw) continue;
        const uint32_t index =
            stringIndex(std::string_view(entry.value + 4, items::getU32(entry.value)));
        if (texts < kMaxInlineTexts)
            textIndices[texts] = index;
        else
            textIndicesOverflow_.push_back(index);
        ++texts;
    }

    unsigned char *out =
        reinterpret_cast<unsigned char *>(record_.reserve(kMaxVarintBytes * (count + 1)));
    out = compact::putVarint(out, kFirstElementCode + 2 * uint64_t{shape} + (open ? 1 : 0));
    int64_t endBase = 0;
    size_t text = 0;
    uint32_t index = 0;
    for (const char *e = entries; e < entriesEnd; ++index) {
        e = nextEntry(e, &entry);
        if (entry.coding == kText || entry.coding == kRaw) {
            out = compact::putVarint(out, text < kMaxInlineTexts
                                              ? textIndices[text]
                                              : textIndicesOverflow_[text - kMaxInlineTexts]);
            ++text;
            continue;
        }
        const uint8_t coding = known ? known->attributes[index].coding : entry.coding;
        out = codeNumber(out, coding, items::getI64(entry.value), &endBase, fieldBase + index);
    }
    record_.commit(reinterpret_cast<char *>(out));
    return true;
}

void CompactEncoder::beginRecord() {
    record_.clear();
    blockStarts_.clear();
    followsBlock_ = false;
    if (frameStarts_) {
        putVarint(record_, kProgram);
        putVarint(record_, kRecordsVersion);
        putVarint(record_, staticShapesFingerprint());
        putVarint(record_, zigzag(timeAdjustmentSeconds_));
    }
}

HDTRACE_CALL_PATH unsigned char *CompactEncoder::openBlock(unsigned char *out, int64_t ownerStart) {
    *out++ = static_cast<unsigned char>(kNestedOpen);
    out = compact::putVarint(out, zigzag(wrappingDifference(ownerStart, previousTime_)));
    previousTime_ = ownerStart;
    return out;
}

HDTRACE_CALL_PATH int64_t CompactEncoder::closeBlock(int64_t ownerStart) {
    const int64_t blockEnd = previousTime_;
    previousTime_ = ownerStart;
    return blockEnd;
}

int64_t CompactEncoder::blockOwnerStart(const char *in, const char *end) const {
    // The items after the block's <Nested> up to its </Nested>, then the
    // element the block belongs to: its first time. Damaged items, or an
    // owner without a time, give the previous time (a delta of 0).
    int depth = 1;
    while (in < end) {
        const uint8_t op = static_cast<uint8_t>(*in++);
        if (op == items::kNestedOpen) {
            ++depth;
        } else if (op == items::kNestedClose) {
            --depth;
        } else if (op == items::kLeaf || op == items::kOpen) {
            if (end - in < 4) break;
            const uint32_t nameLength = items::getU32(in);
            if (static_cast<size_t>(end - in) < 8u + nameLength) break;
            in += 4 + nameLength;
            const uint32_t entriesLength = items::getU32(in);
            in += 4;
            if (static_cast<size_t>(end - in) < entriesLength) break;
            if (depth == 0) {
                EntryView entry;
                for (const char *e = in; e < in + entriesLength;) {
                    e = nextEntry(e, &entry);
                    if (entry.coding == kTime) return items::getI64(entry.value);
                }
                break;
            }
            in += entriesLength;
        } else if (op != items::kEndItem) {
            break;
        }
    }
    return previousTime_;
}

bool CompactEncoder::encode(std::string_view itemText) {
    beginRecord();
    const char *in = itemText.data();
    const char *end = in + itemText.size();
    while (in < end) {
        const uint8_t op = static_cast<uint8_t>(*in++);
        switch (op) {
            case items::kLeaf:
            case items::kOpen: {
                if (end - in < 4) return false;
                const uint32_t nameLength = items::getU32(in);
                in += 4;
                if (static_cast<size_t>(end - in) < nameLength + 4u) return false;
                const std::string_view name(in, nameLength);
                in += nameLength;
                const uint32_t entriesLength = items::getU32(in);
                in += 4;
                if (static_cast<size_t>(end - in) < entriesLength) return false;
                encodeElement(name, in, in + entriesLength, op == items::kOpen);
                followsBlock_ = false;
                in += entriesLength;
                break;
            }
            case items::kEndItem:
                putVarint(record_, kEndElement);
                break;
            case items::kNestedOpen: {
                const int64_t start = blockOwnerStart(in, end);
                auto *out = reinterpret_cast<unsigned char *>(record_.reserve(kMaxBlockOpenBytes));
                record_.commit(reinterpret_cast<char *>(openBlock(out, start)));
                blockStarts_.push_back(start);
                followsBlock_ = false;
                break;
            }
            case items::kNestedClose:
                if (blockStarts_.empty()) return false;
                record_.append(static_cast<char>(kNestedClose));
                blockEnd_ = closeBlock(blockStarts_.back());
                blockStarts_.pop_back();
                followsBlock_ = true;
                break;
            default:
                return false;
        }
    }
    return true;
}

template <bool kWithTexts>
__attribute__((always_inline)) inline unsigned char *CompactEncoder::codeValues(
    unsigned char *out, const CallPlan &plan, const int64_t *values, const uint32_t *textIndices) {
    // Locals, as every byte written through out could alias the members.
    int64_t *const fields = fields_.data() + plan.fieldBase;
    int64_t *const previousIds = previousIds_;
    const compact::ShapeAttribute *const attributes = plan.attributes;
    const uint32_t own = plan.own;
    for (uint32_t index = 0; index < own; ++index) {
        const uint8_t coding = attributes[index].coding;
        if (kWithTexts && coding == kText) {
            out = compact::putVarint(out, textIndices[index]);
            continue;
        }
        const int64_t value = values[index];
        int64_t difference;
        if (coding == kFieldDelta) {
            int64_t &previous = fields[index];
            difference = wrappingDifference(value, previous);
            previous = value;
        } else if (coding >= kIdDelta) {
            int64_t &previous = previousIds[coding - kIdDelta];
            difference = wrappingDifference(value, previous);
            previous = value;
        } else {
            difference = value;
        }
        out = compact::putVarint(out, zigzag(difference));
    }
    return out;
}

__attribute__((always_inline)) inline unsigned char *CompactEncoder::codeElement(
    unsigned char *out, uint64_t code, const CallPlan &plan, const int64_t *values,
    std::string_view texts) {
    if (plan.hasText) return codeElementWithTexts(out, code, plan, values, texts);
    out = compact::putVarint(out, code);
    return codeValues<false>(out, plan, values, nullptr);
}

unsigned char *CompactEncoder::codeElementWithTexts(unsigned char *out, uint64_t code,
                                                    const CallPlan &plan, const int64_t *values,
                                                    std::string_view texts) {
    // As encodeElement: the strings the frame lacks defined before the
    // element, in the order of its attributes; a text's value is its index.
    uint32_t indices[kMaxFastFields];
    const auto intern = [&](uint32_t index) {
        const std::string_view text = typedText(texts, values[index]);
        // Mostly the text this attribute had last time: no hash, no lookup.
        CachedString &last = lastTexts_[plan.fieldBase + index];
        if (last.frame == frameNumber_ && last.text == text) {
            indices[index] = last.index;
            return;
        }
        const auto [stringIndex, added] = internString(text);
        if (added) out = putStringDefinition(out, text);
        last.text.assign(text);
        last.index = stringIndex;
        last.frame = frameNumber_;
        indices[index] = stringIndex;
    };
    for (uint32_t text = 0; text < plan.textCount; ++text)
        intern(plan.textAt[text]);
    out = compact::putVarint(out, code);
    return codeValues<true>(out, plan, values, indices);
}

template <bool kWithTexts>
__attribute__((always_inline)) inline unsigned char *CompactEncoder::codeNestedBlock(
    unsigned char *out, int64_t start, const Nested &nested, std::string_view texts,
    int64_t *endBase) {
    // As encode() codes <Nested> and its leaf states: the call's start
    // first, then each time after the previous time, each end after its
    // start; the call's end comes after the block's last end.
    out = openBlock(out, start);
    const int64_t *nestedValues = nested.values;
    for (uint32_t state = 0; state < nested.count; ++state) {
        const CallPlan &statePlan = *nested.plans[state];
        const int64_t stateStart = nested.times[2 * state];
        const int64_t stateEnd = nested.times[2 * state + 1];
        const uint64_t code = kFirstElementCode + 2 * uint64_t{statePlan.shape};
        if (kWithTexts) {
            out = codeElement(out, code, statePlan, nestedValues, texts);
        } else {
            out = compact::putVarint(out, code);
            out = codeValues<false>(out, statePlan, nestedValues, nullptr);
        }
        out = compact::putVarint(out, zigzag(wrappingDifference(stateStart, previousTime_)));
        out = compact::putVarint(out, zigzag(wrappingDifference(stateEnd, stateStart)));
        previousTime_ = stateEnd;
        nestedValues += statePlan.own;
    }
    *out++ = static_cast<unsigned char>(kNestedClose);
    *endBase = closeBlock(start);
    return out;
}

HDTRACE_CALL_PATH unsigned char *CompactEncoder::codeCall(unsigned char *out, const CallPlan &plan,
                                                          const int64_t *values, int64_t start,
                                                          int64_t end, const Children &children,
                                                          const Nested &nested,
                                                          std::string_view texts) {
    int64_t endBase = start;
    if (nested.count > 0) out = codeNestedBlock<true>(out, start, nested, texts, &endBase);
    const bool open = children.count > 0;
    out = codeElement(out, kFirstElementCode + 2 * uint64_t{plan.shape} + (open ? 1 : 0), plan,
                      values, texts);
    out = compact::putVarint(out, zigzag(wrappingDifference(start, previousTime_)));
    out = compact::putVarint(out, zigzag(wrappingDifference(end, endBase)));
    previousTime_ = end;
    if (!open) return out;
    const int64_t *childValues = children.values;
    for (uint32_t child = 0; child < children.count; ++child) {
        const CallPlan &childPlan = *children.plans[child];
        out = codeElement(out, kFirstElementCode + 2 * uint64_t{childPlan.shape}, childPlan,
                          childValues, texts);
        childValues += childPlan.own;
    }
    *out++ = static_cast<unsigned char>(kEndElement);
    return out;
}

__attribute__((always_inline)) inline size_t CompactEncoder::maxCallBytes(const CallPlan &plan,
                                                                          const Children &children,
                                                                          const Nested &nested,
                                                                          std::string_view texts) {
    // Each text may need its string defined: its bytes and two varints.
    const auto textBytes = [](const CallPlan &of) {
        return of.hasText ? 2 * kMaxVarintBytes * of.own : 0;
    };
    size_t maxBytes = plan.maxBytes + 1 + texts.size() + textBytes(plan);
    for (uint32_t child = 0; child < children.count; ++child)
        maxBytes += children.plans[child]->maxBytes + textBytes(*children.plans[child]);
    if (nested.count > 0) maxBytes += kMaxBlockOpenBytes + 1;  // </Nested> is one byte
    for (uint32_t state = 0; state < nested.count; ++state)
        maxBytes += nested.plans[state]->maxBytes + textBytes(*nested.plans[state]);
    return maxBytes;
}

HDTRACE_CALL_PATH int CompactEncoder::appendCall(const CallPlan &plan, const int64_t *values,
                                                 int64_t start, int64_t end,
                                                 const Children &children, const Nested &nested,
                                                 std::string_view texts) {
    // In place when the frame being filled has room; a record that starts
    // a frame (with the Program and fresh tables) takes the general way.
    const size_t maxBytes = maxCallBytes(plan, children, nested, texts);
    unsigned char *const begin = sink_.claim(maxBytes);
    if (!begin)
        return appendCallRecord(plan, values, start, end, children, nested, texts, maxBytes);
    unsigned char *const out = codeCall(begin, plan, values, start, end, children, nested, texts);
    return sink_.commit(static_cast<size_t>(out - begin), start);
}

HDTRACE_CALL_PATH int CompactEncoder::appendNestedCall(const CallPlan &plan, const int64_t *values,
                                                       int64_t start, int64_t end,
                                                       const Nested &nested,
                                                       std::string_view texts) {
    // Elements with texts take appendCall's way; the others claim the bytes
    // appendCall claims, so that frames end where they did.
    bool withTexts = plan.hasText;
    for (uint32_t state = 0; state < nested.count; ++state)
        withTexts |= nested.plans[state]->hasText;
    unsigned char *const begin = HDTRACE_UNLIKELY(withTexts)
                                     ? nullptr
                                     : sink_.claim(maxCallBytes(plan, Children{}, nested, texts));
    if (HDTRACE_UNLIKELY(!begin))
        return appendCall(plan, values, start, end, Children{}, nested, texts);
    int64_t endBase;
    unsigned char *out = codeNestedBlock<false>(begin, start, nested, texts, &endBase);
    out = compact::putVarint(out, kFirstElementCode + 2 * uint64_t{plan.shape});
    out = codeValues<false>(out, plan, values, nullptr);
    out = compact::putVarint(out, zigzag(wrappingDifference(start, previousTime_)));
    out = compact::putVarint(out, zigzag(wrappingDifference(end, endBase)));
    previousTime_ = end;
    return sink_.commit(static_cast<size_t>(out - begin), start);
}

__attribute__((always_inline)) inline int CompactEncoder::commitLeaf(unsigned char *begin,
                                                                     unsigned char *out,
                                                                     int64_t start, int64_t end) {
    out = compact::putVarint(out, zigzag(wrappingDifference(start, previousTime_)));
    out = compact::putVarint(out, zigzag(wrappingDifference(end, start)));
    previousTime_ = end;
    return sink_.commit(static_cast<size_t>(out - begin), start);
}

HDTRACE_CALL_PATH int CompactEncoder::appendLeafNumbers(const CallPlan &plan, const int64_t *values,
                                                        int64_t start, int64_t end) {
    // plan.maxBytes holds the element's code, its values and both times;
    // the byte more is appendCall's, so that frames end where they did.
    const size_t maxBytes = plan.maxBytes + 1;
    unsigned char *const begin = sink_.claim(maxBytes);
    if (!begin)
        return appendCallRecord(plan, values, start, end, Children{}, Nested{}, {}, maxBytes);
    unsigned char *out = compact::putVarint(begin, kFirstElementCode + 2 * uint64_t{plan.shape});
    out = codeValues<false>(out, plan, values, nullptr);
    return commitLeaf(begin, out, start, end);
}

HDTRACE_CALL_PATH int CompactEncoder::appendLeafWithTexts(const CallPlan &plan,
                                                          const int64_t *values, int64_t start,
                                                          int64_t end, std::string_view texts) {
    const size_t maxBytes = maxCallBytes(plan, Children{}, Nested{}, texts);
    unsigned char *const begin = sink_.claim(maxBytes);
    if (!begin)
        return appendCallRecord(plan, values, start, end, Children{}, Nested{}, texts, maxBytes);
    unsigned char *out = codeElementWithTexts(begin, kFirstElementCode + 2 * uint64_t{plan.shape},
                                              plan, values, texts);
    return commitLeaf(begin, out, start, end);
}

int CompactEncoder::appendCallRecord(const CallPlan &plan, const int64_t *values, int64_t start,
                                     int64_t end, const Children &children, const Nested &nested,
                                     std::string_view texts, size_t maxBytes) {
    return appendRecord(
        [this, &plan, values, start, end, &children, &nested, texts, maxBytes] {
            beginRecord();
            unsigned char *out = reinterpret_cast<unsigned char *>(record_.reserve(maxBytes));
            record_.commit(reinterpret_cast<char *>(
                codeCall(out, plan, values, start, end, children, nested, texts)));
            return true;
        },
        start);
}

template <class Encode>
int CompactEncoder::appendRecord(Encode encode, int64_t time) {
    if (sink_.pendingBytes() == 0) startFrame();
    if (!encode()) return EINVAL;
    if (record_.size() > sink_.frameBytes() - sink_.pendingBytes()) {
        // The record opens the next frame, encoded again with fresh tables.
        // The frame being filled ends first, whatever the sink would do
        // with the new coding: it may be shorter and fit after all (values
        // coded from zero, not from far-off previous ones), or be refused
        // as larger than a frame; either way the records after it must
        // not join a frame coded with the old tables.
        if (const int error = sink_.closeFrame()) return error;
        startFrame();
        encode();
    }
    const int error = sink_.append(record_.data(), record_.size(), time);
    if (error == 0) frameStarts_ = false;
    return error;
}

int CompactEncoder::append(std::string_view items, int64_t time) {
    return appendRecord([this, items] { return encode(items); }, time);
}

int CompactEncoder::appendElement(std::string_view name, std::string_view entries, int64_t time) {
    return appendRecord(
        [this, name, entries] {
            beginRecord();
            return encodeElement(name, entries.data(), entries.data() + entries.size(), false);
        },
        time);
}

}  // namespace hdtrace
