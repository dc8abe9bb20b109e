#include "kernels/attributes.h"

#include <cstring>

#include "base/strings.h"

namespace acldump {
namespace {

template <typename T>
constexpr std::string_view TypeNameOf() {
  if constexpr (std::is_same_v<T, int64_t>) return "int";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, std::string>) return "string";
  if constexpr (std::is_same_v<T, std::vector<int64_t>>) return "ints";
  if constexpr (std::is_same_v<T, std::vector<float>>) return "floats";
  if constexpr (std::is_same_v<T, std::vector<std::string>>) return "strings";
  return "tensor";
}

}  // namespace

std::string_view AttrTypeName(const AttrValue& value) {
  return std::visit(
      [](const auto& v) { return TypeNameOf<std::decay_t<decltype(v)>>(); },
      value);
}

std::string AttrValueToString(const AttrValue& value) {
  struct Printer {
    std::string operator()(int64_t v) const { return StrCat(v); }
    std::string operator()(float v) const { return StrCat(v); }
    std::string operator()(const std::string& v) const {
      return StrCat("\"", v, "\"");
    }
    std::string operator()(const std::vector<int64_t>& v) const {
      return StrCat("[", StrJoin(v, ","), "]");
    }
    std::string operator()(const std::vector<float>& v) const {
      return StrCat("[", StrJoin(v, ","), "]");
    }
    std::string operator()(const std::vector<std::string>& v) const {
      return StrCat("[\"", StrJoin(v, "\",\""), "\"]");
    }
    std::string operator()(const std::shared_ptr<const Tensor>& v) const {
      return v ? v->info().ToString() : "null";
    }
  };
  return std::visit(Printer{}, value);
}

template <typename T>
absl::StatusOr<T> Attributes::Get(std::string_view name,
                                  T default_value) const {
  auto it = values_.find(name);
  if (it == values_.end()) return default_value;
  if (const T* typed = std::get_if<T>(&it->second)) return *typed;
  // ONNX stores some scalars as ints where a float is meant; accept that
  // widening only.
  if constexpr (std::is_same_v<T, float>) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second))
      return static_cast<float>(*i);
  }
  return absl::InvalidArgumentError(
      StrCat("attribute '", name, "' must be of type ", TypeNameOf<T>(),
             ", got ", AttrTypeName(it->second)));
}

absl::StatusOr<int64_t> Attributes::GetInt(std::string_view name,
                                           int64_t default_value) const {
  return Get<int64_t>(name, default_value);
}
absl::StatusOr<bool> Attributes::GetFlag(std::string_view name,
                                         bool default_value) const {
  absl::StatusOr<int64_t> value = Get<int64_t>(name, default_value ? 1 : 0);
  if (!value.ok()) return value.status();
  if (*value != 0 && *value != 1) {
    return absl::InvalidArgumentError(
        StrCat("attribute '", name, "' must be 0 or 1, got ", *value));
  }
  return *value == 1;
}
absl::StatusOr<float> Attributes::GetFloat(std::string_view name,
                                           float default_value) const {
  return Get<float>(name, default_value);
}
absl::StatusOr<std::string> Attributes::GetString(
    std::string_view name, std::string_view default_value) const {
  return Get<std::string>(name, std::string(default_value));
}
absl::StatusOr<std::vector<int64_t>> Attributes::GetInts(
    std::string_view name, std::vector<int64_t> default_value) const {
  return Get<std::vector<int64_t>>(name, std::move(default_value));
}
absl::StatusOr<std::vector<float>> Attributes::GetFloats(
    std::string_view name, std::vector<float> default_value) const {
  return Get<std::vector<float>>(name, std::move(default_value));
}
absl::StatusOr<std::vector<std::string>> Attributes::GetStrings(
    std::string_view name, std::vector<std::string> default_value) const {
  return Get<std::vector<std::string>>(name, std::move(default_value));
}
absl::StatusOr<std::shared_ptr<const Tensor>> Attributes::GetTensor(
    std::string_view name) const {
  return Get<std::shared_ptr<const Tensor>>(name, nullptr);
}

bool operator==(const Attributes& a, const Attributes& b) {
  if (a.values_.size() != b.values_.size()) return false;
  for (auto ia = a.values_.begin(), ib = b.values_.begin();
       ia != a.values_.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.index() != ib->second.index())
      return false;
    if (const auto* ta =
            std::get_if<std::shared_ptr<const Tensor>>(&ia->second)) {
      const auto& tb = std::get<std::shared_ptr<const Tensor>>(ib->second);
      if (!*ta || !tb) {
        if (*ta != tb) return false;
        continue;
      }
      if ((*ta)->info() != tb->info() ||
          std::memcmp((*ta)->data(), tb->data(), (*ta)->ByteSize()) != 0) {
        return false;
      }
    } else if (ia->second != ib->second) {
      return false;
    }
  }
  return true;
}

}  // namespace acldump
