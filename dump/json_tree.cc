#include "dump/json_tree.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"
#include "base/text.h"
#include "nlohmann/json.hpp"

namespace acldump::dump {
namespace {

const JsonChildren kNoChildren;

using Sax = nlohmann::json_sax<nlohmann::json>;

// Builds a JsonNode tree from SAX events; refuses objects or arrays nested
// deeper than its limit.
class TreeBuilder final : public Sax {
 public:
  TreeBuilder(JsonNode* root, size_t max_depth)
      : root_(root), max_depth_(max_depth) {}

  bool null() override { return Scalar(JsonNode::Type::kNull, ""); }
  bool boolean(bool value) override {
    return Scalar(JsonNode::Type::kBoolean, value ? "true" : "false");
  }
  bool number_integer(number_integer_t value) override {
    return Scalar(JsonNode::Type::kNumber, std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Scalar(JsonNode::Type::kNumber, std::to_string(value));
  }
  bool number_float(number_float_t, const string_t& literal) override {
    return Scalar(JsonNode::Type::kNumber, literal);
  }
  bool string(string_t& value) override {
    return Scalar(JsonNode::Type::kString, std::move(value));
  }
  bool binary(binary_t&) override { return false; }  // not in JSON text
  bool start_object(std::size_t) override {
    return Open(JsonNode::Type::kObject);
  }
  bool key(string_t& key) override {
    stack_.back()->children->members.push_back(
        JsonMember{std::move(key), JsonNode{}});
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override {
    return Open(JsonNode::Type::kArray);
  }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::json::exception& error) override {
    std::string_view what = error.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " tag.
    if (!what.empty() && what.front() == '[') {
      const size_t end = what.find("] ");
      if (end != std::string_view::npos) what.remove_prefix(end + 2);
    }
    status_ = absl::InvalidArgumentError(StrCat(
        "not valid JSON: ", Printable(what, 300), " (byte ", position, ")"));
    return false;
  }

  // Why parsing stopped, when sax_parse returned false.
  const absl::Status& status() const { return status_; }

 private:
  // Where the next value goes.
  JsonNode* Slot() {
    if (stack_.empty()) return root_;
    JsonNode* parent = stack_.back();
    if (parent->is_array()) {
      parent->children->elements.emplace_back();
      return &parent->children->elements.back();
    }
    return &parent->children->members.back().value;
  }

  bool Scalar(JsonNode::Type type, std::string text) {
    JsonNode* node = Slot();
    node->type = type;
    node->text = std::move(text);
    return true;
  }

  bool Open(JsonNode::Type type) {
    size_t& depth = type == JsonNode::Type::kObject ? objects_ : arrays_;
    if (depth >= max_depth_) {
      status_ = absl::OutOfRangeError(
          StrCat("JSON nesting is deeper than ", max_depth_, " ",
                 type == JsonNode::Type::kObject ? "objects" : "arrays", " at ",
                 PathOfNextValue()));
      return false;
    }
    ++depth;
    JsonNode* node = Slot();
    node->type = type;
    node->children = std::make_unique<JsonChildren>();
    stack_.push_back(node);
    return true;
  }

  bool Close() {
    --(stack_.back()->is_object() ? objects_ : arrays_);
    stack_.pop_back();
    return true;
  }

  std::string PathOfNextValue() const {
    std::string path;
    for (const JsonNode* node : stack_) {
      if (node->is_array()) {
        // Open arrays below the top hold their child last; the top one gets
        // the next element.
        const bool top = node == stack_.back();
        path += JsonIndexSegment(node->elements().size() - (top ? 0 : 1));
      } else if (!node->members().empty()) {
        path += JsonKeySegment(node->members().back().key, path.empty());
      }
    }
    return path.empty() ? "the top level" : path;
  }

  JsonNode* root_;
  const size_t max_depth_;
  std::vector<JsonNode*> stack_;
  size_t objects_ = 0;
  size_t arrays_ = 0;
  absl::Status status_;
};

}  // namespace

const std::vector<JsonNode>& JsonNode::elements() const {
  return (children ? *children : kNoChildren).elements;
}

const std::vector<JsonMember>& JsonNode::members() const {
  return (children ? *children : kNoChildren).members;
}

const JsonNode* JsonNode::Find(std::string_view key) const {
  for (const JsonMember& member : members()) {
    if (member.key == key) return &member.value;
  }
  return nullptr;
}

BracketNesting CountBracketNesting(std::string_view text, size_t limit) {
  BracketNesting out;
  size_t objects = 0;
  size_t arrays = 0;
  for (size_t i = 0; i < text.size() && text[i] != '\0'; ++i) {
    size_t* depth = nullptr;
    size_t* max_depth = nullptr;
    switch (text[i]) {
      case '{':
        depth = &objects;
        max_depth = &out.max_object_depth;
        break;
      case '[':
        depth = &arrays;
        max_depth = &out.max_array_depth;
        break;
      case '}':
        if (objects > 0) --objects;
        continue;
      case ']':
        if (arrays > 0) --arrays;
        continue;
      default:
        continue;
    }
    *max_depth = std::max(*max_depth, ++*depth);
    if (*depth > limit && !out.first_too_deep) out.first_too_deep = i;
  }
  return out;
}

absl::StatusOr<JsonNode> ParseJsonTree(std::string_view text,
                                       size_t max_depth) {
  JsonNode root;
  TreeBuilder builder(&root, max_depth);
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &builder)) {
    return builder.status();
  }
  return root;
}

std::string DescribeJsonValue(const JsonNode& node) {
  switch (node.type) {
    case JsonNode::Type::kNull:
      return "null";
    case JsonNode::Type::kBoolean:
      return StrCat("boolean ", node.text);
    case JsonNode::Type::kNumber:
      return StrCat("number ", Printable(node.text, 40));
    case JsonNode::Type::kString:
      return StrCat("string ", Quote(node.text));
    case JsonNode::Type::kArray:
      return "an array";
    case JsonNode::Type::kObject:
      return "an object";
  }
  return "a value";
}

std::string JsonKeySegment(std::string_view key, bool top) {
  bool plain = !key.empty() && key.size() <= kMaxShownChars;
  for (char c : key) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7F || c == '.' || c == '[' || c == ']' ||
        c == '\'') {
      plain = false;
    }
  }
  if (plain && Printable(key, kMaxShownChars) != key) plain = false;
  if (!plain) return StrCat("[", Quote(key), "]");
  return top ? std::string(key) : StrCat(".", key);
}

std::string JsonIndexSegment(size_t index) { return StrCat("[", index, "]"); }

TextPosition PositionOf(std::string_view text, size_t offset) {
  TextPosition position;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

}  // namespace acldump::dump
