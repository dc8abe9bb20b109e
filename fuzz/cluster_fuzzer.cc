// Files a cluster's workers write into the shared scratch folder (untrusted:
// another user's worker, a damaged disk): a compare task, a task's results,
// a listing. The same bytes are read as each.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/scratch.h"
#include "nlohmann/json.hpp"
#include "tools/cluster/tree_shard.h"
#include "tools/compare/compare.h"
#include "tools/compare/shard.h"

namespace {

using acldump::tools::CompareSide;
using acldump::tools::CompareTaskFiles;
using acldump::tools::CompareTree;
using acldump::tools::FolderPlan;
using acldump::tools::OpRecord;
using acldump::tools::TensorRef;

const std::string& Folder() { return acldump::fuzz::ScratchFolder("cluster"); }
using acldump::fuzz::WriteFile;

// Two folder pairs of two operators each, nothing on disk: what a result is
// merged against.
struct Sides {
  CompareTree a, b;
  FolderPlan plan;
};

const Sides& Plan() {
  static const Sides* sides = [] {
    auto* s = new Sides;
    for (CompareTree* tree : {&s->a, &s->b}) {
      tree->root = Folder();
      for (int iteration = 0; iteration < 2; ++iteration) {
        CompareSide side;
        side.layout = acldump::dump::Layout::kModel;
        side.model = "net";
        side.iteration = iteration;
        side.device = 0;
        for (const char* name : {"conv", "relu"}) {
          OpRecord op;
          op.name = name;
          op.type = "Conv";
          op.outputs.push_back(TensorRef{false, 0, "", 0});
          op.path = Folder() + "/missing";
          side.ops.push_back(std::move(op));
        }
        tree->folders.push_back(std::move(side));
      }
    }
    s->plan = acldump::tools::PairFolders(s->a, s->b);
    return s;
  }();
  return *sides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // A listing (`dump ls --json`, a scan task's output).
  const nlohmann::json json = nlohmann::json::parse(input, nullptr, false);
  if (!json.is_discarded()) {
    std::vector<acldump::dump::DumpEntry> entries;
    std::vector<std::string> problems;
    (void)acldump::tools::EntriesFromJson(json, entries, problems);
  }
  // A task's results, merged against a fixed plan.
  const std::string result = Folder() + "/result-0.pb";
  WriteFile(result, input);
  const std::vector<CompareTaskFiles> tasks = {
      {Folder() + "/task-0.pb", result, {0, 1}}};
  (void)acldump::tools::MergeCompareResults(Plan().plan, tasks);
  // A compare task (its dump files do not exist: the comparison reports it).
  const std::string task = Folder() + "/task-1.pb";
  WriteFile(task, input);
  (void)acldump::tools::RunCompareTask(task, Folder() + "/result-1.pb");
  return 0;
}
