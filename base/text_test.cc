#include "base/text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/strings.h"

namespace acldump {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(Utf8Test, SequenceLengthAcceptsWellFormedAndRejectsTheRest) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xc3\xa9", 0), 2u);          // é
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82\xac", 0), 3u);      // €
  EXPECT_EQ(Utf8SequenceLength("\xf0\x9f\x98\x80", 0), 4u);  // emoji
  for (std::string_view bad :
       {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
        "\x80", "\xe0\x80\x80", "\xf0\x80\x80\x80"}) {
    EXPECT_EQ(Utf8SequenceLength(bad, 0), 0u) << Printable(bad);
  }
}

TEST(Utf8Test, IsUtf8TakesWholeTextOnly) {
  EXPECT_TRUE(IsUtf8(""));
  EXPECT_TRUE(IsUtf8("r\xc3\xa9sultats/\xe4\xb8\xad"));
  EXPECT_FALSE(IsUtf8("r\xe9sultats"));  // Latin-1
  EXPECT_FALSE(IsUtf8("abc\xe4\xb8"));   // truncated at the end
  EXPECT_FALSE(IsUtf8("\xed\xa0\x80"));  // a surrogate
}

TEST(Utf8Test, CharsCountsCodePoints) {
  EXPECT_EQ(Utf8Chars(""), 0u);
  EXPECT_EQ(Utf8Chars("abc"), 3u);
  EXPECT_EQ(Utf8Chars("\xc3\xa9t\xc3\xa9"), 3u);
}

TEST(PrintableTest, EscapesControlAndIllFormedBytes) {
  EXPECT_EQ(Printable("plain"), "plain");
  EXPECT_EQ(Printable("a\nb\tc\x01\x7f"), "a\\nb\\tc\\x01\\x7f");
  EXPECT_EQ(Printable("\xff\xc3\xa9"), "\\xff\xc3\xa9");
  EXPECT_EQ(Printable(std::string_view("a\0b", 3)), "a\\x00b");
}

TEST(PrintableTest, CutsLongTextAndSaysHowLongItWas) {
  EXPECT_EQ(Printable(std::string(10, 'x'), 4), "xxxx... (10 bytes)");
  EXPECT_EQ(Printable("abcd", 4), "abcd");
  // Characters, not bytes: two-byte characters count once.
  EXPECT_EQ(Printable("\xc3\xa9\xc3\xa9\xc3\xa9", 2),
            "\xc3\xa9\xc3\xa9... (6 bytes)");
  EXPECT_EQ(Quote(std::string(100, 'k')),
            StrCat("'", std::string(80, 'k'), "... (100 bytes)'"));
}

TEST(QuoteTest, QuotesAndLists) {
  EXPECT_EQ(Quote("it"), "'it'");
  EXPECT_EQ(Quote("a\nb"), "'a\\nb'");
  EXPECT_EQ(QuotedList({}), "");
  EXPECT_EQ(QuotedList({"on", "off"}), "'on', 'off'");
}

TEST(PluralTest, AddsAnSExceptForOne) {
  EXPECT_EQ(Plural(0, "model"), "0 models");
  EXPECT_EQ(Plural(1, "model"), "1 model");
  EXPECT_EQ(Plural(2, "layer list"), "2 layer lists");
}

TEST(EditDistanceTest, CountsEdits) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("dump_pth", "dump_path"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("same", "same"), 0u);
  EXPECT_EQ(AsciiLower("Dump_MODE-1\xc3\x89"), "dump_mode-1\xc3\x89");
}

const std::vector<std::string_view> kKeys = {
    "dump_path",  "dump_mode", "dump_op_switch", "dump_step", "dump_data",
    "dump_stats", "dump_list", "dump_scene",     "dump_debug"};

TEST(NearestWordTest, SuggestsLikelyTypos) {
  EXPECT_EQ(NearestWord("dump_pth", kKeys), "dump_path");
  EXPECT_EQ(NearestWord("Dump_Mode", kKeys), "dump_mode");  // case-insensitive
  EXPECT_EQ(NearestWord("dump_steps", kKeys), "dump_step");
  EXPECT_EQ(NearestWord("op_switch", kKeys), "dump_op_switch");  // contained
  EXPECT_EQ(NearestWord("scene", kKeys), "dump_scene");          // contained
  EXPECT_EQ(NearestWord("dump_stat", kKeys), "dump_stats");
}

TEST(NearestWordTest, NoSuggestionForUnrelatedOrHugeWords) {
  EXPECT_EQ(NearestWord("verbose", kKeys), std::nullopt);
  EXPECT_EQ(NearestWord("zzz", kKeys), std::nullopt);
  EXPECT_EQ(NearestWord(std::string(65, 'd'), kKeys), std::nullopt);
  EXPECT_EQ(NearestWord("dump_path", {}), std::nullopt);
  // Short words: containment needs 4 characters on both sides.
  EXPECT_EQ(NearestWord("mp", kKeys), std::nullopt);
}

TEST(NearestWordsTest, NearestFirstWithoutDuplicates) {
  const std::vector<std::string_view> ops = {"conv1", "conv2",  "relu1",
                                             "conv1", "conv12", "fc"};
  EXPECT_THAT(NearestWords("conv", ops, 3),
              ElementsAre("conv1", "conv2", "conv12"));
  EXPECT_THAT(NearestWords("conv3", ops, 2), ElementsAre("conv1", "conv2"));
  EXPECT_THAT(NearestWords("relu", ops, 5), ElementsAre("relu1"));
  EXPECT_THAT(NearestWords("conv", ops, 0), IsEmpty());
  EXPECT_THAT(NearestWords("softmax", ops, 3), IsEmpty());
}

TEST(TextTest, TrimAndSplit) {
  EXPECT_EQ(TrimWhitespace(" \t x y\r\n"), "x y");
  EXPECT_EQ(TrimWhitespace("   "), "");
  EXPECT_THAT(SplitOn("a,,b,", ','), ElementsAre("a", "", "b", ""));
  EXPECT_THAT(SplitOn("", ';'), ElementsAre(""));
}

TEST(StrCatTest, AppendsTextIntegersAndTheRestAsFmtWould) {
  const std::string text = "str";
  const char* c_string = "cs";
  EXPECT_EQ(StrCat(text, std::string_view("sv"), absl::string_view("asv"),
                   c_string, "lit", 'c'),
            "strsvasvcslitc");
  EXPECT_EQ(StrCat(int64_t{-9223372036854775807} - 1, ",",
                   uint64_t{18446744073709551615u}, ",", uint8_t{200}, ",",
                   int8_t{-5}, ",", 0, ",", true, false),
            "-9223372036854775808,18446744073709551615,200,-5,0,truefalse");
  for (const double value : {1.0, 0.1, -2.5e-7, 1e20, 123456789.0}) {
    EXPECT_EQ(StrCat(value), fmt::format("{}", value));
  }
  std::string out = "a";
  StrAppend(out, 42, "b", size_t{7});
  EXPECT_EQ(out, "a42b7");
}

}  // namespace
}  // namespace acldump
