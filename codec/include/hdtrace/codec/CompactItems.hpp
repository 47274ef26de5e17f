// CompactItems: how TraceWriter holds the parts of a state in compact mode
// until the state ends (its attributes, its children, its nested states),
// in the per-depth buffers that hold the XML text in XML mode. Values stay
// typed and times stay nanoseconds; CompactEncoder turns a finished
// top-level state into a record. Only this process reads these bytes, so
// they are in host order and fixed width, cheap to write and to walk.
//
//   item    := op:u8, then for kLeaf and kOpen: nameLength:u32 name
//              entriesLength:u32 entries (kOpen: the children items and
//              kEndItem follow)
//   entry   := coding:u8 (compact::Coding: kInteger, kText, kTime, kEnd,
//              kRaw) nameLength:u32 name value
//   value   := int64 (kInteger, kTime, kEnd) | length:u32 bytes (kText, kRaw)
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

namespace hdtrace::compact_items {

enum Op : uint8_t { kLeaf = 1, kOpen = 2, kEndItem = 3, kNestedOpen = 4, kNestedClose = 5 };

inline char *putU32(char *out, uint32_t value) {
    std::memcpy(out, &value, 4);
    return out + 4;
}
inline uint32_t getU32(const char *in) {
    uint32_t value;
    std::memcpy(&value, in, 4);
    return value;
}
inline int64_t getI64(const char *in) {
    int64_t value;
    std::memcpy(&value, in, 8);
    return value;
}

// Whether two short names are equal, without a call: names of calls and
// attributes are mostly under 16 bytes.
inline bool sameName(std::string_view a, std::string_view b) {
    const size_t size = a.size();
    if (size != b.size()) return false;
    const char *x = a.data();
    const char *y = b.data();
    if (size >= 8) {
        size_t i = 0;
        for (; i + 8 < size; i += 8) {
            uint64_t u, v;
            std::memcpy(&u, x + i, 8);
            std::memcpy(&v, y + i, 8);
            if (u != v) return false;
        }
        uint64_t u, v;
        std::memcpy(&u, x + size - 8, 8);
        std::memcpy(&v, y + size - 8, 8);
        return u == v;
    }
    if (size >= 4) {
        uint32_t u1, v1, u2, v2;
        std::memcpy(&u1, x, 4);
        std::memcpy(&v1, y, 4);
        std::memcpy(&u2, x + size - 4, 4);
        std::memcpy(&v2, y + size - 4, 4);
        return u1 == v1 && u2 == v2;
    }
    for (size_t i = 0; i < size; ++i)
        if (x[i] != y[i]) return false;
    return true;
}

// sameName for a name the caller passes as a literal: mostly the very
// literal the dialect's tables hold (the linker merges equal strings), and
// then its text is not read. Where the kernel isolates its page tables,
// every page costs a walk again after a system call, and the names lie on
// pages of their own.
inline bool sameNameOrLiteral(std::string_view expected, std::string_view name) {
    if (expected.data() == name.data()) return expected.size() == name.size();
    return sameName(expected, name);
}

inline void putNumber(TextBuffer &out, uint8_t coding, std::string_view name, int64_t value) {
    char *p = out.reserve(1 + 4 + name.size() + 8);
    *p++ = static_cast<char>(coding);
    p = putU32(p, static_cast<uint32_t>(name.size()));
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    std::memcpy(p, &value, 8);
    out.commit(p + 8);
}

inline void putText(TextBuffer &out, uint8_t coding, std::string_view name, std::string_view text) {
    char *p = out.reserve(1 + 4 + name.size() + 4 + text.size());
    *p++ = static_cast<char>(coding);
    p = putU32(p, static_cast<uint32_t>(name.size()));
    std::memcpy(p, name.data(), name.size());
    p = putU32(p + name.size(), static_cast<uint32_t>(text.size()));
    std::memcpy(p, text.data(), text.size());
    out.commit(p + text.size());
}

// Attribute text given as it is to be written (" a='1' b='x'"): kept as
// typed attributes when it is exactly such a list whose values the XML
// escaping leaves as they are, else as one kRaw entry.
void putRawAttributes(TextBuffer &out, std::string_view text);

// Starts an element item; returns where its entries' length goes, for
// endElement().
inline size_t beginElement(TextBuffer &out, Op op, std::string_view name) {
    char *p = out.reserve(1 + 4 + name.size() + 4);
    *p++ = static_cast<char>(op);
    p = putU32(p, static_cast<uint32_t>(name.size()));
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    const size_t lengthAt = static_cast<size_t>(p - out.data());
    out.commit(p + 4);
    return lengthAt;
}
inline void endElement(TextBuffer &out, size_t lengthAt) {
    putU32(const_cast<char *>(out.data()) + lengthAt,
           static_cast<uint32_t>(out.size() - lengthAt - 4));
}
inline void putOp(TextBuffer &out, Op op) {
    out.append(static_cast<char>(op));
}

}  // namespace hdtrace::compact_items
