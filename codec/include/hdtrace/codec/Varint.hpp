// Varint: the variable-length integers of compact traces, in their records
// (CompactFormat.hpp) and in their container's headers and index
// (FrameFormat.hpp): 7 bits a byte, low bits first, the high bit set when
// another byte follows (LEB128); signed values zigzag-coded, so that small
// negative numbers stay short.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hdtrace {

constexpr size_t kMaxVarintBytes = 10;

inline uint64_t zigzag(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}
inline int64_t unzigzag(uint64_t value) {
    return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}
inline unsigned char *putVarint(unsigned char *out, uint64_t value) {
    while (value >= 0x80) {
        *out++ = static_cast<unsigned char>(value | 0x80);
        value >>= 7;
    }
    *out++ = static_cast<unsigned char>(value);
    return out;
}
// Reads a varint from [*in, end); false when it runs past end or past ten
// bytes, or does not fit in 64 bits.
inline bool getVarint(const unsigned char **in, const unsigned char *end, uint64_t *value) {
    uint64_t result = 0;
    const unsigned char *p = *in;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p == end) return false;
        const unsigned char byte = *p++;
        if (shift == 63 && byte > 1) return false;
        result |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *in = p;
            *value = result;
            return true;
        }
    }
    return false;
}

}  // namespace hdtrace
