#include "dump/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <system_error>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "nlohmann/json.hpp"

namespace acldump::dump {
namespace {

constexpr size_t kMaxConfigBytes = size_t{10} << 20;
constexpr size_t kMaxNesting = 10;
constexpr size_t kMaxDumpPathChars = 512;
// Values are untrusted and may be megabytes long: messages show a prefix.
constexpr size_t kMaxShownChars = 80;
constexpr size_t kMaxShownPathChars = 4096;

// ---------------------------------------------------------------------------
// Text for messages.

// Length of the UTF-8 sequence starting at s[i], or 0 if it is ill-formed.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// `text` made safe to print: control characters and ill-formed UTF-8 escaped,
// cut after `max_chars` characters.
std::string Printable(std::string_view text, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (chars == max_chars) {
      StrAppend(out, "... (", text.size(), " bytes)");
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0 || c < 0x20 || c == 0x7F) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += fmt::format("\\x{:02x}", c);
      }
      i += 1;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
    ++chars;
  }
  return out;
}

std::string Quote(std::string_view text, size_t max_chars = kMaxShownChars) {
  return StrCat("'", Printable(text, max_chars), "'");
}

size_t Utf8Chars(std::string_view text) {
  size_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return chars;
}

std::string Plural(size_t n, std::string_view noun) {
  return StrCat(n, " ", noun, n == 1 ? "" : "s");
}

std::string ErrnoText(int error) {
  return std::generic_category().message(error);
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word` (case-insensitive edit distance, or one
// containing the other), if any is close enough to be a likely typo.
std::optional<std::string_view> NearestWord(
    std::string_view word, const std::vector<std::string_view>& candidates) {
  if (word.size() > 64) return std::nullopt;
  const std::string lower = Lower(word);
  std::optional<std::string_view> best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (std::string_view candidate : candidates) {
    const std::string other = Lower(candidate);
    const size_t distance = EditDistance(lower, other);
    const bool contained = std::min(lower.size(), other.size()) >= 4 &&
                           (other.find(lower) != std::string::npos ||
                            lower.find(other) != std::string::npos);
    const size_t threshold = std::max<size_t>(2, other.size() / 3);
    if ((distance <= threshold || contained) && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string QuotedList(const std::vector<std::string_view>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    StrAppend(out, i == 0 ? "" : ", ", "'", words[i], "'");
  }
  return out;
}

// ---------------------------------------------------------------------------
// JSON tree. nlohmann's DOM is not used: its ordered_json looks keys up
// linearly and its callback parser rescans parents on every object end, both
// quadratic on hostile input; this tree keeps document order and duplicates.

struct Children;
struct Member;

// Kept small (48 bytes): a 10 MiB config can hold millions of values.
struct Node {
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
  std::unique_ptr<Children> children;  // set for arrays and objects

  const std::vector<Node>& elements() const;
  const std::vector<Member>& members() const;  // document order, duplicates
};

struct Member {
  std::string key;
  Node value;
};

struct Children {
  std::vector<Node> elements;
  std::vector<Member> members;
};

const Children kNoChildren;

const std::vector<Node>& Node::elements() const {
  return (children ? *children : kNoChildren).elements;
}

const std::vector<Member>& Node::members() const {
  return (children ? *children : kNoChildren).members;
}

std::string Describe(const Node& node) {
  switch (node.type) {
    case Node::Type::kNull:
      return "null";
    case Node::Type::kBoolean:
      return StrCat("boolean ", node.text);
    case Node::Type::kNumber:
      return StrCat("number ", Printable(node.text, 40));
    case Node::Type::kString:
      return StrCat("string ", Quote(node.text));
    case Node::Type::kArray:
      return "an array";
    case Node::Type::kObject:
      return "an object";
  }
  return "a value";
}

// A path segment: `.key` (`key` at the top), or `['odd.key']` when the key
// would be ambiguous in that form.
std::string KeySegment(std::string_view key, bool top) {
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

std::string IndexSegment(size_t index) { return StrCat("[", index, "]"); }

using Sax = nlohmann::json_sax<nlohmann::json>;

// Builds a Node tree; refuses nesting deeper than kMaxNesting.
class TreeBuilder final : public Sax {
 public:
  explicit TreeBuilder(Node* root) : root_(root) {}

  bool null() override { return Scalar(Node::Type::kNull, ""); }
  bool boolean(bool value) override {
    return Scalar(Node::Type::kBoolean, value ? "true" : "false");
  }
  bool number_integer(number_integer_t value) override {
    return Scalar(Node::Type::kNumber, std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Scalar(Node::Type::kNumber, std::to_string(value));
  }
  bool number_float(number_float_t, const string_t& literal) override {
    return Scalar(Node::Type::kNumber, literal);
  }
  bool string(string_t& value) override {
    return Scalar(Node::Type::kString, std::move(value));
  }
  bool binary(binary_t&) override { return false; }  // not in JSON text
  bool start_object(std::size_t) override { return Open(Node::Type::kObject); }
  bool key(string_t& key) override {
    stack_.back()->children->members.push_back(Member{std::move(key), Node{}});
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return Open(Node::Type::kArray); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::json::exception& error) override {
    std::string_view what = error.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " tag.
    if (!what.empty() && what.front() == '[') {
      const size_t end = what.find("] ");
      if (end != std::string_view::npos) what.remove_prefix(end + 2);
    }
    error_ = StrCat("not valid JSON: ", Printable(what, 300), " (byte ",
                    position, ")");
    return false;
  }

  // Why parsing stopped, when sax_parse returned false.
  const std::string& error() const { return error_; }

 private:
  // Where the next value goes.
  Node* Slot() {
    if (stack_.empty()) return root_;
    Node* parent = stack_.back();
    if (parent->type == Node::Type::kArray) {
      parent->children->elements.emplace_back();
      return &parent->children->elements.back();
    }
    return &parent->children->members.back().value;
  }

  bool Scalar(Node::Type type, std::string text) {
    Node* node = Slot();
    node->type = type;
    node->text = std::move(text);
    return true;
  }

  bool Open(Node::Type type) {
    if (stack_.size() >= kMaxNesting) {
      error_ =
          StrCat("JSON nesting is deeper than ", kMaxNesting, " levels at ",
                 PathOfNextValue(), "; a dump config needs at most 5");
      return false;
    }
    Node* node = Slot();
    node->type = type;
    node->children = std::make_unique<Children>();
    stack_.push_back(node);
    return true;
  }

  std::string PathOfNextValue() const {
    std::string path;
    for (const Node* node : stack_) {
      if (node->type == Node::Type::kArray) {
        // Open arrays below the top hold their child last; the top one gets
        // the next element.
        const bool top = node == stack_.back();
        path += IndexSegment(node->elements().size() - (top ? 0 : 1));
      } else if (!node->members().empty()) {
        path += KeySegment(node->members().back().key, path.empty());
      }
    }
    return path.empty() ? "the top level" : path;
  }

  Node* root_;
  std::vector<Node*> stack_;
  std::string error_;
};

// ---------------------------------------------------------------------------
// Keys and values of the dump object.

enum class Key {
  kDumpPath,
  kDumpMode,
  kDumpOpSwitch,
  kDumpStep,
  kDumpData,
  kDumpStats,
  kDumpList,
  kDumpScene,
  kDumpDebug,
  kModelName,
  kLayer,
};

struct KeyName {
  std::string_view name;
  Key key;
};

constexpr KeyName kDumpKeys[] = {
    {"dump_path", Key::kDumpPath},          {"dump_mode", Key::kDumpMode},
    {"dump_op_switch", Key::kDumpOpSwitch}, {"dump_step", Key::kDumpStep},
    {"dump_data", Key::kDumpData},          {"dump_stats", Key::kDumpStats},
    {"dump_list", Key::kDumpList},          {"dump_scene", Key::kDumpScene},
    {"dump_debug", Key::kDumpDebug},
};
constexpr KeyName kEntryKeys[] = {
    {"model_name", Key::kModelName},
    {"layer", Key::kLayer},
};

template <size_t N>
std::optional<Key> FindKey(const KeyName (&keys)[N], std::string_view name) {
  for (const KeyName& k : keys) {
    if (k.name == name) return k.key;
  }
  return std::nullopt;
}

template <size_t N>
std::vector<std::string_view> Names(const KeyName (&keys)[N]) {
  std::vector<std::string_view> names;
  for (const KeyName& k : keys) names.push_back(k.name);
  return names;
}

template <size_t N>
std::string UnknownKeyReason(std::string_view key, const KeyName (&keys)[N],
                             std::string_view where) {
  std::string reason = StrCat("unknown key ", Quote(key));
  if (std::optional<std::string_view> near = NearestWord(key, Names(keys))) {
    StrAppend(reason, "; did you mean '", *near, "'?");
  } else {
    StrAppend(reason, "; ", where, " accepts ", QuotedList(Names(keys)));
  }
  return reason;
}

const std::vector<std::string_view> kModes = {"input", "output", "all"};
const std::vector<std::string_view> kDataKinds = {"tensor", "stats"};
const std::vector<std::string_view> kSwitches = {"on", "off"};
const std::vector<std::string_view> kScenes = {"lite_exception"};

std::vector<std::string_view> StatNames() {
  std::vector<std::string_view> names;
  for (StatColumn column : kAllStatColumns) {
    names.push_back(StatColumnConfigName(column));
  }
  return names;
}

std::string BadEnumReason(std::string_view value, std::string_view what,
                          const std::vector<std::string_view>& allowed) {
  std::string reason = StrCat("invalid ", what, " ", Quote(value),
                              "; expected one of ", QuotedList(allowed));
  for (std::string_view candidate : allowed) {
    if (Lower(candidate) == Lower(value)) {
      StrAppend(reason, " (values are case-sensitive: write '", candidate,
                "')");
      return reason;
    }
  }
  if (std::optional<std::string_view> near = NearestWord(value, allowed)) {
    StrAppend(reason, "; did you mean '", *near, "'?");
  }
  return reason;
}

// ---------------------------------------------------------------------------
// The parser proper.

class Parser {
 public:
  Parser(std::string_view text, std::string_view source)
      : text_(text),
        source_(source.empty() ? "(unnamed config)" : std::string(source)) {
    config_.source = std::string(source);
  }

  absl::StatusOr<DumpConfig> Run() {
    // (1) The text itself.
    if (text_.size() > kMaxConfigBytes) {
      return WithKind(absl::InvalidArgumentError(
                          StrCat(source_, ": is ", text_.size(),
                                 " bytes; a dump config may be at most ",
                                 kMaxConfigBytes, " bytes (10 MiB)")),
                      ErrorKind::kInvalidFile);
    }
    Node root;
    TreeBuilder builder(&root);
    if (!nlohmann::json::sax_parse(text_.begin(), text_.end(), &builder)) {
      return WithKind(
          absl::InvalidArgumentError(StrCat(source_, ": ", builder.error())),
          ErrorKind::kParseFile);
    }

    // (2) The dump key.
    if (root.type != Node::Type::kObject) {
      return Error("the top level",
                   StrCat("an acl.json file holds a JSON object such as "
                          "{\"dump\": {...}}, found ",
                          Describe(root)));
    }
    const Node* dump = nullptr;
    for (const Member& member : root.members()) {
      if (member.key != "dump") continue;
      if (dump != nullptr) {
        return Error("dump",
                     "duplicate key 'dump': the file has more than one dump "
                     "section; merge them into one");
      }
      dump = &member.value;
    }
    if (dump == nullptr) return config_;
    if (dump->type != Node::Type::kObject) {
      return Error("dump", StrCat("must be a JSON object such as "
                                  "{\"dump_path\": \"output\", ...}, found ",
                                  Describe(*dump)));
    }
    if (dump->members().empty()) return config_;

    // (3) Types and keys; (4) enum values; (5) constraints.
    RETURN_IF_ERROR(CheckStructure(*dump));
    RETURN_IF_ERROR(CheckEnums(*dump));
    RETURN_IF_ERROR(CheckConstraints(*dump));
    if (exception_scene_) {
      config_.scene = DumpScene::kException;
    } else if (overflow_) {
      config_.scene = DumpScene::kOverflow;
    } else if (!config_.dump_list.empty()) {
      config_.scene = DumpScene::kModel;
    }
    return std::move(config_);
  }

 private:
  absl::Status Error(std::string_view path, std::string_view reason) const {
    return WithKind(
        absl::InvalidArgumentError(StrCat(source_, ": ", path, ": ", reason)),
        ErrorKind::kInvalidDumpConfig);
  }

  static std::string MemberPath(std::string_view parent, std::string_view key) {
    return StrCat(parent, KeySegment(key, false));
  }

  // --- (3) ---------------------------------------------------------------

  absl::Status CheckStructure(const Node& dump) const {
    std::set<std::string_view> seen;
    for (const Member& member : dump.members()) {
      const std::string path = MemberPath("dump", member.key);
      if (!seen.insert(member.key).second) {
        return Error(path, StrCat("duplicate key ", Quote(member.key),
                                  "; give each key once"));
      }
      const std::optional<Key> key = FindKey(kDumpKeys, member.key);
      if (!key) {
        if (FindKey(kEntryKeys, member.key)) {
          return Error(path, StrCat("unknown key ", Quote(member.key),
                                    " in dump; it belongs inside a dump_list "
                                    "entry: \"dump_list\": [{\"",
                                    member.key, "\": ...}]"));
        }
        if (member.key == "dump") {
          return Error(path,
                       "unknown key 'dump': the dump section is nested in "
                       "itself; move its keys up one level");
        }
        return Error(
            path, UnknownKeyReason(member.key, kDumpKeys, "the dump object"));
      }
      switch (*key) {
        case Key::kDumpList:
          RETURN_IF_ERROR(CheckDumpListStructure(member.value, path));
          break;
        case Key::kDumpStats:
          RETURN_IF_ERROR(CheckStringArray(
              member.value, path, member.key,
              "an array of statistic names such as [\"Max\", \"Min\"]"));
          break;
        default:
          RETURN_IF_ERROR(CheckString(member.value, path, member.key));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckString(const Node& value, const std::string& path,
                           std::string_view key) const {
    if (value.type == Node::Type::kString) return absl::OkStatus();
    std::string reason =
        StrCat("must be a JSON string, found ", Describe(value));
    if (value.type == Node::Type::kNumber) {
      StrAppend(reason, "; write \"", key, "\": \"", Printable(value.text, 40),
                "\"");
    } else if (value.type == Node::Type::kBoolean &&
               (key == "dump_op_switch" || key == "dump_debug")) {
      StrAppend(reason, "; write \"", key, "\": \"",
                value.text == "true" ? "on" : "off", "\"");
    }
    return Error(path, reason);
  }

  absl::Status CheckStringArray(const Node& value, const std::string& path,
                                std::string_view key,
                                std::string_view expected) const {
    if (value.type != Node::Type::kArray) {
      std::string reason =
          StrCat("must be ", expected, ", found ", Describe(value));
      if (value.type == Node::Type::kString) {
        StrAppend(reason, "; write \"", key, "\": [", Quote(value.text), "]");
      }
      return Error(path, reason);
    }
    for (size_t i = 0; i < value.elements().size(); ++i) {
      const Node& element = value.elements()[i];
      if (element.type != Node::Type::kString) {
        return Error(
            StrCat(path, IndexSegment(i)),
            StrCat("must be a JSON string, found ", Describe(element)));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckDumpListStructure(const Node& list,
                                      const std::string& path) const {
    if (list.type != Node::Type::kArray) {
      std::string reason = StrCat(
          "must be an array of model entries such as "
          "[{\"model_name\": \"resnet50\"}], found ",
          Describe(list));
      if (list.type == Node::Type::kObject) {
        StrAppend(reason, "; wrap the entry in [ ]");
      }
      return Error(path, reason);
    }
    for (size_t i = 0; i < list.elements().size(); ++i) {
      const Node& entry = list.elements()[i];
      const std::string entry_path = StrCat(path, IndexSegment(i));
      if (entry.type != Node::Type::kObject) {
        std::string reason = StrCat(
            "must be an object such as {\"model_name\": \"resnet50\", "
            "\"layer\": [\"conv1\"]}, found ",
            Describe(entry));
        if (entry.type == Node::Type::kString) {
          StrAppend(reason, "; write {\"model_name\": ", Quote(entry.text),
                    "}");
        }
        return Error(entry_path, reason);
      }
      std::set<std::string_view> seen;
      for (const Member& member : entry.members()) {
        const std::string member_path = MemberPath(entry_path, member.key);
        if (!seen.insert(member.key).second) {
          return Error(member_path, StrCat("duplicate key ", Quote(member.key),
                                           "; give each key once"));
        }
        const std::optional<Key> key = FindKey(kEntryKeys, member.key);
        if (!key) {
          if (FindKey(kDumpKeys, member.key)) {
            return Error(member_path,
                         StrCat("unknown key ", Quote(member.key),
                                " in a dump_list entry; it belongs in the "
                                "dump object itself"));
          }
          return Error(member_path, UnknownKeyReason(member.key, kEntryKeys,
                                                     "a dump_list entry"));
        }
        if (*key == Key::kModelName) {
          RETURN_IF_ERROR(CheckString(member.value, member_path, member.key));
        } else {
          RETURN_IF_ERROR(CheckStringArray(
              member.value, member_path, member.key,
              "an array of operator names such as [\"conv1\"]"));
        }
      }
    }
    return absl::OkStatus();
  }

  // --- (4) ---------------------------------------------------------------

  absl::Status CheckEnums(const Node& dump) {
    for (const Member& member : dump.members()) {
      const std::string path = MemberPath("dump", member.key);
      const std::string& value = member.value.text;
      switch (*FindKey(kDumpKeys, member.key)) {
        case Key::kDumpMode:
          if (value == "input") {
            config_.mode = DumpMode::kInput;
          } else if (value == "output") {
            config_.mode = DumpMode::kOutput;
          } else if (value == "all") {
            config_.mode = DumpMode::kAll;
          } else {
            return Error(path, BadEnumReason(value, "dump_mode", kModes));
          }
          break;
        case Key::kDumpData:
          if (value == "tensor") {
            config_.data = DumpData::kTensor;
          } else if (value == "stats") {
            config_.data = DumpData::kStats;
          } else {
            return Error(path, BadEnumReason(value, "dump_data", kDataKinds));
          }
          break;
        case Key::kDumpOpSwitch:
        case Key::kDumpDebug: {
          if (value != "on" && value != "off") {
            return Error(path, BadEnumReason(value, member.key, kSwitches));
          }
          bool& flag =
              member.key == "dump_debug" ? overflow_ : config_.op_switch;
          flag = value == "on";
          break;
        }
        case Key::kDumpScene:
          if (value != "lite_exception") {
            return Error(path, BadEnumReason(value, "dump_scene", kScenes));
          }
          exception_scene_ = true;
          break;
        case Key::kDumpStats:
          for (size_t i = 0; i < member.value.elements().size(); ++i) {
            const std::string& name = member.value.elements()[i].text;
            const std::optional<StatColumn> column =
                StatColumnFromConfigName(name);
            if (!column) {
              return Error(StrCat(path, IndexSegment(i)),
                           BadEnumReason(name, "statistic", StatNames()));
            }
            if (std::find(config_.stats.begin(), config_.stats.end(),
                          *column) == config_.stats.end()) {
              config_.stats.push_back(*column);
            }
          }
          break;
        default:
          break;
      }
    }
    return absl::OkStatus();
  }

  // --- (5) ---------------------------------------------------------------

  // Each rule is reported at the key it concerns, so problems come out in
  // document order; a missing required key is reported after all others.
  absl::Status CheckConstraints(const Node& dump) {
    bool has_path = false;
    bool has_list = false;
    for (const Member& member : dump.members()) {
      const std::string path = MemberPath("dump", member.key);
      switch (*FindKey(kDumpKeys, member.key)) {
        case Key::kDumpPath:
          has_path = true;
          config_.dump_path = member.value.text;
          // Exception dump writes under $ASCEND_WORK_PATH (S18).
          if (!exception_scene_) {
            RETURN_IF_ERROR(CheckDumpPath(path));
          }
          break;
        case Key::kDumpOpSwitch:
          if (config_.op_switch && exception_scene_) {
            return Error(path,
                         "'on' cannot be combined with dump_scene "
                         "'lite_exception' (exception dump); set "
                         "dump_op_switch to 'off' or remove dump_scene");
          }
          if (config_.op_switch && overflow_) {
            return Error(path,
                         "'on' cannot be combined with dump_debug 'on' "
                         "(overflow dump cannot run with single-operator "
                         "dump); turn one of them off");
          }
          break;
        case Key::kDumpDebug:
          if (overflow_ && exception_scene_) {
            return Error(path,
                         "'on' cannot be combined with dump_scene "
                         "'lite_exception' (exception dump); set dump_debug "
                         "to 'off' or remove dump_scene");
          }
          break;
        case Key::kDumpStep: {
          absl::StatusOr<StepSet> steps = StepSet::Parse(member.value.text);
          if (!steps.ok()) {
            return Error(
                path, StrCat("invalid value ", Quote(member.value.text), ": ",
                             ToStd(steps.status().message())));
          }
          config_.steps = *std::move(steps);
          break;
        }
        case Key::kDumpList:
          has_list = true;
          RETURN_IF_ERROR(CheckDumpList(member.value, path));
          break;
        case Key::kDumpStats:
          if (member.value.elements().empty()) {
            return Error(path,
                         "is empty; list statistics such as [\"Max\", "
                         "\"Min\"], or remove dump_stats for the default "
                         "columns");
          }
          if (config_.data != DumpData::kStats) {
            return Error(path,
                         "needs \"dump_data\": \"stats\"; set dump_data to "
                         "'stats' or remove dump_stats");
          }
          break;
        default:
          break;
      }
    }
    if (!exception_scene_ && !has_path) {
      return Error("dump.dump_path",
                   StrCat("is required", overflow_ ? " for overflow dump" : "",
                          ": set it to an existing writable directory "
                          "(absolute, or relative to the working directory)"));
    }
    if (!exception_scene_ && !overflow_ && !config_.op_switch && !has_list) {
      return Error("dump.dump_list",
                   "is required for a model dump: list the models, e.g. "
                   "\"dump_list\": [{\"model_name\": \"resnet50\"}], or set "
                   "\"dump_op_switch\": \"on\" with \"dump_list\": [] for "
                   "single-operator dump");
    }
    return absl::OkStatus();
  }

  absl::Status CheckDumpList(const Node& list, const std::string& path) {
    if (overflow_ && !list.elements().empty()) {
      return Error(path,
                   "overflow dump (dump_debug 'on') cannot be combined with "
                   "a model dump_list; use \"dump_list\": [] or set "
                   "dump_debug to 'off'");
    }
    // model_name -> index of its entry.
    std::map<std::string_view, size_t> names;
    for (size_t i = 0; i < list.elements().size(); ++i) {
      const Node& entry = list.elements()[i];
      const std::string entry_path = StrCat(path, IndexSegment(i));
      DumpListEntry parsed;
      const Member* name_member = nullptr;
      for (const Member& member : entry.members()) {
        const std::string member_path = MemberPath(entry_path, member.key);
        if (member.key == "model_name") {
          name_member = &member;
          if (member.value.text.empty()) {
            return Error(member_path,
                         "is empty; name a model (its file name without "
                         "extension, or its \"name\"), or remove model_name "
                         "to apply the layers to every model");
          }
          parsed.model_name = member.value.text;
        } else {
          if (member.value.elements().empty()) {
            return Error(member_path,
                         "is empty; list operator names, or remove layer to "
                         "dump every operator of the model");
          }
          std::vector<std::string> layers;
          layers.reserve(member.value.elements().size());
          for (size_t k = 0; k < member.value.elements().size(); ++k) {
            const std::string& layer = member.value.elements()[k].text;
            if (layer.empty()) {
              return Error(StrCat(member_path, IndexSegment(k)),
                           "is empty; give an operator name");
            }
            layers.push_back(layer);
          }
          parsed.layers = std::move(layers);
        }
      }
      if (!parsed.model_name && !parsed.layers) {
        return Error(entry_path,
                     "names neither a model nor layers; add \"model_name\" "
                     "and/or \"layer\", or remove the entry");
      }
      if (name_member != nullptr) {
        const auto [first, added] = names.emplace(name_member->value.text, i);
        if (!added) {
          return Error(
              MemberPath(entry_path, "model_name"),
              StrCat("duplicate model ", Quote(first->first),
                     ", already named by ", path, IndexSegment(first->second),
                     ".model_name; each model_name must be unique: merge "
                     "the entries"));
        }
      }
      config_.dump_list.push_back(std::move(parsed));
    }
    return absl::OkStatus();
  }

  absl::Status CheckDumpPath(const std::string& json_path) {
    const std::string& written = config_.dump_path;
    if (written.empty()) {
      return Error(json_path,
                   "is empty; set it to an existing writable directory");
    }
    const size_t chars = Utf8Chars(written);
    if (chars > kMaxDumpPathChars) {
      return Error(json_path, StrCat("is ", chars, " characters long; at most ",
                                     kMaxDumpPathChars, " are allowed"));
    }
    if (written.find('\0') != std::string::npos) {
      return Error(json_path, "contains a NUL character");
    }
    ASSIGN_OR_RETURN(std::string expanded,
                     ExpandEnvironment(written, json_path));
    std::string absolute = expanded;
    if (absolute.front() != '/') {
      std::error_code error;
      const std::filesystem::path cwd = std::filesystem::current_path(error);
      if (error) {
        return Error(json_path, StrCat("cannot resolve the relative path ",
                                       Quote(written, kMaxShownPathChars),
                                       ": the working directory is unknown (",
                                       error.message(), ")"));
      }
      absolute = StrCat(cwd.native(), "/", expanded);
    }
    std::string where =
        StrCat("directory ", Quote(written, kMaxShownPathChars));
    if (absolute != written) {
      StrAppend(where, " (resolved to ", Quote(absolute, kMaxShownPathChars),
                ")");
    }
    struct stat info;
    if (stat(absolute.c_str(), &info) != 0) {
      const int error = errno;
      switch (error) {
        case ENOENT:
          return Error(json_path,
                       StrCat(where,
                              " does not exist; create it first "
                              "(mkdir -p ",
                              Quote(absolute, kMaxShownPathChars), ")"));
        case ENOTDIR:
          return Error(json_path, StrCat(where,
                                         " cannot be reached: a component "
                                         "of the path is not a directory"));
        case EACCES:
          return Error(json_path, StrCat(where,
                                         " cannot be reached: permission "
                                         "denied on a parent directory"));
        default:
          return Error(json_path,
                       StrCat(where, " cannot be checked: ", ErrnoText(error)));
      }
    }
    if (!S_ISDIR(info.st_mode)) {
      return Error(json_path, StrCat(where,
                                     " is not a directory; dump_path names "
                                     "the directory dump files go to"));
    }
    // access(2) uses the real ids, as a dump writer would. Root passes it
    // whatever the mode bits say; read-only file systems fail with EROFS.
    if (access(absolute.c_str(), R_OK | W_OK | X_OK) != 0) {
      const int error = errno;
      if (error == EROFS) {
        return Error(json_path, StrCat(where,
                                       " is on a read-only file system; "
                                       "choose a writable directory"));
      }
      return Error(json_path,
                   StrCat(where,
                          " is not readable and writable by the current "
                          "user (uid ",
                          getuid(), "): ", ErrnoText(error),
                          "; grant access (e.g. chmod u+rwx) or choose another "
                          "directory"));
    }
    char* real = realpath(absolute.c_str(), nullptr);
    if (real == nullptr) {
      return Error(json_path,
                   StrCat(where, " cannot be resolved: ", ErrnoText(errno)));
    }
    config_.dump_path_resolved = real;
    std::free(real);
    return absl::OkStatus();
  }

  // Replaces $NAME and ${NAME}: the SDK's own example is "$HOME/output". A
  // '$' not followed by a name stays as it is.
  absl::StatusOr<std::string> ExpandEnvironment(const std::string& text,
                                                const std::string& path) const {
    const auto name_char = [](char c, bool first) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
             (!first && c >= '0' && c <= '9');
    };
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
      if (text[i] != '$') {
        out += text[i++];
        continue;
      }
      const bool braced = i + 1 < text.size() && text[i + 1] == '{';
      size_t begin = i + (braced ? 2 : 1);
      size_t end = begin;
      while (end < text.size() && name_char(text[end], end == begin)) ++end;
      if (end == begin ||
          (braced && (end >= text.size() || text[end] != '}'))) {
        out += text[i++];
        continue;
      }
      const std::string name = text.substr(begin, end - begin);
      const char* value = std::getenv(name.c_str());
      if (value == nullptr || *value == '\0') {
        return Error(path, StrCat("refers to environment variable ",
                                  Printable(name, kMaxShownChars),
                                  ", which is not set (or empty); set it or "
                                  "write the directory out"));
      }
      out += value;
      i = end + (braced ? 1 : 0);
    }
    return out;
  }

  std::string_view text_;
  std::string source_;  // as shown in messages
  DumpConfig config_;
  bool exception_scene_ = false;
  bool overflow_ = false;
};

absl::Status FileError(absl::StatusCode code, const std::string& path,
                       std::string_view reason) {
  return WithKind(absl::Status(code, StrCat(path, ": ", reason)),
                  ErrorKind::kInvalidFile);
}

absl::Status InternalFailure(std::string_view source, std::string_view what) {
  return absl::InternalError(
      StrCat(source, ": could not check the dump config: ", what));
}

class FileCloser {
 public:
  explicit FileCloser(int fd) : fd_(fd) {}
  ~FileCloser() { close(fd_); }
  FileCloser(const FileCloser&) = delete;
  FileCloser& operator=(const FileCloser&) = delete;

 private:
  int fd_;
};

absl::StatusOr<DumpConfig> LoadImpl(const std::string& path) {
  if (path.empty()) {
    return FileError(absl::StatusCode::kInvalidArgument, "(empty path)",
                     "no dump config file named");
  }
  if (path.find('\0') != std::string::npos) {
    return FileError(absl::StatusCode::kInvalidArgument, Printable(path, 200),
                     "the path contains a NUL character");
  }
  // O_NONBLOCK: opening a FIFO must not hang; regular files ignore it.
  const int fd =
      open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) {
      return FileError(absl::StatusCode::kNotFound, path,
                       "the dump config file does not exist");
    }
    if (error == EACCES) {
      return FileError(absl::StatusCode::kPermissionDenied, path,
                       "the dump config file cannot be read: permission "
                       "denied");
    }
    return FileError(
        absl::StatusCode::kInvalidArgument, path,
        StrCat("cannot open the dump config file: ", ErrnoText(error)));
  }
  FileCloser closer(fd);
  struct stat info;
  if (fstat(fd, &info) != 0) {
    return FileError(
        absl::StatusCode::kInvalidArgument, path,
        StrCat("cannot inspect the dump config file: ", ErrnoText(errno)));
  }
  if (S_ISDIR(info.st_mode)) {
    return FileError(absl::StatusCode::kInvalidArgument, path,
                     "is a directory; name the acl.json file itself");
  }
  if (!S_ISREG(info.st_mode)) {
    return FileError(absl::StatusCode::kInvalidArgument, path,
                     "is not a regular file");
  }
  const auto too_large = [&](uint64_t size) {
    return FileError(
        absl::StatusCode::kInvalidArgument, path,
        StrCat("is ", size, " bytes; a dump config file may be at most ",
               kMaxConfigBytes, " bytes (10 MiB)"));
  };
  if (static_cast<uint64_t>(info.st_size) > kMaxConfigBytes) {
    return too_large(info.st_size);
  }
  // Read up to one byte past the limit: the file may grow after fstat.
  std::string text(std::min<uint64_t>(info.st_size, kMaxConfigBytes) + 1, '\0');
  size_t size = 0;
  while (true) {
    if (size == text.size()) {
      if (size > kMaxConfigBytes) return too_large(size);
      text.resize(std::min(2 * size, kMaxConfigBytes + 1));
    }
    const ssize_t n = read(fd, text.data() + size, text.size() - size);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return FileError(
          absl::StatusCode::kInvalidArgument, path,
          StrCat("cannot read the dump config file: ", ErrnoText(errno)));
    }
    size += static_cast<size_t>(n);
  }
  if (size > kMaxConfigBytes) return too_large(size);
  text.resize(size);
  return ParseDumpConfig(text, path);
}

std::string ModesText(DumpMode mode) {
  switch (mode) {
    case DumpMode::kInput:
      return "inputs";
    case DumpMode::kOutput:
      return "outputs";
    case DumpMode::kAll:
      return "inputs and outputs";
  }
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------
// Entry points: nothing may escape them (the input is untrusted, and callers
// include a C ABI).

absl::StatusOr<DumpConfig> LoadDumpConfigFile(const std::string& path) {
  try {
    return LoadImpl(path);
  } catch (const std::bad_alloc&) {
    return InternalFailure(path, "out of memory");
  } catch (const std::exception& e) {
    return InternalFailure(path, e.what());
  } catch (...) {
    return InternalFailure(path, "unknown exception");
  }
}

absl::StatusOr<DumpConfig> ParseDumpConfig(std::string_view json_text,
                                           std::string_view source) {
  try {
    return Parser(json_text, source).Run();
  } catch (const std::bad_alloc&) {
    return InternalFailure(source, "out of memory");
  } catch (const std::exception& e) {
    return InternalFailure(source, e.what());
  } catch (...) {
    return InternalFailure(source, "unknown exception");
  }
}

std::string DescribeDumpConfig(const DumpConfig& config) {
  const std::string source =
      config.source.empty() ? "the config" : config.source;
  if (!config.enabled() && config.dump_path.empty()) {
    return StrCat("dump disabled: ", source, " has no dump settings");
  }
  if (config.scene == DumpScene::kException) {
    std::string text =
        "exception dump (dump_scene lite_exception): inputs, outputs, "
        "workspace and tiling data of operators that fail, into "
        "$ASCEND_WORK_PATH or the working directory";
    if (!config.dump_list.empty()) {
      StrAppend(text, "; the dump_list (", config.dump_list.size(),
                config.dump_list.size() == 1 ? " entry" : " entries",
                ") is ignored: exception dump takes precedence");
    }
    return text;
  }
  std::string steps =
      config.steps ? StrCat("steps ", config.steps->ToString()) : "every step";
  std::string data = "tensor";
  if (config.data == DumpData::kStats) {
    std::vector<std::string_view> names;
    for (StatColumn column : config.stats) {
      names.push_back(StatColumnConfigName(column));
    }
    data = names.empty() ? "stats (default columns)"
                         : StrCat("stats (", StrJoin(names, ", "), ")");
  }
  const std::string into = StrCat("into ", config.dump_path_resolved);
  if (config.scene == DumpScene::kOverflow) {
    return StrCat(
        "overflow dump of the inputs and outputs of operators whose results "
        "overflow, ",
        steps, ", ", into);
  }
  std::vector<std::string> what;
  if (config.model_dump()) {
    size_t named = 0;
    for (const DumpListEntry& entry : config.dump_list) {
      named += entry.model_name.has_value();
    }
    const size_t every = config.dump_list.size() - named;
    std::string models = "model dump of ";
    if (named > 0) StrAppend(models, Plural(named, "model"));
    if (named > 0 && every > 0) models += " and ";
    if (every > 0) {
      StrAppend(models, Plural(every, "layer list"), " for every model");
    }
    what.push_back(models);
  }
  if (config.op_switch) what.push_back("single-operator dump");
  if (what.empty()) {
    return StrCat(
        "dump configured but nothing selected (empty dump_list, "
        "dump_op_switch off), ",
        into);
  }
  return StrCat(StrJoin(what, " and "), ", ", ModesText(config.mode), ", ",
                data, ", ", steps, ", ", into);
}

}  // namespace acldump::dump
