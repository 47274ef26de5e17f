#include <gtest/gtest.h>

#include <hdtrace/reader/DecimalNumber.hpp>

using namespace hdtrace::reader;

TEST(DecimalNumber, NineDigitsAreExact) {
    auto parsed = parseDecimalSeconds("1.000000001");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->nanoseconds, 1000000001);
    EXPECT_EQ(parsed->fractionDigits, 9);
}

TEST(DecimalNumber, SixDigitsOfTheOriginal) {
    auto parsed = parseDecimalSeconds("0.954082");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->nanoseconds, 954082000);
    EXPECT_EQ(parsed->fractionDigits, 6);
}

TEST(DecimalNumber, AbsoluteTimesOfTheSeedDoNotLosePrecision) {
    auto parsed = parseDecimalSeconds("1240497420.078912");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->nanoseconds, 1240497420078912000);
}

TEST(DecimalNumber, NegativeAndWholeAndTruncated) {
    EXPECT_EQ(parseDecimalSeconds("-0.899999000")->nanoseconds, -899999000);
    EXPECT_EQ(parseDecimalSeconds("1247131125")->nanoseconds, 1247131125000000000);
    EXPECT_EQ(parseDecimalSeconds("0.0000000019")->nanoseconds, 1);  // beyond 9 digits: cut
    EXPECT_EQ(parseDecimalSeconds(".5")->nanoseconds, 500000000);
}

TEST(DecimalNumber, RejectsWhatIsNotADecimal) {
    for (const char *text :
         {"", "-", ".", "1e5", "1.", " 1", "1 ", "+1", "0x10", "1.2.3", "99999999999999999999"})
        EXPECT_FALSE(parseDecimalSeconds(text)) << text;
}

TEST(DecimalNumber, Integers) {
    EXPECT_EQ(parseInteger("-1081297628"), -1081297628);
    EXPECT_EQ(parseInteger("9223372036854775807"), INT64_MAX);
    EXPECT_FALSE(parseInteger("9223372036854775808"));
    EXPECT_FALSE(parseInteger("12a"));
    EXPECT_FALSE(parseInteger("+3"));
    EXPECT_FALSE(parseInteger(""));
}
