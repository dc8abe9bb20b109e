// A JSON document as a tree, built for checking untrusted config files:
// members keep document order and duplicate keys (so a checker can report
// them), numbers keep their literal text, and nesting is bounded.
//
// nlohmann's DOM is not used for the tree: its ordered_json looks keys up
// linearly and its callback parser rescans parents on every object end, both
// quadratic on hostile input; this tree is built from SAX events in linear
// time and without recursion.
#ifndef ACLDUMP_DUMP_JSON_TREE_H_
#define ACLDUMP_DUMP_JSON_TREE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

// Objects and arrays may each nest at most this deep (the NPU SDK's limit for
// acl.json files).
inline constexpr size_t kMaxJsonNesting = 10;

struct JsonChildren;
struct JsonMember;

// Kept small (48 bytes): a 10 MiB config can hold millions of values.
struct JsonNode {
  enum class Type : uint8_t {
    kNull,
    kBoolean,
    kNumber,
    kString,
    kArray,
    kObject
  };
  Type type = Type::kNull;
  std::string text;  // a string's value; a number's or boolean's literal
  std::unique_ptr<JsonChildren> children;  // set for arrays and objects

  bool is_string() const { return type == Type::kString; }
  bool is_array() const { return type == Type::kArray; }
  bool is_object() const { return type == Type::kObject; }
  // An array's elements; empty for other types.
  const std::vector<JsonNode>& elements() const;
  // An object's members in document order, duplicates included; empty for
  // other types.
  const std::vector<JsonMember>& members() const;
  // The first member named `key`, or nullptr (also for non-objects). Linear.
  const JsonNode* Find(std::string_view key) const;
};

struct JsonMember {
  std::string key;
  JsonNode value;
};

struct JsonChildren {
  std::vector<JsonNode> elements;
  std::vector<JsonMember> members;
};

// The NPU SDK's nesting check, which runs on the file's characters before
// anything parses them: every '{' and '[' counts, inside strings too, and
// every '}' and ']' closes one level (never below zero); counting stops at
// the first NUL byte. Objects and arrays are counted separately.
struct BracketNesting {
  size_t max_object_depth = 0;
  size_t max_array_depth = 0;
  // Byte offset of the first '{' or '[' that went deeper than the limit given
  // to CountBracketNesting, if any.
  std::optional<size_t> first_too_deep;
};
BracketNesting CountBracketNesting(std::string_view text, size_t limit);

// Parses JSON text (RFC 8259; a UTF-8 byte order mark is skipped; strings must
// be well-formed UTF-8). Errors:
//   InvalidArgument  not JSON: "not valid JSON: <reason> (byte N)"
//   OutOfRange       objects or arrays nest deeper than `max_depth` (only
//                    reachable when CountBracketNesting passed because
//                    closing brackets inside strings hid the depth)
absl::StatusOr<JsonNode> ParseJsonTree(std::string_view text,
                                       size_t max_depth = kMaxJsonNesting);

// For messages: "null", "boolean true", "number 5", "string 'x'", "an array",
// "an object".
std::string DescribeJsonValue(const JsonNode& node);

// JSON path segments for messages: `key` at the top, `.key` below it, or
// `['odd.key']` when the key is empty, long, or holds characters that would
// make the path ambiguous; `[3]` for an array index.
std::string JsonKeySegment(std::string_view key, bool top);
std::string JsonIndexSegment(size_t index);

// 1-based line and column (in bytes) of byte `offset` of `text`.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};
TextPosition PositionOf(std::string_view text, size_t offset);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_JSON_TREE_H_
