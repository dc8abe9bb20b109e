#include "runtime/aipp_insert.h"

#include <algorithm>
#include <set>
#include <string>

#include "base/status_macros.h"
#include "base/strings.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "kernels/aipp.h"
#include "runtime/insert_op.pb.h"

namespace acldump {
namespace {

using conf::AippOpParams;

// Keeps the first parse error with its position (lines counted from 1).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (text_.empty())
      text_ = StrCat("line ", line + 1, " column ", column + 1, ": ", message);
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// The first value of a per-gear list (the SDK allows one per dynamic batch
// gear; acldump's AIPP models are static in shape).
absl::StatusOr<int64_t> One(const google::protobuf::RepeatedField<int32_t>& v,
                            std::string_view field, int64_t absent) {
  if (v.size() > 1) {
    return absl::InvalidArgumentError(
        StrCat(field, " has ", v.size(),
               " values (one per gear of a dynamic model); give one"));
  }
  return v.empty() ? absent : v[0];
}

absl::StatusOr<float> OneFloat(const google::protobuf::RepeatedField<float>& v,
                               std::string_view field) {
  if (v.size() > 1) {
    return absl::InvalidArgumentError(
        StrCat(field, " has ", v.size(), " values; give one"));
  }
  return v.empty() ? 1.0f : v[0];
}

absl::Status InRange(std::string_view field, int64_t value, int64_t lo,
                     int64_t hi) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(
      StrCat(field, " is ", value, "; it must be in ", lo, "..", hi));
}

absl::StatusOr<aipp::Params> StaticParams(const AippOpParams& op,
                                          int64_t height, int64_t width) {
  aipp::Params p;
  const std::string& format_name =
      AippOpParams::InputFormat_Name(op.input_format());
  p.input_format = aipp::FormatByName(format_name);
  if (p.input_format == 0) {
    return absl::InvalidArgumentError(StrCat(
        "input_format ", format_name,
        " is not one acldump preprocesses: give YUV420SP_U8, XRGB8888_U8, "
        "RGB888_U8, YUV400_U8 or ARGB8888_U8"));
  }
  // 0 (absent): the model input's size, as the SDK's converter takes it.
  p.src_width = op.src_image_size_w() != 0 ? op.src_image_size_w() : width;
  p.src_height = op.src_image_size_h() != 0 ? op.src_image_size_h() : height;
  p.csc = op.csc_switch();
  p.rbuv_swap = op.rbuv_swap_switch();
  p.ax_swap = op.ax_swap_switch();
  p.padding_value = op.padding_value();
  const google::protobuf::RepeatedField<int32_t>* matrix[9] = {
      &op.matrix_r0c0(), &op.matrix_r0c1(), &op.matrix_r0c2(),
      &op.matrix_r1c0(), &op.matrix_r1c1(), &op.matrix_r1c2(),
      &op.matrix_r2c0(), &op.matrix_r2c1(), &op.matrix_r2c2()};
  bool any_matrix = false;
  for (size_t i = 0; i < 9; ++i) {
    const std::string field = StrCat("matrix_r", i / 3, "c", i % 3);
    ASSIGN_OR_RETURN(int64_t value, One(*matrix[i], field, 0));
    RETURN_IF_ERROR(InRange(field, value, INT16_MIN, INT16_MAX));
    any_matrix = any_matrix || !matrix[i]->empty();
    p.matrix[i] = static_cast<int16_t>(value);
  }
  if (p.csc && !any_matrix) {
    return absl::InvalidArgumentError(
        "csc_switch is true but no matrix_r0c0..matrix_r2c2 is given");
  }
  const google::protobuf::RepeatedField<int32_t>* biases[6] = {
      &op.output_bias_0(), &op.output_bias_1(), &op.output_bias_2(),
      &op.input_bias_0(),  &op.input_bias_1(),  &op.input_bias_2()};
  for (size_t i = 0; i < 6; ++i) {
    const std::string field =
        StrCat(i < 3 ? "output_bias_" : "input_bias_", i % 3);
    ASSIGN_OR_RETURN(int64_t value, One(*biases[i], field, 0));
    RETURN_IF_ERROR(InRange(field, value, 0, 255));
    (i < 3 ? p.output_bias[i] : p.input_bias[i - 3]) =
        static_cast<uint8_t>(value);
  }
  aipp::BatchParams& bp = p.batches[0];
  bp.padding = op.padding();
  bp.pad_top = op.top_padding_size();
  bp.pad_bottom = op.bottom_padding_size();
  bp.pad_left = op.left_padding_size();
  bp.pad_right = op.right_padding_size();
  bp.crop = op.crop();
  bp.crop_x = op.load_start_pos_w();
  bp.crop_y = op.load_start_pos_h();
  // 0 (absent): what the padding leaves of the model input.
  const int64_t pad_w = bp.padding ? int64_t{bp.pad_left} + bp.pad_right : 0;
  const int64_t pad_h = bp.padding ? int64_t{bp.pad_top} + bp.pad_bottom : 0;
  bp.crop_width =
      op.crop_size_w() != 0
          ? op.crop_size_w()
          : static_cast<int32_t>(std::max<int64_t>(0, width - pad_w));
  bp.crop_height =
      op.crop_size_h() != 0
          ? op.crop_size_h()
          : static_cast<int32_t>(std::max<int64_t>(0, height - pad_h));
  const int32_t means[4] = {op.mean_chn_0(), op.mean_chn_1(), op.mean_chn_2(),
                            op.mean_chn_3()};
  const float mins[4] = {op.min_chn_0(), op.min_chn_1(), op.min_chn_2(),
                         op.min_chn_3()};
  const google::protobuf::RepeatedField<float>* recis[4] = {
      &op.var_reci_chn_0(), &op.var_reci_chn_1(), &op.var_reci_chn_2(),
      &op.var_reci_chn_3()};
  for (size_t c = 0; c < 4; ++c) {
    RETURN_IF_ERROR(
        InRange(StrCat("mean_chn_", c), means[c], INT16_MIN, INT16_MAX));
    bp.mean[c] = static_cast<int16_t>(means[c]);
    bp.min[c] = mins[c];
    ASSIGN_OR_RETURN(bp.var_reci[c],
                     OneFloat(*recis[c], StrCat("var_reci_chn_", c)));
  }
  return p;
}

// Which options acldump does not carry out: refused, not ignored.
absl::Status CheckSupported(const AippOpParams& op) {
  if (op.resize()) {
    return absl::UnimplementedError(
        "resize is not supported: resize the image before the model, or "
        "crop and pad it to the model input's size");
  }
  if (op.support_rotation())
    return absl::UnimplementedError("support_rotation is not supported");
  if (op.single_line_mode())
    return absl::UnimplementedError("single_line_mode is not supported");
  if (op.input_edge_idx_size() > 0)
    return absl::UnimplementedError("input_edge_idx is not supported");
  return absl::OkStatus();
}

absl::Status InsertOne(Graph& graph, const AippOpParams& op,
                       std::set<size_t>& done) {
  RETURN_IF_ERROR(CheckSupported(op));
  size_t index = op.related_input_rank();
  if (!op.related_input_name().empty()) {
    index = graph.inputs.size();
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      if (graph.inputs[i].name == op.related_input_name()) index = i;
    }
    if (index == graph.inputs.size()) {
      return absl::InvalidArgumentError(
          StrCat("related_input_name '", op.related_input_name(),
                 "' is not an input of the model"));
    }
  }
  if (index >= graph.inputs.size()) {
    return absl::InvalidArgumentError(StrCat("related_input_rank ", index,
                                             " is out of range: the model has ",
                                             graph.inputs.size(), " inputs"));
  }
  if (!done.insert(index).second) {
    return absl::InvalidArgumentError(
        StrCat("input ", index, " is configured twice"));
  }
  NamedTensorInfo& input = graph.inputs[index];
  const std::string where =
      StrCat("input ", index, " '", input.name, "' ", input.info.ToString());
  const Shape& shape = input.info.shape;
  if (input.info.dtype != DType::kFloat32 || shape.rank() != 4 ||
      (shape[1] != 1 && shape[1] != 3)) {
    return absl::InvalidArgumentError(
        StrCat(where, ": AIPP feeds float32 NCHW inputs of 1 or 3 channels"));
  }
  for (const std::string& output_name : [&] {
         std::vector<std::string> names;
         for (const auto& out : graph.outputs) names.push_back(out.name);
         return names;
       }()) {
    if (output_name == input.name) {
      return absl::InvalidArgumentError(
          StrCat(where, ": it is also a model output"));
    }
  }
  const int64_t batch = shape[0], channels = shape[1], height = shape[2],
                width = shape[3];
  GraphNode node;
  node.name = StrCat("aipp_", input.name);
  node.op_type = "Aipp";
  node.original_names = {node.name};
  const std::string output = StrCat(input.name, "_aipp");
  const bool input_named_so =
      std::any_of(graph.inputs.begin(), graph.inputs.end(),
                  [&](const NamedTensorInfo& in) { return in.name == output; });
  if (input_named_so || graph.ProducerOf(output) >= 0 ||
      graph.initializers.count(output)) {
    return absl::InvalidArgumentError(
        StrCat(where, ": the model already has a value named '", output, "'"));
  }
  node.inputs = {input.name};
  node.outputs = {output};
  node.attrs.Set("output_dims", shape.dims());
  if (op.aipp_mode() == AippOpParams::static_) {
    ASSIGN_OR_RETURN(aipp::Params params, StaticParams(op, height, width));
    RETURN_IF_ERROR(aipp::Check(params, batch, channels, height, width));
    aipp::ToAttributes(params, node.attrs);
    node.attrs.Set("mode", std::string("static"));
    std::vector<int64_t> dims = {batch};
    for (int64_t d : aipp::ImageDims(params.input_format, params.src_width,
                                     params.src_height))
      dims.push_back(d);
    input.info = TensorInfo{DType::kUInt8, Shape(dims)};
  } else if (op.aipp_mode() == AippOpParams::dynamic) {
    if (op.max_src_image_size() == 0) {
      return absl::InvalidArgumentError(
          "dynamic AIPP needs max_src_image_size: the largest image in bytes "
          "(e.g. width * height * 3 / 2 for YUV420SP_U8)");
    }
    if (batch > static_cast<int64_t>(aipp::kMaxDynamicBatches)) {
      return absl::InvalidArgumentError(
          StrCat(where, ": dynamic AIPP takes at most ",
                 aipp::kMaxDynamicBatches, " images"));
    }
    for (const NamedTensorInfo& other : graph.inputs) {
      if (other.name == kDynamicAippInputName) {
        return absl::InvalidArgumentError(
            "only one input can have dynamic AIPP");
      }
    }
    node.attrs.Set("mode", std::string("dynamic"));
    node.inputs.push_back(std::string(kDynamicAippInputName));
    input.info =
        TensorInfo{DType::kUInt8,
                   Shape{batch, static_cast<int64_t>(op.max_src_image_size())}};
    graph.inputs.push_back(NamedTensorInfo{
        std::string(kDynamicAippInputName),
        TensorInfo{DType::kUInt8,
                   Shape{static_cast<int64_t>(
                       aipp::DynamicDataBytes(static_cast<size_t>(batch)))}}});
  } else {
    return absl::InvalidArgumentError("aipp_mode: give static or dynamic");
  }
  const std::string name = graph.inputs[index].name;
  // Readers are renamed to the AIPP output; subgraphs would keep reading the
  // raw image.
  for (const GraphNode& consumer : graph.nodes) {
    if (std::find(consumer.implicit_inputs.begin(),
                  consumer.implicit_inputs.end(),
                  name) != consumer.implicit_inputs.end()) {
      return absl::UnimplementedError(
          StrCat(where, ": the subgraphs of node '", consumer.name, "' (",
                 consumer.op_type,
                 ") read it; AIPP is not supported for an input that "
                 "control flow reads"));
    }
  }
  for (GraphNode& consumer : graph.nodes) {
    for (std::string& in : consumer.inputs) {
      if (in == name) in = output;
    }
  }
  graph.nodes.insert(graph.nodes.begin(), std::move(node));
  return absl::OkStatus();
}

}  // namespace

absl::Status InsertAippOps(Graph& graph, std::string_view conf_text,
                           std::string_view conf_name) {
  if (graph.dynamic()) {
    return absl::InvalidArgumentError(StrCat(
        conf_name,
        ": AIPP is not supported together with dynamic batch, image size or "
        "dims gears"));
  }
  conf::InsertNewOps conf;
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(conf_text), &conf)) {
    return absl::InvalidArgumentError(
        StrCat(conf_name, ": ", errors.text(),
               " (the file is the SDK converter's text format: aipp_op { "
               "aipp_mode: static input_format: RGB888_U8 ... })"));
  }
  if (conf.aipp_op_size() == 0) {
    return absl::InvalidArgumentError(
        StrCat(conf_name, ": no aipp_op { ... } section"));
  }
  // All or nothing: a later section's error leaves the graph as it was.
  Graph edited = graph;
  std::set<size_t> done;
  for (int i = 0; i < conf.aipp_op_size(); ++i) {
    absl::Status inserted = InsertOne(edited, conf.aipp_op(i), done);
    if (!inserted.ok()) {
      return absl::Status(inserted.code(),
                          StrCat(conf_name, ": aipp_op ", i + 1, ": ",
                                 std::string(inserted.message())));
    }
  }
  graph = std::move(edited);
  return absl::OkStatus();
}

}  // namespace acldump
