// Internal to //dump:config: the dump object's schema (its keys, their types
// and enum values) and the context the checks of dump/config_rules.h share.
// Users include dump/config.h.
#ifndef ACLDUMP_DUMP_CONFIG_SCHEMA_H_
#define ACLDUMP_DUMP_CONFIG_SCHEMA_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "dump/config.h"
#include "dump/json_tree.h"

namespace acldump::dump::config_internal {

// Keys of each object, in the order the SDK checks them.
extern const std::vector<std::string_view> kDumpKeys;
extern const std::vector<std::string_view> kEntryKeys;
extern const std::vector<std::string_view> kFilterKeys;  // blacklist items
extern const std::vector<std::string_view> kRangeKeys;   // opname_range items

inline constexpr std::string_view kLiteException = "lite_exception";
inline constexpr std::string_view kWatcher = "watcher";
inline constexpr std::string_view kBriefException = "aic_err_brief_dump";
inline constexpr std::string_view kNormException = "aic_err_norm_dump";
inline constexpr std::string_view kDetailException = "aic_err_detail_dump";

bool Contains(const std::vector<std::string_view>& words,
              std::string_view word);
std::string MemberPath(std::string_view parent, std::string_view key);
std::string ElementPath(std::string_view parent, size_t index);
// "exception dump", "watcher dump", "AI Core error dump".
std::string_view SceneKind(std::string_view scene);

// The dump object being checked, how to report on it, and the values the
// checks read. Every check takes it; none keeps state of its own.
class CheckContext {
 public:
  // `source` names the file in messages; warnings go to `warnings`.
  CheckContext(const JsonNode& dump, std::string source,
               std::vector<std::string>* warnings)
      : dump_(dump), source_(std::move(source)), warnings_(warnings) {}

  const JsonNode& dump() const { return dump_; }

  // kInvalidDumpConfig: "<source>: <path>: <reason>".
  absl::Status Error(std::string_view path, std::string_view reason) const;
  // kFeatureUnsupported: the same, plus "(not supported on this runtime)".
  absl::Status Unsupported(std::string_view path,
                           std::string_view reason) const;
  void Warn(std::string_view path, std::string_view reason) const;

  const JsonNode* Field(std::string_view key) const { return dump_.Find(key); }
  // A string field's value; "" when absent (the SDK's defaults apply). Only
  // once the types are checked.
  std::string_view Text(std::string_view key) const;
  bool IsOn(std::string_view key) const { return Text(key) == "on"; }
  bool HasElements(std::string_view key) const;

  // For a missing required key: "; the key 'dump_pth' is not known and is
  // ignored: did you mean 'dump_path'?" when `object` has such a key, else "".
  static std::string TypoHint(const JsonNode& object, std::string_view wanted,
                              const std::vector<std::string_view>& known);

 private:
  const JsonNode& dump_;
  const std::string source_;
  std::vector<std::string>* warnings_;
};

// Duplicate keys anywhere in the dump object are errors (this runtime's
// rule); unknown keys are warnings with the nearest known key (the SDK ignores
// them).
absl::Status CheckKeys(const CheckContext& c);

// The SDK's type checks: the string keys, dump_stats (strings), dump_list
// (objects, and the types inside its items).
absl::Status CheckTypes(const CheckContext& c);

// The SDK's value checks: enums ("" is an error, values are case-sensitive),
// dump_kernel_data items, statistic names. Stores mode, data, op_switch and
// level into `config`.
absl::Status CheckValues(const CheckContext& c, DumpConfig& config);

}  // namespace acldump::dump::config_internal

#endif  // ACLDUMP_DUMP_CONFIG_SCHEMA_H_
