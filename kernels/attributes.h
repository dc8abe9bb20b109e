// Operator attributes (ONNX-style): named ints, floats, strings, lists of
// those, and tensors.
#ifndef ACLDUMP_KERNELS_ATTRIBUTES_H_
#define ACLDUMP_KERNELS_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace acldump {

using AttrValue =
    std::variant<int64_t, float, std::string, std::vector<int64_t>,
                 std::vector<float>, std::vector<std::string>,
                 std::shared_ptr<const Tensor>>;

// "int", "float", "string", "ints", "floats", "strings", "tensor".
std::string_view AttrTypeName(const AttrValue& value);
// A short human-readable rendering ("3", "[1,1]", "\"NOTSET\"", "float32[64]").
std::string AttrValueToString(const AttrValue& value);

class Attributes {
 public:
  void Set(std::string name, AttrValue value) {
    values_[std::move(name)] = std::move(value);
  }
  bool Has(std::string_view name) const {
    return values_.find(name) != values_.end();
  }
  const std::map<std::string, AttrValue, std::less<>>& values() const {
    return values_;
  }
  size_t size() const { return values_.size(); }

  // Typed getters: the default when absent, an error naming the attribute when
  // it has another type.
  absl::StatusOr<int64_t> GetInt(std::string_view name,
                                 int64_t default_value) const;
  // A 0/1 integer attribute (keepdims, ceil_mode, ...); other values are an
  // error naming the attribute.
  absl::StatusOr<bool> GetFlag(std::string_view name, bool default_value) const;
  absl::StatusOr<float> GetFloat(std::string_view name,
                                 float default_value) const;
  absl::StatusOr<std::string> GetString(std::string_view name,
                                        std::string_view default_value) const;
  absl::StatusOr<std::vector<int64_t>> GetInts(
      std::string_view name, std::vector<int64_t> default_value = {}) const;
  absl::StatusOr<std::vector<float>> GetFloats(
      std::string_view name, std::vector<float> default_value = {}) const;
  absl::StatusOr<std::vector<std::string>> GetStrings(
      std::string_view name, std::vector<std::string> default_value = {}) const;
  // Null when absent.
  absl::StatusOr<std::shared_ptr<const Tensor>> GetTensor(
      std::string_view name) const;

  friend bool operator==(const Attributes& a, const Attributes& b);

 private:
  template <typename T>
  absl::StatusOr<T> Get(std::string_view name, T default_value) const;
  std::map<std::string, AttrValue, std::less<>> values_;
};

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_ATTRIBUTES_H_
