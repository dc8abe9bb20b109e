#include "tools/device/device_graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace acldump::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DeviceGraphTest, ReadsTheTdnnConverterGraph) {
  absl::StatusOr<DeviceGraph> graph =
      LoadDeviceGraph("testdata/atc-json/tdnn.om.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->name, "tdnn");
  EXPECT_EQ(graph->ops.size(), 132u);
  size_t fused = 0;
  for (const DeviceGraphOp& op : graph->ops) {
    fused += op.original_names.size() > 1;
  }
  EXPECT_EQ(fused, 31u);

  const DeviceGraphOp* trans = graph->Find("trans_TransData_4");
  ASSERT_NE(trans, nullptr);
  EXPECT_EQ(trans->type, "TransData");
  ASSERT_EQ(trans->inputs.size(), 1u);
  EXPECT_EQ(trans->inputs[0].op, "Pad_49");
  EXPECT_EQ(trans->inputs[0].index, 0);
  ASSERT_EQ(trans->output_desc.size(), 1u);
  const DeviceGraphTensor& out = trans->output_desc[0];
  EXPECT_EQ(out.dtype, "DT_FLOAT16");
  EXPECT_EQ(out.layout, "NC1HWC0");
  EXPECT_THAT(out.shape, ElementsAre(1, 2, 1, 1804, 16));
  EXPECT_EQ(out.origin_format, "NCHW");
  EXPECT_THAT(out.origin_shape, ElementsAre(1, 23, 1, 1804));
  EXPECT_EQ(out.origin_name, "Conv_52");
  EXPECT_EQ(out.origin_output_index, 0);

  const DeviceGraphOp* transpose =
      graph->Find("PartitionedCall_Transpose_0_Transpose_1");
  ASSERT_NE(transpose, nullptr);
  EXPECT_THAT(transpose->original_names,
              ElementsAre("Transpose_0", "Transpose_0"));
  // Its first input comes from the graph input through a Cast the device
  // added: the original tensor is the graph input itself.
  const DeviceGraphEdge original = OriginalInput(*graph, *transpose, 0);
  EXPECT_EQ(original.op, "feats");
  EXPECT_EQ(original.index, 0);
}

TEST(DeviceGraphTest, ReadsTheSubModelConverterGraph) {
  absl::StatusOr<DeviceGraph> graph =
      LoadDeviceGraph("testdata/atc-json/msquickcmp_sub_model.om.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->name, "sub_model");
  EXPECT_EQ(graph->ops.size(), 19u);
  EXPECT_NE(graph->Find("boxes_all"), nullptr);
  EXPECT_EQ(graph->Find("boxes_all")->type, "Data");
}

TEST(DeviceGraphTest, EscapedNamesAreFound) {
  absl::StatusOr<DeviceGraph> graph = ParseDeviceGraph(
      R"({"name": "m", "graph": [{"op": [
           {"name": "blk/conv.1", "type": "Conv2D", "input": ["x:0", "y:-1"]}
         ]}]})",
      "g.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_NE(graph->Find("blk_conv_1"), nullptr);
  EXPECT_EQ(graph->ops[0].inputs.size(), 1u);
  EXPECT_EQ(graph->ops[0].control_inputs, 1u);
}

TEST(DeviceGraphTest, ErrorsNameTheFieldAndTheFix) {
  auto error = [](std::string_view json) {
    absl::StatusOr<DeviceGraph> g = ParseDeviceGraph(json, "g.json");
    return g.ok() ? std::string("ok") : std::string(g.status().message());
  };
  EXPECT_THAT(error("{"), HasSubstr("g.json: not JSON"));
  EXPECT_THAT(error("{"), HasSubstr("atc --mode=1"));
  // nlohmann reports a number beyond a double as out_of_range, not a parse
  // error; it is still a clear error, not an escaping exception.
  EXPECT_THAT(error(R"({"graph": [{"op": [{"name": "a", "x": 1e999}]}]})"),
              HasSubstr("g.json: not JSON ("));
  EXPECT_THAT(error(R"({"graph": [{"op": [{"name": "a", "x": 1e999}]}]})"),
              HasSubstr("number overflow"));
  EXPECT_EQ(error(R"({"name": "m"})"),
            "g.json: graph is missing or empty: this is not a converter graph "
            "file");
  EXPECT_EQ(error(R"({"graph": [{"op": [{"name": "a", "input": ["b"]}]}]})"),
            "g.json: graph[0].op[0].input[0] 'b' is not 'name:index'");
  EXPECT_EQ(error(R"({"graph": [{"op": [{"type": "Relu"}]}]})"),
            "g.json: graph[0].op[0].name is missing");
  EXPECT_EQ(
      error(R"({"graph": [{"op": [{"name": "a", "attr": [{"key":
               "_datadump_original_op_names", "value": {"list": {"s": [3]}}}]}]}]})"),
      "g.json: graph[0].op[0].attr[0].value.list.s holds a value that is not "
      "text");
  EXPECT_EQ(error(R"({"graph": [{"op": [{"name": "a", "output_desc":
               [{"shape": {"dim": ["x"]}}]}]}]})"),
            "g.json: graph[0].op[0].output_desc[0].shape.dim holds a "
            "non-integer");
}

}  // namespace
}  // namespace acldump::tools
