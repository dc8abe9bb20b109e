// Aipp: an image input's preprocessing, inserted by the converter in front of
// a model input (see kernels/aipp.h). Input 0 is uint8 images [batch, ...];
// with static parameters they are node attributes, with dynamic ones input 1
// carries the SDK's parameter block (aclmdlSetInputAIPP writes it). The
// output is the float32 [batch, channels, height, width] the model reads.
#include <cstring>

#include "kernels/aipp.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

absl::StatusOr<PreparedKernel> PrepareAipp(const OpContext& context) {
  ASSIGN_OR_RETURN(std::vector<int64_t> out_dims,
                   context.attrs.GetInts("output_dims"));
  ASSIGN_OR_RETURN(std::string mode, context.attrs.GetString("mode", "static"));
  if (out_dims.size() != 4 ||
      std::any_of(out_dims.begin(), out_dims.end(),
                  [](int64_t d) { return d <= 0 || d > 65536; })) {
    return InvalidArgument(
        "output_dims must be [batch, channels, height, width], each 1..65536");
  }
  const int64_t batch = out_dims[0], channels = out_dims[1],
                height = out_dims[2], width = out_dims[3];
  const TensorInfo& images = context.inputs[0];
  if (images.dtype != DType::kUInt8 || images.shape.rank() < 2 ||
      images.shape[0] != batch) {
    return InvalidArgument("input 0 (the images) must be uint8 [", batch,
                           ", ...], got ", images.ToString());
  }
  const size_t stride = images.ByteSize() / static_cast<size_t>(batch);
  const TensorInfo out{DType::kFloat32, Shape(out_dims)};
  if (mode == "static") {
    if (context.has_input(1)) {
      return InvalidArgument("static AIPP takes no parameter input");
    }
    ASSIGN_OR_RETURN(aipp::Params params, aipp::FromAttributes(context.attrs));
    RETURN_IF_ERROR(aipp::Check(params, batch, channels, height, width));
    const size_t image_bytes = aipp::ImageBytes(
        params.input_format, params.src_width, params.src_height);
    if (stride != image_bytes) {
      return InvalidArgument("the images input holds ", stride,
                             " bytes per image; a ", aipp::Describe(params),
                             " image has ", image_bytes);
    }
    auto run = [=](std::span<const TensorView> in,
                   std::span<const TensorView> outs,
                   std::span<std::byte>) -> absl::Status {
      aipp::Apply(params, in[0].as<const uint8_t>(), stride, batch, channels,
                  height, width, outs[0].as<float>());
      return absl::OkStatus();
    };
    return Prepared({out}, MakeKernel(std::move(run)));
  }
  if (mode != "dynamic") {
    return InvalidArgument("mode '", mode, "' is neither static nor dynamic");
  }
  if (batch > static_cast<int64_t>(aipp::kMaxDynamicBatches)) {
    return InvalidArgument("dynamic AIPP takes at most ",
                           aipp::kMaxDynamicBatches, " images, not ", batch);
  }
  const size_t block = aipp::DynamicDataBytes(static_cast<size_t>(batch));
  if (!context.has_input(1) || context.inputs[1].dtype != DType::kUInt8 ||
      context.inputs[1].ByteSize() != block) {
    return InvalidArgument("input 1 (the dynamic parameters) must be uint8 [",
                           block, "]");
  }
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> outs,
                 std::span<std::byte>) -> absl::Status {
    const auto* bytes = in[1].as<const std::byte>();
    ASSIGN_OR_RETURN(
        aipp::Params params,
        aipp::ReadDynamic(std::span(bytes, block), static_cast<size_t>(batch)));
    absl::Status checked = aipp::Check(params, batch, channels, height, width);
    if (!checked.ok()) {
      return InvalidArgument("the dynamic AIPP parameters: ",
                             std::string(checked.message()));
    }
    const size_t image_bytes = aipp::ImageBytes(
        params.input_format, params.src_width, params.src_height);
    if (image_bytes > stride) {
      return InvalidArgument("a ", aipp::Describe(params), " image has ",
                             image_bytes,
                             " bytes; the model's image input "
                             "holds at most ",
                             stride, " per image");
    }
    aipp::Apply(params, in[0].as<const uint8_t>(), stride, batch, channels,
                height, width, outs[0].as<float>());
    return absl::OkStatus();
  };
  return Prepared({out}, MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterAippOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Aipp", 1, 2, 1, 1, PrepareAipp},
  });
}

}  // namespace acldump
