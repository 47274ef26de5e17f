// CRC-32C (Castagnoli polynomial, reflected), as iSCSI and ext4 use it: the
// SSE4.2 instruction where the CPU has it, else eight tables built at
// compile time (no initialisation at run time, so a signal handler may call
// it at any moment).
#include <array>
#include <cstring>

#include <hdtrace/codec/FrameFormat.hpp>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace hdtrace::frames {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // 0x1EDC6F41 reflected

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables makeTables() {
    Tables tables{};
    for (uint32_t byte = 0; byte < 256; ++byte) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
        tables[0][byte] = crc;
    }
    for (size_t table = 1; table < 8; ++table)
        for (uint32_t byte = 0; byte < 256; ++byte)
            tables[table][byte] =
                (tables[table - 1][byte] >> 8) ^ tables[0][tables[table - 1][byte] & 0xFF];
    return tables;
}

constexpr Tables kTables = makeTables();

uint32_t crcByTables(const unsigned char *in, size_t length, uint32_t crc) {
    while (length >= 8) {
        uint32_t low;
        uint32_t high;
        std::memcpy(&low, in, 4);
        std::memcpy(&high, in + 4, 4);
        low ^= crc;  // little-endian hosts only: x86-64 and aarch64
        crc = kTables[7][low & 0xFF] ^ kTables[6][(low >> 8) & 0xFF] ^
              kTables[5][(low >> 16) & 0xFF] ^ kTables[4][low >> 24] ^ kTables[3][high & 0xFF] ^
              kTables[2][(high >> 8) & 0xFF] ^ kTables[1][(high >> 16) & 0xFF] ^
              kTables[0][high >> 24];
        in += 8;
        length -= 8;
    }
    while (length-- > 0)
        crc = (crc >> 8) ^ kTables[0][(crc ^ *in++) & 0xFF];
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crcByInstruction(const unsigned char *in, size_t length,
                                                            uint32_t crc) {
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        std::memcpy(&word, in, 8);
        wide = _mm_crc32_u64(wide, word);
        in += 8;
        length -= 8;
    }
    crc = static_cast<uint32_t>(wide);
    while (length-- > 0)
        crc = _mm_crc32_u8(crc, *in++);
    return crc;
}

// Decided before main(), so that no call decides it later in a signal handler.
const bool kHasSse42 = __builtin_cpu_supports("sse4.2");
#endif

}  // namespace

uint32_t crc32c(const void *data, size_t length, uint32_t crc) {
    const auto *in = static_cast<const unsigned char *>(data);
    crc = ~crc;
#if defined(__x86_64__)
    if (kHasSse42) return ~crcByInstruction(in, length, crc);
#endif
    return ~crcByTables(in, length, crc);
}

}  // namespace hdtrace::frames
