// Test helpers: small dump trees written with the dump format's own encoder.
#ifndef ACLDUMP_DUMP_FORMAT_TESTING_DUMP_TEST_UTIL_H_
#define ACLDUMP_DUMP_FORMAT_TESTING_DUMP_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace acldump::dump::testing {

struct FakeTensor {
  std::vector<float> values;
  std::vector<uint64_t> shape;  // empty: [values.size()]
  int32_t data_type = 1;        // DT_FLOAT; DT_FLOAT16 (2) and DT_BF16 (27)
                                // are converted from `values`
  std::string original_op;      // outputs only
};

struct FakeOp {
  std::string type;
  std::string name;
  std::vector<std::string> original_names;
  std::vector<FakeTensor> inputs, outputs;
  // As a device writes it: no acldump attributes, and an output's original op
  // only where the tensor names one.
  bool device = false;
};

// A fresh empty folder under $TEST_TMPDIR.
std::string NewTempDir(const std::string& name);
void WriteText(const std::string& path, const std::string& text);
// Writes `op` as a file in the 2.0 layout "{type}.{name}.{task}.0.{timestamp}"
// in `dir` (created) and returns its path.
std::string WriteDumpFile(const std::string& dir, const FakeOp& op,
                          uint32_t task_id, uint64_t timestamp_us);
// "{dump_path}/{time}/{device}/{model}/{model_id}/{iteration}".
std::string ModelFolder(const std::string& dump_path, int iteration,
                        const std::string& model = "net",
                        const std::string& time = "20250101120000");

}  // namespace acldump::dump::testing

#endif  // ACLDUMP_DUMP_FORMAT_TESTING_DUMP_TEST_UTIL_H_
