#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/codec/Format.hpp>

namespace hdtrace {
namespace {

std::string integerText(int64_t value) {
    std::string out;
    appendInteger(out, value);
    return out;
}

std::string timeText(int64_t nanoseconds) {
    char text[kMaxNumberChars];
    return std::string(text, formatRelativeTime(text, nanoseconds));
}

TEST(Format, IntegersMatchPrintf) {
    const int64_t samples[] = {0,
                               1,
                               9,
                               10,
                               99,
                               100,
                               -1,
                               -10,
                               12345678,
                               1275069445,
                               -1946157050,
                               std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min()};
    for (int64_t value : samples) {
        char expected[32];
        std::snprintf(expected, sizeof expected, "%lld", static_cast<long long>(value));
        EXPECT_EQ(integerText(value), expected);
    }
    for (int64_t value = -1000; value <= 100000; value += 7) {
        EXPECT_EQ(integerText(value), std::to_string(value));
    }
}

TEST(Format, TimesHaveNineFractionDigitsAndNoExponent) {
    EXPECT_EQ(timeText(0), "0.000000000");
    EXPECT_EQ(timeText(1), "0.000000001");
    EXPECT_EQ(timeText(1500000000), "1.500000000");
    EXPECT_EQ(timeText(123456789012345), "123456.789012345");
    EXPECT_EQ(timeText(-250000000), "-0.250000000");
    EXPECT_EQ(timeText(-1000000001), "-1.000000001");
}

// The byte-by-byte reading of the escaping rules, to hold the word-at-a-time
// scan to: every byte of ASCII as itself or its reference; other bytes are
// left to escapeXml's own UTF-8 check, so the strings here avoid them.
std::string escapedByteByByte(std::string_view text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '\'':
                out += "&apos;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\t':
                out += "&#x9;";
                break;
            case '\n':
                out += "&#xA;";
                break;
            case '\r':
                out += "&#xD;";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    const unsigned picture = 0x2400u + static_cast<unsigned char>(c);
                    out += static_cast<char>(0xE0 | (picture >> 12));
                    out += static_cast<char>(0x80 | ((picture >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (picture & 0x3F));
                } else {
                    out += c;
                }
        }
    }
    return out;
}

TEST(Format, EscapesEveryByteWhereverItFallsInAWord) {
    // Each ASCII byte at each place of a plain text of every length up to
    // 40, alone and beside a byte to escape: the scan by blocks finds it
    // wherever it falls (in the overlap of the last two blocks as well),
    // and finds none where there is none.
    for (size_t length = 1; length <= 40; ++length) {
        for (size_t at = 0; at < length; ++at) {
            for (int c = 0; c < 0x80; ++c) {
                std::string text(length, 'a');
                text[at] = static_cast<char>(c);
                ASSERT_EQ(xmlEscaped(text), escapedByteByByte(text))
                    << "byte " << c << " at " << at << " of " << length;
                if (at + 9 < length) {
                    text[at + 9] = '<';
                    ASSERT_EQ(xmlEscaped(text), escapedByteByByte(text))
                        << "byte " << c << " at " << at << " of " << length << ", '<' after";
                }
            }
        }
    }
    // A byte of UTF-8 in any place of a word still takes the UTF-8 check.
    for (size_t at = 0; at < 16; ++at) {
        std::string text(16, 'b');
        text.replace(at, 0, "\xc3\xa9");
        EXPECT_EQ(xmlEscaped(text), text);
        text[at] = '\xe9';
        text.erase(at + 1, 1);
        std::string latin = text;
        latin.replace(at, 1, "\xc3\xa9");
        EXPECT_EQ(xmlEscaped(text), latin);
    }
}

TEST(Format, EscapesMarkupCharacters) {
    EXPECT_EQ(xmlEscaped("a&b<c>d'e\"f"), "a&amp;b&lt;c&gt;d&apos;e&quot;f");
    EXPECT_EQ(xmlEscaped("plain/file.name"), "plain/file.name");
    EXPECT_EQ(xmlEscaped(""), "");
}

TEST(Format, KeepsWhitespaceAsCharacterReferences) {
    EXPECT_EQ(xmlEscaped("a\tb\nc\rd"), "a&#x9;b&#xA;c&#xD;d");
}

TEST(Format, MapsOtherControlCharactersToControlPictures) {
    // U+2401 (SYMBOL FOR START OF HEADING) for 0x01, U+2400 for NUL.
    EXPECT_EQ(xmlEscaped(std::string("x\x01y", 3)), "x\xe2\x90\x81y");
    EXPECT_EQ(xmlEscaped(std::string("\0", 1)), "\xe2\x90\x80");
}

TEST(Format, KeepsValidUtf8) {
    const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";  // café € 😀
    EXPECT_EQ(xmlEscaped(text), text);
}

TEST(Format, ReadsInvalidUtf8AsLatin1) {
    EXPECT_EQ(xmlEscaped("caf\xe9"), "caf\xc3\xa9");                    // lone Latin-1 byte
    EXPECT_EQ(xmlEscaped("\xc3"), "\xc3\x83");                          // truncated sequence
    EXPECT_EQ(xmlEscaped("\xc0\xaf"), "\xc3\x80\xc2\xaf");              // overlong '/'
    EXPECT_EQ(xmlEscaped("\xed\xa0\x80"), "\xc3\xad\xc2\xa0\xc2\x80");  // surrogate
    EXPECT_EQ(xmlEscaped("\xef\xbf\xbe"), "\xc3\xaf\xc2\xbf\xc2\xbe");  // U+FFFE
}

}  // namespace
}  // namespace hdtrace
