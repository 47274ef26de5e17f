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
