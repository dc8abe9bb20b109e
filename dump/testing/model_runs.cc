#include "dump/testing/model_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/strings.h"
#include "kernels/npy.h"
#include "runtime/model_loader.h"

namespace acldump::dump {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(base ? base : "/tmp") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string WriteConfig(const std::string& dir, const std::string& json) {
  const std::string path = dir + "/acl.json";
  std::ofstream(path) << json;
  return path;
}

std::vector<std::string> FilesUnder(const std::string& root) {
  std::vector<std::string> files;
  if (!fs::exists(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file())
      files.push_back(fs::relative(entry.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Loaded Load(DumpManager& manager, ModelRegistry& registry,
            const std::string& path, bool from_memory, int32_t device) {
  absl::StatusOr<std::unique_ptr<CompiledModel>> compiled;
  std::string stem;
  if (from_memory) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    compiled = LoadStaticModel(ModelSource::Memory(bytes));
  } else {
    compiled = LoadStaticModel(ModelSource::File(path));
    stem = FileStem(path);
  }
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  Loaded loaded;
  loaded.registered = std::make_shared<GearedModel>(std::move(*compiled));
  loaded.model = &loaded.registered->plan(0);
  loaded.id = *registry.Add(loaded.registered, stem);
  Attachment attachment = manager.OnModelLoad(
      *loaded.model, ModelIdentity{loaded.id, stem, device}, &loaded.warnings);
  loaded.attach_status = attachment.status;
  if (attachment.observer) {
    EXPECT_TRUE(
        loaded.model->AttachObserver(attachment.observer, attachment.step_flags)
            .ok());
  }
  return loaded;
}

std::vector<Tensor> RunModel(CompiledModel& model, absl::Status* status_out,
                             const std::function<void(Tensor&)>& change_input) {
  std::vector<Tensor> inputs;
  std::vector<HostBuffer> in;
  for (const auto& input : model.graph().inputs) {
    auto t = ReadNpyFile("testdata/" + model.graph().name + ".input." +
                         input.name + ".npy");
    EXPECT_TRUE(t.ok()) << t.status();
    if (change_input) change_input(*t);
    inputs.push_back(std::move(*t));
  }
  for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
  std::vector<Tensor> outputs;
  std::vector<MutableHostBuffer> out;
  for (const auto& output : model.graph().outputs) {
    outputs.emplace_back(output.info.dtype, output.info.shape);
  }
  for (Tensor& t : outputs) out.push_back({t.data(), t.ByteSize()});
  absl::Status status = model.Execute(in, out);
  if (status_out != nullptr) {
    *status_out = status;
  } else {
    EXPECT_TRUE(status.ok()) << status;
  }
  return outputs;
}

}  // namespace acldump::dump
