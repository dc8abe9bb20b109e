// Value helpers shared by the kernel tests: conversions between double
// references and tensor element types, and seeded random inputs.
#ifndef ACLDUMP_KERNELS_TESTING_TEST_VALUES_H_
#define ACLDUMP_KERNELS_TESTING_TEST_VALUES_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kernels/half.h"
#include "kernels/tensor.h"
#include "kernels/testing/op_tester.h"

namespace acldump::testing {

inline std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

template <typename T>
double AsDouble(const T& v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
std::vector<T> Convert(const std::vector<double>& values) {
  std::vector<T> out;
  for (double v : values) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out.push_back(T(static_cast<float>(v)));
    } else {
      out.push_back(static_cast<T>(v));
    }
  }
  return out;
}

// The values a T holds for `values` (what the kernel actually sees).
template <typename T>
std::vector<double> RoundTrip(const std::vector<double>& values) {
  std::vector<double> out;
  for (const T& v : Convert<T>(values)) out.push_back(AsDouble(v));
  return out;
}

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (const T& v : Values<T>(t)) out.push_back(AsDouble(v));
  return out;
}

// Small integers: exact in every type, sums exact, and ties for index
// tie-breaking.
inline std::vector<double> RandomInts(int64_t n, uint32_t seed, int lo = -8,
                                      int hi = 8) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) v = dist(rng);
  return out;
}

inline std::vector<double> RandomValues(int64_t n, uint32_t seed,
                                        double lo = -3, double hi = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) v = dist(rng);
  return out;
}

// The order float32 sums take in the kernels (kernels/plane_sum.h): element
// i into double partial sum i % 8, the partials added in order.
inline double EightPartialSum(const float* x, int64_t n) {
  double partial[8] = {};
  for (int64_t i = 0; i < n; ++i) partial[i % 8] += static_cast<double>(x[i]);
  double sum = 0;
  for (double p : partial) sum += p;
  return sum;
}

inline int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace acldump::testing

#endif  // ACLDUMP_KERNELS_TESTING_TEST_VALUES_H_
