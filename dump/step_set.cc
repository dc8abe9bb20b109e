#include "dump/step_set.h"

#include <algorithm>
#include <limits>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"

namespace acldump::dump {
namespace {

constexpr size_t kMaxStepItems = 100;
constexpr uint64_t kMaxStep = std::numeric_limits<uint64_t>::max();
// The NPU SDK compares range ends with strtol, which saturates here.
constexpr uint64_t kMaxComparedStep = std::numeric_limits<int64_t>::max();

// One `|`-separated item of a step list, for messages.
struct Item {
  size_t index;  // 1-based
  size_t count;
  std::string_view text;

  absl::Status Error(std::string_view reason) const {
    return absl::InvalidArgumentError(StrCat("item ", index, " of ", count,
                                             " (", Quote(text), "): ", reason));
  }
};

// Decimal digits to a number, saturating at 2^64 - 1. `what` names the part
// ("value", "start", "end") for messages.
absl::StatusOr<uint64_t> ParseNumber(const Item& item, std::string_view digits,
                                     std::string_view what) {
  if (digits.empty()) {
    return item.Error(
        StrCat("the range has no ", what,
               what == "start" ? " (negative steps are not allowed)" : ""));
  }
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return item.Error(StrCat(Quote(std::string_view(&c, 1)),
                               " is not allowed; steps are written with "
                               "digits, '-' and '|' only"));
    }
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    value = value > (kMaxStep - digit) / 10 ? kMaxStep : value * 10 + digit;
  }
  return value;
}

// One item: "N" or "A-B".
absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseItem(const Item& item) {
  if (item.text.empty()) {
    return item.Error(
        "is empty; remove the extra '|' (items are N or A-B separated by "
        "single '|')");
  }
  const size_t dash = item.text.find('-');
  if (dash == std::string_view::npos) {
    ASSIGN_OR_RETURN(const uint64_t step,
                     ParseNumber(item, item.text, "value"));
    return std::make_pair(step, step);
  }
  const std::string_view first_text = item.text.substr(0, dash);
  const std::string_view last_text = item.text.substr(dash + 1);
  if (last_text.find('-') != std::string_view::npos) {
    return item.Error("has more than one '-'; a range is written A-B");
  }
  ASSIGN_OR_RETURN(uint64_t first, ParseNumber(item, first_text, "start"));
  ASSIGN_OR_RETURN(uint64_t last, ParseNumber(item, last_text, "end"));
  if (std::min(first, kMaxComparedStep) > std::min(last, kMaxComparedStep)) {
    return item.Error(StrCat("range start ", first, " is greater than its end ",
                             last, "; write ", last, "-", first));
  }
  // Both beyond 2^63 - 1 and written high to low: the same (unreachable)
  // iterations either way.
  if (first > last) std::swap(first, last);
  return std::make_pair(first, last);
}

}  // namespace

absl::StatusOr<StepSet> StepSet::Parse(std::string_view text) {
  if (text.empty()) {
    return absl::InvalidArgumentError(
        "the step list is empty; remove dump_step to dump every iteration");
  }
  const size_t count = std::count(text.begin(), text.end(), '|') + 1;
  if (count > kMaxStepItems) {
    return absl::InvalidArgumentError(
        StrCat("the step list has ", count, " items; at most ", kMaxStepItems,
               " are allowed (use ranges such as 0-99)"));
  }
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  ranges.reserve(count);
  size_t begin = 0;
  for (size_t index = 1; index <= count; ++index) {
    size_t end = text.find('|', begin);
    if (end == std::string_view::npos) end = text.size();
    const Item item{index, count, text.substr(begin, end - begin)};
    begin = end + 1;
    ASSIGN_OR_RETURN(const auto range, ParseItem(item));
    ranges.push_back(range);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& range : ranges) {
    // Adjacent ranges merge too; written to avoid overflow at uint64 max.
    if (!merged.empty() && (range.first <= merged.back().second ||
                            range.first - merged.back().second == 1)) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return StepSet(std::move(merged));
}

bool StepSet::Contains(uint64_t iteration) const {
  auto it = std::upper_bound(
      ranges_.begin(), ranges_.end(), iteration,
      [](uint64_t value, const std::pair<uint64_t, uint64_t>& range) {
        return value < range.first;
      });
  if (it == ranges_.begin()) return false;
  --it;
  return iteration <= it->second;
}

std::string StepSet::ToString() const {
  std::string out;
  for (const auto& [first, last] : ranges_) {
    if (!out.empty()) out += '|';
    if (first == last) {
      StrAppend(out, first);
    } else {
      StrAppend(out, first, "-", last);
    }
  }
  return out;
}

}  // namespace acldump::dump
