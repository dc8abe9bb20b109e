#include "dump/format/testing/dump_test_util.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/strings.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "kernels/half.h"

namespace acldump::dump::testing {
namespace {

namespace fs = std::filesystem;

std::string Payload(const FakeTensor& t) {
  std::string bytes;
  for (float v : t.values) {
    if (t.data_type == 2 || t.data_type == 27) {
      const uint16_t bits =
          t.data_type == 2 ? FloatToHalfBits(v) : FloatToBFloat16Bits(v);
      bytes.append(reinterpret_cast<const char*>(&bits), 2);
    } else {
      bytes.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return bytes;
}

template <typename Proto>
void Describe(const FakeTensor& t, Proto* proto) {
  proto->set_data_type(
      static_cast<toolkit::dumpdata::OutputDataType>(t.data_type));
  proto->set_format(toolkit::dumpdata::FORMAT_ND);
  if (t.shape.empty()) {
    proto->mutable_shape()->add_dim(t.values.size());
  } else {
    for (uint64_t d : t.shape) proto->mutable_shape()->add_dim(d);
  }
}

}  // namespace

std::string NewTempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(base != nullptr ? base : "/tmp") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string WriteDumpFile(const std::string& dir, const FakeOp& op,
                          uint32_t task_id, uint64_t timestamp_us) {
  dump::DumpFileContents contents;
  auto& h = contents.header;
  h.set_op_name(op.name);
  for (const FakeTensor& t : op.inputs) {
    Describe(t, h.add_input());
    contents.inputs.push_back(Payload(t));
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const FakeTensor& t = op.outputs[i];
    auto* out = h.add_output();
    Describe(t, out);
    contents.outputs.push_back(Payload(t));
    if (op.device && t.original_op.empty()) continue;
    out->mutable_original_op()->set_name(t.original_op.empty() ? op.name
                                                               : t.original_op);
    out->mutable_original_op()->set_output_index(i);
  }
  if (!op.device) {
    auto* type = h.add_attr();
    type->set_name("op_type");
    type->set_value(op.type);
    auto* names = h.add_attr();
    names->set_name("original_names");
    names->set_value(StrJoin(op.original_names.empty()
                                 ? std::vector<std::string>{op.name}
                                 : op.original_names,
                             ","));
  }
  absl::StatusOr<std::string> bytes = dump::EncodeDumpFile(contents);
  if (!bytes.ok())
    throw std::runtime_error(std::string(bytes.status().message()));
  fs::create_directories(dir);
  const std::string path = StrCat(
      dir, "/", dump::DumpFileName(op.type, op.name, task_id, 0, timestamp_us));
  WriteText(path, *bytes);
  return path;
}

std::string ModelFolder(const std::string& dump_path, int iteration,
                        const std::string& model, const std::string& time) {
  return StrCat(dump_path, "/", time, "/0/", model, "/1/", iteration);
}

}  // namespace acldump::dump::testing
