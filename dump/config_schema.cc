#include "dump/config_schema.h"

#include <algorithm>
#include <optional>
#include <set>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/payload.h"

namespace acldump::dump::config_internal {

const std::vector<std::string_view> kDumpKeys = {
    "dump_path",
    "dump_mode",
    "dump_op_switch",
    "dump_level",
    "dump_scene",
    "dump_data",
    "dump_debug",
    "dump_kernel_data",
    "dump_step",
    "dump_layout",
    "dump_baseline",
    "dump_baseline_tensors",
    // acldump's own, for services: what an execution does when the writer is
    // behind, and the bytes a session may write.
    "dump_backpressure",
    "dump_wait_budget_us",
    "dump_max_bytes",
    // acldump's own: retention, the newest iterations kept per model.
    "dump_keep_iterations",
    "dump_stats",
    "dump_list",
};
const std::vector<std::string_view> kEntryKeys = {
    "model_name",       "layer",        "watcher_nodes", "optype_blacklist",
    "opname_blacklist", "opname_range",
};
const std::vector<std::string_view> kFilterKeys = {"name", "pos"};
const std::vector<std::string_view> kRangeKeys = {"begin", "end"};

namespace {

// The first sixteen keys of kDumpKeys hold strings.
constexpr size_t kNumStringKeys = 16;
// Unknown keys warned about one by one; the rest are counted.
constexpr size_t kMaxUnknownKeyWarnings = 20;

const std::vector<std::string_view> kModes = {"input", "output", "all"};
// dump_data: the registered payloads.
const std::vector<std::string_view> kDataKinds = [] {
  std::vector<std::string_view> names;
  for (const PayloadKind* kind : Payloads()) names.push_back(kind->name);
  return names;
}();
const std::vector<std::string_view> kSwitches = {"on", "off"};
const std::vector<std::string_view> kLevels = {"op", "kernel", "all"};
// acldump's own key (not the SDK's): one file per record, or packed.
const std::vector<std::string_view> kLayouts = {"sdk", "packed"};
// acldump's own: an execution waits for a writer that is behind, or drops
// the records it cannot hand over within its wait budget.
const std::vector<std::string_view> kBackpressure = {"wait", "drop"};
const std::vector<std::string_view> kScenes = {kLiteException, kBriefException,
                                               kNormException, kDetailException,
                                               kWatcher};
const std::vector<std::string_view> kKernelData = {"all", "printf", "tensor",
                                                   "assert", "timestamp"};

// The enum keys, in the order the SDK checks their values.
struct EnumKey {
  std::string_view key;
  const std::vector<std::string_view>* values;
};
const std::vector<EnumKey> kEnumKeys = {
    {"dump_mode", &kModes},         {"dump_data", &kDataKinds},
    {"dump_op_switch", &kSwitches}, {"dump_level", &kLevels},
    {"dump_debug", &kSwitches},     {"dump_scene", &kScenes},
    {"dump_layout", &kLayouts},     {"dump_backpressure", &kBackpressure},
};

std::vector<std::string_view> StatNames() {
  std::vector<std::string_view> names;
  for (StatColumn column : kAllStatColumns) {
    names.push_back(StatColumnConfigName(column));
  }
  return names;
}

std::string BadEnumReason(std::string_view value, std::string_view what,
                          const std::vector<std::string_view>& allowed) {
  if (value.empty()) {
    return StrCat("is empty; expected one of ", QuotedList(allowed));
  }
  std::string reason = StrCat("invalid ", what, " ", Quote(value),
                              "; expected one of ", QuotedList(allowed));
  for (std::string_view candidate : allowed) {
    if (AsciiLower(candidate) == AsciiLower(value)) {
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

// Splits as the SDK splits dump_kernel_data: on ',', a trailing ',' giving a
// last empty item, "" giving one empty item.
std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(',', begin);
    if (end == std::string_view::npos) {
      items.push_back(text.substr(begin));
      return items;
    }
    items.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

// ---------------------------------------------------------------------------
// Keys.

// Where a misplaced known key belongs, if `key` is known in another object.
std::optional<std::string> Misplaced(std::string_view key,
                                     std::string_view object) {
  if (object == "dump" && Contains(kEntryKeys, key)) {
    return StrCat("it belongs inside a dump_list entry: \"dump_list\": [{\"",
                  key, "\": ...}]");
  }
  if (object == "dump" && key == "dump") {
    return std::string(
        "the dump section is nested in itself; move its keys up one level");
  }
  if (object != "dump" && Contains(kDumpKeys, key)) {
    return std::string("it belongs in the dump object itself");
  }
  return std::nullopt;
}

class KeyChecker {
 public:
  explicit KeyChecker(const CheckContext& c) : c_(c) {}

  absl::Status Run() {
    RETURN_IF_ERROR(CheckObject(c_.dump(), "dump", kDumpKeys, "dump"));
    if (const JsonNode* list = c_.Field("dump_list")) {
      for (size_t i = 0; i < list->elements().size(); ++i) {
        RETURN_IF_ERROR(
            CheckEntry(list->elements()[i], ElementPath("dump.dump_list", i)));
      }
    }
    if (unknown_keys_ > kMaxUnknownKeyWarnings) {
      c_.Warn("dump", StrCat("and ", unknown_keys_ - kMaxUnknownKeyWarnings,
                             " more unknown keys are ignored"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status CheckEntry(const JsonNode& entry, const std::string& path) {
    RETURN_IF_ERROR(CheckObject(entry, path, kEntryKeys, "dump_list entry"));
    for (std::string_view key : {"optype_blacklist", "opname_blacklist"}) {
      const JsonNode* filters = entry.Find(key);
      if (filters == nullptr) continue;
      for (size_t i = 0; i < filters->elements().size(); ++i) {
        RETURN_IF_ERROR(CheckObject(filters->elements()[i],
                                    ElementPath(MemberPath(path, key), i),
                                    kFilterKeys, "blacklist item"));
      }
    }
    if (const JsonNode* ranges = entry.Find("opname_range")) {
      for (size_t i = 0; i < ranges->elements().size(); ++i) {
        RETURN_IF_ERROR(
            CheckObject(ranges->elements()[i],
                        ElementPath(MemberPath(path, "opname_range"), i),
                        kRangeKeys, "opname_range item"));
      }
    }
    return absl::OkStatus();
  }

  // Only objects have keys: other values are left to the type checks.
  absl::Status CheckObject(const JsonNode& object, const std::string& path,
                           const std::vector<std::string_view>& known,
                           std::string_view what) {
    std::set<std::string_view> seen;
    for (const JsonMember& member : object.members()) {
      const std::string member_path = MemberPath(path, member.key);
      if (!seen.insert(member.key).second) {
        return c_.Error(member_path, StrCat("duplicate key ", Quote(member.key),
                                            "; give each key once"));
      }
      if (!Contains(known, member.key)) {
        WarnUnknown(member_path, member.key, known, what);
      }
    }
    return absl::OkStatus();
  }

  void WarnUnknown(const std::string& path, std::string_view key,
                   const std::vector<std::string_view>& known,
                   std::string_view what) {
    if (++unknown_keys_ > kMaxUnknownKeyWarnings) return;
    std::string reason = StrCat("unknown key ", Quote(key), " is ignored");
    if (std::optional<std::string> where = Misplaced(key, what)) {
      StrAppend(reason, ": ", *where);
    } else if (std::optional<std::string_view> near = NearestWord(key, known)) {
      StrAppend(reason, "; did you mean '", *near, "'?");
    } else {
      StrAppend(reason, "; a ", what, " knows ", QuotedList(known));
    }
    c_.Warn(path, reason);
  }

  const CheckContext& c_;
  size_t unknown_keys_ = 0;
};

// ---------------------------------------------------------------------------
// Types.

absl::Status CheckString(const CheckContext& c, const JsonNode& value,
                         const std::string& path, std::string_view key) {
  if (value.is_string()) return absl::OkStatus();
  std::string reason =
      StrCat("must be a JSON string, found ", DescribeJsonValue(value));
  if (value.type == JsonNode::Type::kNumber) {
    StrAppend(reason, "; write \"", key, "\": \"", Printable(value.text, 40),
              "\"");
  } else if (value.type == JsonNode::Type::kBoolean &&
             (key == "dump_op_switch" || key == "dump_debug")) {
    StrAppend(reason, "; write \"", key, "\": \"",
              value.text == "true" ? "on" : "off", "\"");
  }
  return c.Error(path, reason);
}

absl::Status CheckStringArray(const CheckContext& c, const JsonNode& value,
                              const std::string& path, std::string_view key,
                              std::string_view expected) {
  if (!value.is_array()) {
    std::string reason =
        StrCat("must be ", expected, ", found ", DescribeJsonValue(value));
    if (value.is_string()) {
      StrAppend(reason, "; write \"", key, "\": [", Quote(value.text), "]");
    }
    return c.Error(path, reason);
  }
  for (size_t i = 0; i < value.elements().size(); ++i) {
    const JsonNode& element = value.elements()[i];
    if (!element.is_string()) {
      return c.Error(
          ElementPath(path, i),
          StrCat("must be a JSON string, found ", DescribeJsonValue(element)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckObjectArray(const CheckContext& c, const JsonNode& value,
                              const std::string& path,
                              std::string_view expected,
                              std::string_view item_example) {
  if (!value.is_array()) {
    std::string reason =
        StrCat("must be ", expected, ", found ", DescribeJsonValue(value));
    if (value.is_object()) StrAppend(reason, "; wrap the entry in [ ]");
    return c.Error(path, reason);
  }
  for (size_t i = 0; i < value.elements().size(); ++i) {
    const JsonNode& element = value.elements()[i];
    if (element.is_object()) continue;
    std::string reason = StrCat("must be an object such as ", item_example,
                                ", found ", DescribeJsonValue(element));
    if (element.is_string() &&
        item_example.find("model_name") != std::string_view::npos) {
      StrAppend(reason, "; write {\"model_name\": ", Quote(element.text), "}");
    }
    return c.Error(ElementPath(path, i), reason);
  }
  return absl::OkStatus();
}

absl::Status CheckFilterTypes(const CheckContext& c, const JsonNode& list,
                              const std::string& path) {
  RETURN_IF_ERROR(CheckObjectArray(
      c, list, path,
      "an array of filters such as [{\"name\": \"Conv\", \"pos\": "
      "[\"input0\"]}]",
      "{\"name\": \"Conv\", \"pos\": [\"input0\"]}"));
  for (size_t i = 0; i < list.elements().size(); ++i) {
    const JsonNode& filter = list.elements()[i];
    const std::string filter_path = ElementPath(path, i);
    if (const JsonNode* name = filter.Find("name")) {
      RETURN_IF_ERROR(
          CheckString(c, *name, MemberPath(filter_path, "name"), "name"));
    }
    if (const JsonNode* pos = filter.Find("pos")) {
      RETURN_IF_ERROR(CheckStringArray(
          c, *pos, MemberPath(filter_path, "pos"), "pos",
          "an array of tensor positions such as [\"input0\", \"output1\"]"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRangeTypes(const CheckContext& c, const JsonNode& list,
                             const std::string& path) {
  RETURN_IF_ERROR(CheckObjectArray(
      c, list, path,
      "an array of ranges such as [{\"begin\": \"conv1\", \"end\": "
      "\"relu3\"}]",
      "{\"begin\": \"conv1\", \"end\": \"relu3\"}"));
  for (size_t i = 0; i < list.elements().size(); ++i) {
    for (std::string_view key : kRangeKeys) {
      if (const JsonNode* name = list.elements()[i].Find(key)) {
        RETURN_IF_ERROR(
            CheckString(c, *name, MemberPath(ElementPath(path, i), key), key));
      }
    }
  }
  return absl::OkStatus();
}

// The keys of one dump_list item, in the SDK's order.
absl::Status CheckEntryTypes(const CheckContext& c, const JsonNode& entry,
                             const std::string& path) {
  if (const JsonNode* name = entry.Find("model_name")) {
    RETURN_IF_ERROR(
        CheckString(c, *name, MemberPath(path, "model_name"), "model_name"));
  }
  for (std::string_view key : {"layer", "watcher_nodes"}) {
    if (const JsonNode* names = entry.Find(key)) {
      RETURN_IF_ERROR(
          CheckStringArray(c, *names, MemberPath(path, key), key,
                           "an array of operator names such as [\"conv1\"]"));
    }
  }
  for (std::string_view key : {"optype_blacklist", "opname_blacklist"}) {
    if (const JsonNode* filters = entry.Find(key)) {
      RETURN_IF_ERROR(CheckFilterTypes(c, *filters, MemberPath(path, key)));
    }
  }
  if (const JsonNode* ranges = entry.Find("opname_range")) {
    RETURN_IF_ERROR(
        CheckRangeTypes(c, *ranges, MemberPath(path, "opname_range")));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Values.

void StoreEnum(std::string_view key, std::string_view value,
               DumpConfig& config) {
  if (key == "dump_mode") {
    config.mode = value == "input"    ? DumpMode::kInput
                  : value == "output" ? DumpMode::kOutput
                                      : DumpMode::kAll;
  } else if (key == "dump_data") {
    config.data = FindPayload(value);
  } else if (key == "dump_layout") {
    config.layout = value == "packed" ? DumpLayout::kPacked : DumpLayout::kSdk;
  } else if (key == "dump_op_switch") {
    config.op_switch = value == "on";
  } else if (key == "dump_level") {
    config.level = value == "op"       ? DumpLevel::kOp
                   : value == "kernel" ? DumpLevel::kKernel
                                       : DumpLevel::kAll;
  }
}

absl::Status CheckKernelData(const CheckContext& c) {
  const JsonNode* node = c.Field("dump_kernel_data");
  if (node == nullptr) return absl::OkStatus();
  const std::vector<std::string_view> items = SplitCommas(node->text);
  for (size_t i = 0; i < items.size(); ++i) {
    if (Contains(kKernelData, items[i])) continue;
    const std::string item = items.size() == 1
                                 ? std::string("the value")
                                 : StrCat("item ", i + 1, " of ", items.size());
    return c.Error("dump.dump_kernel_data",
                   StrCat(item, " ",
                          items[i].empty() ? std::string("is empty")
                                           : StrCat("is ", Quote(items[i])),
                          "; expected a comma-separated list of ",
                          QuotedList(kKernelData)));
  }
  return absl::OkStatus();
}

absl::Status CheckStatNames(const CheckContext& c) {
  const JsonNode* stats = c.Field("dump_stats");
  if (stats == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < stats->elements().size(); ++i) {
    const std::string& name = stats->elements()[i].text;
    if (!StatColumnFromConfigName(name)) {
      return c.Error(ElementPath("dump.dump_stats", i),
                     BadEnumReason(name, "statistic", StatNames()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool Contains(const std::vector<std::string_view>& words,
              std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string MemberPath(std::string_view parent, std::string_view key) {
  return StrCat(parent, JsonKeySegment(key, false));
}

std::string ElementPath(std::string_view parent, size_t index) {
  return StrCat(parent, JsonIndexSegment(index));
}

std::string_view SceneKind(std::string_view scene) {
  if (scene == kLiteException) return "exception dump";
  if (scene == kWatcher) return "watcher dump";
  if (scene == kNormException) return "exception dump with tensor details";
  if (scene == kDetailException) return "exception dump with a core dump";
  return "exception dump";
}

absl::Status CheckContext::Error(std::string_view path,
                                 std::string_view reason) const {
  return WithKind(
      absl::InvalidArgumentError(StrCat(source_, ": ", path, ": ", reason)),
      ErrorKind::kInvalidDumpConfig);
}

absl::Status CheckContext::Unsupported(std::string_view path,
                                       std::string_view reason) const {
  return WithKind(
      absl::UnimplementedError(StrCat(source_, ": ", path, ": ", reason,
                                      " (not supported on this runtime)")),
      ErrorKind::kFeatureUnsupported);
}

void CheckContext::Warn(std::string_view path, std::string_view reason) const {
  warnings_->push_back(StrCat(source_, ": ", path, ": ", reason));
}

std::string_view CheckContext::Text(std::string_view key) const {
  const JsonNode* node = Field(key);
  return node != nullptr ? std::string_view(node->text) : "";
}

bool CheckContext::HasElements(std::string_view key) const {
  const JsonNode* node = Field(key);
  return node != nullptr && !node->elements().empty();
}

std::string CheckContext::TypoHint(const JsonNode& object,
                                   std::string_view wanted,
                                   const std::vector<std::string_view>& known) {
  for (const JsonMember& member : object.members()) {
    if (Contains(known, member.key)) continue;
    if (NearestWord(member.key, known) == wanted) {
      return StrCat("; the key ", Quote(member.key),
                    " is not known and is ignored: did you mean '", wanted,
                    "'?");
    }
  }
  return "";
}

absl::Status CheckKeys(const CheckContext& c) { return KeyChecker(c).Run(); }

absl::Status CheckTypes(const CheckContext& c) {
  for (size_t k = 0; k < kNumStringKeys; ++k) {
    if (const JsonNode* value = c.Field(kDumpKeys[k])) {
      RETURN_IF_ERROR(CheckString(c, *value, MemberPath("dump", kDumpKeys[k]),
                                  kDumpKeys[k]));
    }
  }
  if (const JsonNode* stats = c.Field("dump_stats")) {
    RETURN_IF_ERROR(CheckStringArray(
        c, *stats, "dump.dump_stats", "dump_stats",
        "an array of statistic names such as [\"Max\", \"Min\"]"));
  }
  const JsonNode* list = c.Field("dump_list");
  if (list == nullptr) return absl::OkStatus();
  RETURN_IF_ERROR(CheckObjectArray(
      c, *list, "dump.dump_list",
      "an array of model entries such as [{\"model_name\": \"resnet50\"}]",
      "{\"model_name\": \"resnet50\", \"layer\": [\"conv1\"]}"));
  for (size_t i = 0; i < list->elements().size(); ++i) {
    RETURN_IF_ERROR(CheckEntryTypes(c, list->elements()[i],
                                    ElementPath("dump.dump_list", i)));
  }
  return absl::OkStatus();
}

absl::Status CheckValues(const CheckContext& c, DumpConfig& config) {
  for (const EnumKey& e : kEnumKeys) {
    const JsonNode* node = c.Field(e.key);
    if (node == nullptr) continue;
    if (!Contains(*e.values, node->text)) {
      return c.Error(MemberPath("dump", e.key),
                     BadEnumReason(node->text, e.key, *e.values));
    }
    StoreEnum(e.key, node->text, config);
  }
  RETURN_IF_ERROR(CheckKernelData(c));
  return CheckStatNames(c);
}

}  // namespace acldump::dump::config_internal
