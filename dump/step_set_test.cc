#include "dump/step_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "base/strings.h"

namespace acldump::dump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

std::string Message(const absl::Status& status) {
  return std::string(ToStd(status.message()));
}

TEST(StepSetTest, ParsesValuesAndRanges) {
  const absl::StatusOr<StepSet> simple = StepSet::Parse("0|5|10");
  ASSERT_TRUE(simple.ok()) << simple.status();
  EXPECT_THAT(simple->ranges(),
              ElementsAre(Pair(0u, 0u), Pair(5u, 5u), Pair(10u, 10u)));
  EXPECT_EQ(simple->ToString(), "0|5|10");

  const absl::StatusOr<StepSet> ranged = StepSet::Parse("0|3-5|10");
  ASSERT_TRUE(ranged.ok()) << ranged.status();
  EXPECT_THAT(ranged->ranges(),
              ElementsAre(Pair(0u, 0u), Pair(3u, 5u), Pair(10u, 10u)));
  EXPECT_EQ(ranged->ToString(), "0|3-5|10");
  for (uint64_t i : {0, 3, 4, 5, 10}) EXPECT_TRUE(ranged->Contains(i)) << i;
  for (uint64_t i : {1, 2, 6, 9, 11, 1000})
    EXPECT_FALSE(ranged->Contains(i)) << i;
  EXPECT_FALSE(ranged->Contains(std::numeric_limits<uint64_t>::max()));
}

TEST(StepSetTest, SortsAndMergesOverlappingAndAdjacentRanges) {
  const absl::StatusOr<StepSet> steps =
      StepSet::Parse("9|3|4|5|7-8|1-2|20-30|25|00");
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_THAT(steps->ranges(),
              ElementsAre(Pair(0u, 5u), Pair(7u, 9u), Pair(20u, 30u)));
  EXPECT_EQ(steps->ToString(), "0-5|7-9|20-30");
  EXPECT_EQ(*steps, *StepSet::Parse(steps->ToString()));
  EXPECT_EQ(StepSet::Parse("4-4")->ToString(), "4");
}

TEST(StepSetTest, HandlesTheWholeUint64Range) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const absl::StatusOr<StepSet> all = StepSet::Parse("0-18446744073709551615");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->Contains(0));
  EXPECT_TRUE(all->Contains(kMax));
  const absl::StatusOr<StepSet> top =
      StepSet::Parse("18446744073709551615|18446744073709551614|5");
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_THAT(top->ranges(), ElementsAre(Pair(5u, 5u), Pair(kMax - 1, kMax)));
  EXPECT_TRUE(top->Contains(kMax));
  EXPECT_FALSE(top->Contains(kMax - 2));
}

TEST(StepSetTest, ContainsAgreesWithALinearScan) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::string text;
    std::vector<std::pair<uint64_t, uint64_t>> written;
    const int items = 1 + random() % 100;
    for (int i = 0; i < items; ++i) {
      const uint64_t a = random() % 300;
      const uint64_t b = a + random() % 5;
      written.emplace_back(a, b);
      StrAppend(text, i ? "|" : "", a);
      if (a != b || random() % 2) StrAppend(text, "-", b);
    }
    const absl::StatusOr<StepSet> steps = StepSet::Parse(text);
    ASSERT_TRUE(steps.ok()) << text << ": " << steps.status();
    for (uint64_t i = 0; i < 310; ++i) {
      bool expected = false;
      for (const auto& [a, b] : written) expected |= a <= i && i <= b;
      ASSERT_EQ(steps->Contains(i), expected) << text << " at " << i;
    }
    for (size_t i = 1; i < steps->ranges().size(); ++i) {
      EXPECT_GT(steps->ranges()[i].first, steps->ranges()[i - 1].second + 1);
    }
  }
}

TEST(StepSetTest, AtMostOneHundredItems) {
  std::string text = "0";
  for (int i = 1; i < 100; ++i) StrAppend(text, "|", i * 3);
  EXPECT_TRUE(StepSet::Parse(text).ok());
  StrAppend(text, "|1000");
  const absl::StatusOr<StepSet> over = StepSet::Parse(text);
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(Message(over.status()),
              HasSubstr("the step list has 101 items; at most 100"));
}

TEST(StepSetTest, ErrorsNameTheItem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "the step list is empty"},
      {"5-3", "item 1 of 1 ('5-3'): range start 5 is greater than its end 3"},
      {"0|5-3|10", "item 2 of 3 ('5-3'): range start 5"},
      {"-1", "item 1 of 1 ('-1'): the range has no start (negative steps"},
      {"1|-2-5", "item 2 of 2 ('-2-5'): has more than one '-'"},
      {"3-", "item 1 of 1 ('3-'): the range has no end"},
      {"1-2-3", "item 1 of 1 ('1-2-3'): has more than one '-'"},
      {"5||10", "item 2 of 3 (''): is empty"},
      {"|5", "item 1 of 2 (''): is empty"},
      {"5|", "item 2 of 2 (''): is empty"},
      {"a", "item 1 of 1 ('a'): 'a' is not allowed"},
      {"1.5", "'.' is not allowed"},
      {"+1", "'+' is not allowed"},
      {" 1", "' ' is not allowed"},
      {"0x10", "'x' is not allowed"},
      {"1e3", "'e' is not allowed"},
      {"|", "item 1 of 2 (''): is empty"},
      {"1|", "item 2 of 2 (''): is empty"},
      {"10-5",
       "item 1 of 1 ('10-5'): range start 10 is greater than its end "
       "5; write 5-10"},
      {"abc-123", "'a' is not allowed"},
      {"1--2", "has more than one '-'"},
      {"\xd9\xa3", "is not allowed"},  // a non-ASCII digit
  };
  for (const auto& [text, expected] : cases) {
    const absl::StatusOr<StepSet> steps = StepSet::Parse(text);
    ASSERT_FALSE(steps.ok()) << text;
    EXPECT_EQ(steps.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(steps.status()), HasSubstr(expected)) << text;
  }
}

TEST(StepSetTest, OneHundredItemsExactlyIsTheLimit) {
  std::string hundred = "0";
  for (int i = 1; i < 100; ++i) StrAppend(hundred, "|", i);
  const absl::StatusOr<StepSet> ok = StepSet::Parse(hundred);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->ToString(), "0-99");
  const absl::StatusOr<StepSet> over = StepSet::Parse(hundred + "|100");
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(Message(over.status()), HasSubstr("101 items"));
  // A trailing '|' is an item too: 100 items, the last one empty.
  const absl::StatusOr<StepSet> trailing =
      StepSet::Parse(hundred.substr(0, hundred.rfind('|')) + "|");
  ASSERT_FALSE(trailing.ok());
  EXPECT_THAT(Message(trailing.status()), HasSubstr("item 100 of 100 (''): "));
}

TEST(StepSetTest, SingleStepRangesAndLeadingZeros) {
  EXPECT_EQ(StepSet::Parse("3-3")->ToString(), "3");
  EXPECT_EQ(StepSet::Parse("007")->ToString(), "7");
  EXPECT_EQ(StepSet::Parse("0-0")->ToString(), "0");
}

// The NPU SDK accepts any run of digits and compares range ends as strtol
// does (saturating at 2^63 - 1); stored values saturate at 2^64 - 1.
TEST(StepSetTest, HugeNumbersSaturateAsTheSdkCompares) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const absl::StatusOr<StepSet> huge = StepSet::Parse("18446744073709551616");
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_THAT(huge->ranges(), ElementsAre(Pair(kMax, kMax)));
  const absl::StatusOr<StepSet> wide = StepSet::Parse("0-99999999999999999999");
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_TRUE(wide->Contains(kMax));
  // Both ends beyond 2^63 - 1: equal as compared, so accepted in either order.
  const absl::StatusOr<StepSet> reversed =
      StepSet::Parse("10000000000000000000-9999999999999999999");
  ASSERT_TRUE(reversed.ok()) << reversed.status();
  EXPECT_THAT(reversed->ranges(),
              ElementsAre(Pair(9999999999999999999u, 10000000000000000000u)));
  // One end below the saturation point still orders normally.
  EXPECT_FALSE(StepSet::Parse("9223372036854775808-5").ok());
  EXPECT_TRUE(StepSet::Parse("9223372036854775807-9223372036854775808").ok());
}

}  // namespace
}  // namespace acldump::dump
