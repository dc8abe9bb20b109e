#include "dump/json_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/strings.h"

namespace acldump::dump {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Message(const absl::Status& status) {
  return std::string(ToStd(status.message()));
}

TEST(ParseJsonTreeTest, KeepsTypesTextAndDocumentOrder) {
  const absl::StatusOr<JsonNode> root = ParseJsonTree(
      R"({"b": [1, -2, 3.50, true, null, "x"], "a": {"k": "v"}, "b": {}})");
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_TRUE(root->is_object());
  ASSERT_EQ(root->members().size(), 3u);
  // Document order, duplicates kept.
  EXPECT_EQ(root->members()[0].key, "b");
  EXPECT_EQ(root->members()[1].key, "a");
  EXPECT_EQ(root->members()[2].key, "b");
  const JsonNode& array = root->members()[0].value;
  ASSERT_TRUE(array.is_array());
  ASSERT_EQ(array.elements().size(), 6u);
  EXPECT_EQ(array.elements()[0].text, "1");
  EXPECT_EQ(array.elements()[1].text, "-2");
  EXPECT_EQ(array.elements()[2].text, "3.50");  // the literal, as written
  EXPECT_EQ(array.elements()[3].type, JsonNode::Type::kBoolean);
  EXPECT_EQ(array.elements()[4].type, JsonNode::Type::kNull);
  EXPECT_TRUE(array.elements()[5].is_string());
  // Find returns the first of duplicates.
  EXPECT_TRUE(root->Find("b")->is_array());
  EXPECT_EQ(root->Find("a")->Find("k")->text, "v");
  EXPECT_EQ(root->Find("missing"), nullptr);
  EXPECT_EQ(array.Find("b"), nullptr);  // not an object
  EXPECT_TRUE(array.members().empty());
  EXPECT_TRUE(root->elements().empty());
}

TEST(ParseJsonTreeTest, ScalarsAtTheTopAndAByteOrderMark) {
  EXPECT_EQ(ParseJsonTree("42")->text, "42");
  EXPECT_EQ(ParseJsonTree(R"("s")")->text, "s");
  EXPECT_TRUE(ParseJsonTree("\xef\xbb\xbf{}")->is_object());
}

TEST(ParseJsonTreeTest, SyntaxErrorsAreInvalidArgumentWithAPosition) {
  for (const char* bad :
       {"", "asdf{", "{\"a\": }", "{\"a\": 1,}", "[1] x", "{\"a\" 1}",
        "/* c */ {}", "{\"a\": \"\xff\"}", "\"\\ud800\"", "{\"a\": 01}"}) {
    const absl::StatusOr<JsonNode> root = ParseJsonTree(bad);
    ASSERT_FALSE(root.ok()) << bad;
    EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(root.status()), StartsWith("not valid JSON: "));
    EXPECT_THAT(Message(root.status()), HasSubstr("(byte "));
    // No tag of the underlying library.
    EXPECT_THAT(Message(root.status()),
                ::testing::Not(HasSubstr("json.exception")));
  }
  EXPECT_THAT(Message(ParseJsonTree("{\"a\": }").status()),
              HasSubstr("parse error at line 1, column 7"));
}

TEST(ParseJsonTreeTest, StructureDeeperThanTheLimitIsOutOfRange) {
  // Ten arrays inside ten objects: within both limits.
  std::string ok;
  for (int i = 0; i < 10; ++i) ok += "{\"k\":";
  ok += "[[[[[[[[[[]]]]]]]]]]";
  for (int i = 0; i < 10; ++i) ok += "}";
  EXPECT_TRUE(ParseJsonTree(ok).ok()) << ParseJsonTree(ok).status();

  const absl::StatusOr<JsonNode> arrays =
      ParseJsonTree(R"({"a": {"b": [[[[[[[[[[[1]]]]]]]]]]]}})");
  ASSERT_FALSE(arrays.ok());
  EXPECT_EQ(arrays.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Message(arrays.status()),
            "JSON nesting is deeper than 10 arrays at "
            "a.b[0][0][0][0][0][0][0][0][0][0]");
  std::string deep_objects;
  for (int i = 0; i < 11; ++i) deep_objects += "{\"k\":";
  const absl::StatusOr<JsonNode> objects = ParseJsonTree(deep_objects, 10);
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.status().code(), absl::StatusCode::kOutOfRange);
  // A custom limit; and no recursion on huge depth.
  EXPECT_FALSE(ParseJsonTree("[[[]]]", 2).ok());
  EXPECT_TRUE(ParseJsonTree("[[]]", 2).ok());
  EXPECT_EQ(ParseJsonTree(std::string(1 << 20, '[')).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(CountBracketNestingTest, CountsEveryBracketUpToTheFirstNul) {
  BracketNesting n = CountBracketNesting(R"({"a": [[1], {"b": [2]}]})", 10);
  EXPECT_EQ(n.max_object_depth, 2u);
  EXPECT_EQ(n.max_array_depth, 2u);
  EXPECT_FALSE(n.first_too_deep.has_value());

  // Brackets inside strings count.
  n = CountBracketNesting(R"({"a": "[[[[[[[[[[["})", 10);
  EXPECT_EQ(n.max_array_depth, 11u);
  EXPECT_EQ(n.first_too_deep, 17u);
  // Closers never go below zero, and count inside strings too.
  n = CountBracketNesting("]]]]{}{{}}", 10);
  EXPECT_EQ(n.max_object_depth, 2u);
  EXPECT_EQ(n.max_array_depth, 0u);
  // Objects and arrays are separate: ten of each pass.
  n = CountBracketNesting("{{{{{{{{{{[[[[[[[[[[", 10);
  EXPECT_FALSE(n.first_too_deep.has_value());
  n = CountBracketNesting("{{{{{{{{{{{", 10);
  EXPECT_EQ(n.first_too_deep, 10u);
  // Counting stops at a NUL byte.
  n = CountBracketNesting(std::string_view("[\0[[[[[[[[[[[[", 14), 10);
  EXPECT_EQ(n.max_array_depth, 1u);
  EXPECT_FALSE(n.first_too_deep.has_value());
}

TEST(JsonPathTest, SegmentsAndDescriptions) {
  EXPECT_EQ(JsonKeySegment("dump", true), "dump");
  EXPECT_EQ(JsonKeySegment("dump_path", false), ".dump_path");
  EXPECT_EQ(JsonKeySegment("dump.path", false), "['dump.path']");
  EXPECT_EQ(JsonKeySegment("", false), "['']");
  EXPECT_EQ(JsonKeySegment("a b", true), "['a b']");
  EXPECT_EQ(JsonKeySegment("x\n", false), "['x\\n']");
  EXPECT_EQ(JsonKeySegment(std::string(81, 'k'), false).substr(0, 4), "['kk");
  EXPECT_EQ(JsonIndexSegment(3), "[3]");

  const absl::StatusOr<JsonNode> root =
      ParseJsonTree(R"([null, true, 5, "s", [], {}])");
  ASSERT_TRUE(root.ok());
  std::vector<std::string> described;
  for (const JsonNode& node : root->elements()) {
    described.push_back(DescribeJsonValue(node));
  }
  EXPECT_THAT(described,
              ::testing::ElementsAre("null", "boolean true", "number 5",
                                     "string 's'", "an array", "an object"));
}

TEST(PositionOfTest, LinesAndColumnsAreOneBased) {
  const std::string_view text = "ab\ncd\n\nx";
  EXPECT_EQ(PositionOf(text, 0).line, 1u);
  EXPECT_EQ(PositionOf(text, 0).column, 1u);
  EXPECT_EQ(PositionOf(text, 4).line, 2u);
  EXPECT_EQ(PositionOf(text, 4).column, 2u);
  EXPECT_EQ(PositionOf(text, 7).line, 4u);
  EXPECT_EQ(PositionOf(text, 7).column, 1u);
}

// Hostile shapes that are quadratic in naive JSON DOMs must stay fast.
TEST(ParseJsonTreeTest, LargeInputsParseInLinearTime) {
  std::string many_objects = "[";
  std::string many_keys = "{";
  for (int i = 0; i < 300000; ++i) {
    many_objects += i ? ",{}" : "{}";
    StrAppend(many_keys, i ? "," : "", "\"k", i, "\":0");
  }
  many_objects += "]";
  many_keys += "}";
  const absl::StatusOr<JsonNode> objects = ParseJsonTree(many_objects);
  ASSERT_TRUE(objects.ok());
  EXPECT_EQ(objects->elements().size(), 300000u);
  const absl::StatusOr<JsonNode> keys = ParseJsonTree(many_keys);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->members().size(), 300000u);
}

}  // namespace
}  // namespace acldump::dump
