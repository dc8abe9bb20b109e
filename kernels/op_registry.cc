#include "kernels/op_registry.h"

#include "absl/strings/cord.h"
#include "base/strings.h"

namespace acldump {
namespace {
constexpr char kNotKnownPayload[] = "acldump.dev/not-known-before-execution";
}  // namespace

absl::Status NotKnownBeforeExecution(std::string_view input_name,
                                     std::string_view detail) {
  absl::Status status = absl::UnimplementedError(std::string(
      StrCat("input '", input_name,
             "' must be known before execution (an initializer or constant)",
             detail.empty() ? "" : "; ", detail)));
  status.SetPayload(
      kNotKnownPayload,
      absl::Cord(absl::string_view(input_name.data(), input_name.size())));
  return status;
}

bool IsNotKnownBeforeExecution(const absl::Status& status) {
  return status.GetPayload(kNotKnownPayload).has_value();
}

absl::Status OpRegistry::Register(OpDef def) {
  if (def.prepare == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("op ", def.type, " has no prepare function"));
  }
  std::string type = def.type;
  if (!defs_.emplace(type, std::move(def)).second) {
    return absl::AlreadyExistsError(
        StrCat("op ", type, " is registered twice"));
  }
  return absl::OkStatus();
}

absl::Status OpRegistry::RegisterAll(std::initializer_list<OpDef> defs) {
  for (const OpDef& def : defs) {
    absl::Status status = Register(def);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status OpRegistry::Replace(OpDef def) {
  auto it = defs_.find(def.type);
  if (it == defs_.end()) {
    return absl::NotFoundError(
        StrCat("op type '", def.type, "' is not registered"));
  }
  it->second = std::move(def);
  return absl::OkStatus();
}

std::vector<std::string> OpRegistry::Types() const {
  std::vector<std::string> types;
  for (const auto& [type, def] : defs_) types.push_back(type);
  return types;
}

const OpDef* OpRegistry::Find(std::string_view type) const {
  auto it = defs_.find(type);
  return it == defs_.end() ? nullptr : &it->second;
}

absl::StatusOr<PreparedKernel> OpRegistry::Prepare(
    const OpContext& context) const {
  const OpDef* def = Find(context.op_type);
  if (def == nullptr) {
    return absl::NotFoundError(
        StrCat("unsupported op type '", context.op_type, "'"));
  }
  const int num_inputs = static_cast<int>(context.inputs.size());
  if (num_inputs < def->min_inputs || num_inputs > def->max_inputs) {
    return absl::InvalidArgumentError(
        StrCat(def->type, " takes ", def->min_inputs, "..", def->max_inputs,
               " inputs, got ", num_inputs));
  }
  for (int i = 0; i < def->min_inputs; ++i) {
    if (!context.inputs[i].present()) {
      return absl::InvalidArgumentError(
          StrCat(def->type, ": required input ", i, " is missing"));
    }
  }
  const int num_outputs = static_cast<int>(context.num_outputs);
  if (num_outputs < def->min_outputs || num_outputs > def->max_outputs) {
    return absl::InvalidArgumentError(
        StrCat(def->type, " produces ", def->min_outputs, "..",
               def->max_outputs, " outputs, ", num_outputs, " requested"));
  }
  if (context.constant_inputs.size() != context.inputs.size()) {
    return absl::InternalError("constant_inputs and inputs differ in length");
  }
  absl::StatusOr<PreparedKernel> prepared = def->prepare(context);
  if (!prepared.ok()) {
    absl::Status status(prepared.status().code(),
                        StrCat(def->type, ": ", prepared.status().message()));
    // Kept: the payload tells the runtime what kind of failure this is.
    prepared.status().ForEachPayload(
        [&](absl::string_view url, const absl::Cord& payload) {
          status.SetPayload(url, payload);
        });
    return status;
  }
  if (prepared->outputs.size() != context.num_outputs ||
      prepared->kernel == nullptr) {
    return absl::InternalError(StrCat(def->type, ": prepare returned ",
                                      prepared->outputs.size(), " outputs for ",
                                      context.num_outputs, " requested"));
  }
  return prepared;
}

}  // namespace acldump
