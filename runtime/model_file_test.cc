// Control-flow subgraphs in the model file: written and read back field by
// field, and every way an untrusted file can get them wrong refused with the
// node's path.
#include "runtime/model_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "runtime/model.pb.h"

namespace acldump {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

std::shared_ptr<const Tensor> Floats(std::vector<float> values) {
  auto t = std::make_shared<Tensor>(
      DType::kFloat32, Shape({static_cast<int64_t>(values.size())}));
  std::memcpy(t->data(), values.data(), values.size() * sizeof(float));
  return t;
}

NamedTensorInfo Value(std::string name, DType dtype, std::vector<int64_t> dims,
                      bool unknown = false) {
  NamedTensorInfo info{std::move(name), TensorInfo{dtype, Shape(dims)}};
  info.infer_shape = unknown;
  return info;
}

GraphNode Node(std::string name, std::string op,
               std::vector<std::string> inputs,
               std::vector<std::string> outputs) {
  GraphNode node;
  node.original_names = {name};
  node.name = std::move(name);
  node.op_type = std::move(op);
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

// v, scans = Loop(M, cond, x): the body scales v by the outer `scale`, then a
// nested If adds the body's own `body_bias` when the outer `cond` holds.
// Every field of the file is set somewhere.
Graph LoopGraph() {
  auto then_branch = std::make_shared<Graph>();
  then_branch->name = "add_bias";
  then_branch->nodes = {Node("add", "Add", {"scaled", "body_bias"}, {"t"})};
  then_branch->outputs = {Value("t", DType::kFloat32, {-1, 3}, true)};
  auto else_branch = std::make_shared<Graph>();
  else_branch->name = "keep";
  else_branch->outputs = {Value("scaled", DType::kFloat32, {}, true)};
  GraphNode pick = Node("pick", "If", {"cond"}, {"v_out"});
  pick.subgraphs = {{"then_branch", then_branch}, {"else_branch", else_branch}};
  pick.implicit_inputs = ImplicitInputsOf(pick);

  auto body = std::make_shared<Graph>();
  body->name = "body_graph";
  body->inputs = {Value("i", DType::kInt64, {}), Value("c", DType::kBool, {}),
                  Value("v_in", DType::kFloat32, {-1, 3}, true)};
  body->initializers["body_bias"] = Floats({1, 2, 3});
  GraphNode mul = Node("mul", "Mul", {"v_in", "scale"}, {"scaled"});
  mul.attrs.Set("i", int64_t{7});
  mul.attrs.Set("f", 0.25f);
  mul.attrs.Set("s", std::string("text"));
  mul.attrs.Set("ints", std::vector<int64_t>{1, -2});
  mul.attrs.Set("floats", std::vector<float>{0.5f});
  mul.attrs.Set("strings", std::vector<std::string>{"a", "b"});
  mul.attrs.Set("tensor", Floats({4, 5}));
  GraphNode scan = Node("scan", "Identity", {"scaled"}, {"scan_out"});
  scan.no_task = true;
  scan.original_names = {"first", "second"};
  body->nodes = {mul, pick, Node("cond_out", "Identity", {"c"}, {"c_out"}),
                 scan};
  body->outputs = {Value("c_out", DType::kBool, {}),
                   Value("v_out", DType::kFloat32, {}, true),
                   Value("scan_out", DType::kFloat32, {-1, 3}, true)};

  Graph graph;
  graph.name = "control_flow";
  graph.source_opset = 16;
  graph.inputs = {Value("M", DType::kInt64, {}),
                  Value("cond", DType::kBool, {}),
                  Value("x", DType::kFloat32, {2, 3})};
  graph.outputs = {Value("v", DType::kFloat32, {2, 3}),
                   Value("scans", DType::kFloat32, {4, 2, 3})};
  graph.initializers["scale"] = Floats({0.5f, 1, 2});
  GraphNode loop = Node("loop", "Loop", {"M", "cond", "x"}, {"v", "scans"});
  loop.subgraphs = {{"body", body}};
  loop.implicit_inputs = ImplicitInputsOf(loop);
  graph.nodes = {loop};
  return graph;
}

void ExpectSameValues(const std::vector<NamedTensorInfo>& a,
                      const std::vector<NamedTensorInfo>& b,
                      const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name) << where;
    EXPECT_EQ(a[i].info, b[i].info) << where << " " << a[i].name;
    EXPECT_EQ(a[i].infer_shape, b[i].infer_shape) << where << " " << a[i].name;
  }
}

void ExpectSameTensor(const Tensor& a, const Tensor& b,
                      const std::string& where) {
  EXPECT_EQ(a.info(), b.info()) << where;
  ASSERT_EQ(a.ByteSize(), b.ByteSize()) << where;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.ByteSize()), 0) << where;
}

void ExpectSameGraph(const Graph& a, const Graph& b, const std::string& where) {
  EXPECT_EQ(a.name, b.name) << where;
  ExpectSameValues(a.inputs, b.inputs, where + " inputs");
  ExpectSameValues(a.outputs, b.outputs, where + " outputs");
  ASSERT_EQ(a.initializers.size(), b.initializers.size()) << where;
  for (const auto& [name, tensor] : a.initializers) {
    ASSERT_EQ(b.initializers.count(name), 1u) << where << " " << name;
    ExpectSameTensor(*tensor, *b.initializers.at(name), where + " " + name);
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size()) << where;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const GraphNode& x = a.nodes[i];
    const GraphNode& y = b.nodes[i];
    const std::string at = where + "/" + x.name;
    EXPECT_EQ(x.name, y.name) << at;
    EXPECT_EQ(x.op_type, y.op_type) << at;
    EXPECT_EQ(x.inputs, y.inputs) << at;
    EXPECT_EQ(x.outputs, y.outputs) << at;
    EXPECT_EQ(x.original_names, y.original_names) << at;
    EXPECT_EQ(x.no_task, y.no_task) << at;
    EXPECT_EQ(x.implicit_inputs, y.implicit_inputs) << at;
    ASSERT_EQ(x.attrs.size(), y.attrs.size()) << at;
    for (const auto& [name, value] : x.attrs.values()) {
      ASSERT_TRUE(y.attrs.Has(name)) << at << " " << name;
      const AttrValue& other = y.attrs.values().find(name)->second;
      EXPECT_EQ(AttrValueToString(value), AttrValueToString(other)) << at;
      if (const auto* t = std::get_if<std::shared_ptr<const Tensor>>(&value)) {
        ExpectSameTensor(**t, *std::get<std::shared_ptr<const Tensor>>(other),
                         at + " " + name);
      }
    }
    ASSERT_EQ(x.subgraphs.size(), y.subgraphs.size()) << at;
    for (size_t s = 0; s < x.subgraphs.size(); ++s) {
      EXPECT_EQ(x.subgraphs[s].first, y.subgraphs[s].first) << at;
      ExpectSameGraph(*x.subgraphs[s].second, *y.subgraphs[s].second,
                      at + "/" + x.subgraphs[s].first);
    }
  }
}

TEST(ModelFileSubgraphTest, RoundTripKeepsEveryField) {
  const Graph graph = LoopGraph();
  EXPECT_THAT(graph.nodes[0].implicit_inputs, ElementsAre("scale", "cond"));
  const GraphNode& pick = graph.nodes[0].subgraphs[0].second->nodes[1];
  EXPECT_THAT(pick.implicit_inputs, ElementsAre("scaled", "body_bias"));
  absl::StatusOr<Graph> read = ParseModel(SerializeModel(graph));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->source_opset, 16);
  ExpectSameGraph(graph, *read, "model");
  // And once more: the file is stable.
  EXPECT_EQ(SerializeModel(*read), SerializeModel(graph));
  const std::string json = ModelToJson(*read);
  EXPECT_THAT(json, AllOf(HasSubstr("\"implicit_inputs\": [\n"),
                          HasSubstr("\"then_branch\": {"),
                          HasSubstr("\"unknown_shape\": true")));
}

TEST(ModelFileSubgraphTest, FilesWithoutSubgraphsStillLoad) {
  // A file as written before subgraphs existed: none of the new fields.
  om::Model model;
  model.set_format_version(1);
  model.set_name("old");
  om::ValueInfo* in = model.add_inputs();
  in->set_name("x");
  in->set_data_type(1);
  in->add_dims(2);
  *model.add_outputs() = *in;
  model.mutable_outputs(0)->set_name("y");
  om::Node* node = model.add_nodes();
  node->set_name("relu");
  node->set_op_type("Relu");
  node->add_inputs("x");
  node->add_outputs("y");
  std::string bytes(kModelMagicV1);
  model.AppendToString(&bytes);
  absl::StatusOr<Graph> read = ParseModel(bytes);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->nodes[0].subgraphs.empty());
  EXPECT_TRUE(read->nodes[0].implicit_inputs.empty());
  EXPECT_FALSE(read->inputs[0].infer_shape);
}

om::Model ToProto(const Graph& graph) {
  om::Model model;
  const std::string bytes = SerializeModelVersion1(graph);
  EXPECT_TRUE(model.ParseFromString(bytes.substr(kModelMagicV1.size())));
  return model;
}

absl::Status Parse(const om::Model& model) {
  std::string bytes(kModelMagicV1);
  model.AppendToString(&bytes);
  return ParseModel(bytes).status();
}

om::SubGraph& Body(om::Model& model) {
  return *model.mutable_nodes(0)->mutable_subgraphs(0)->mutable_graph();
}

om::Node& Pick(om::Model& model) { return *Body(model).mutable_nodes(1); }

TEST(ModelFileSubgraphTest, CorruptSubgraphsAreRefusedNamingTheNode) {
  struct Case {
    const char* what;
    std::function<void(om::Model&)> corrupt;
    std::vector<std::string> reasons;
  };
  const Case cases[] = {
      {"an implicit input left out",
       [](om::Model& m) {
         m.mutable_nodes(0)->mutable_implicit_inputs()->RemoveLast();
       },
       {"node 0 'loop': implicit inputs [scale] are not what its subgraphs "
        "read from enclosing graphs [scale, cond]"}},
      {"an implicit input too many in a nested node",
       [](om::Model& m) { Pick(m).add_implicit_inputs("x"); },
       {"node 1 'loop/body/pick': implicit inputs [scaled, body_bias, x]"}},
      {"a read of a value no scope defines",
       [](om::Model& m) {
         Pick(m)
             .mutable_subgraphs(0)
             ->mutable_graph()
             ->mutable_nodes(0)
             ->set_inputs(1, "nowhere");
         Pick(m).set_implicit_inputs(1, "nowhere");
         m.mutable_nodes(0)->add_implicit_inputs("nowhere");
       },
       {"node 'loop' (Loop) has subgraphs reading 'nowhere', which no node, "
        "input or initializer provides"}},
      {"an If without its else_branch",
       [](om::Model& m) { Pick(m).mutable_subgraphs()->RemoveLast(); },
       {"node 1 'loop/body/pick': If needs the subgraphs then_branch and "
        "else_branch"}},
      {"a subgraph on an op that takes none",
       [](om::Model& m) {
         *Body(m).mutable_nodes(2)->add_subgraphs() = Pick(m).subgraphs(1);
       },
       {"node 2 'loop/body/cond_out': Identity takes no subgraph, yet has "
        "'else_branch'"}},
      {"a subgraph attribute that is also an attribute",
       [](om::Model& m) {
         om::Attribute* attr = Pick(m).add_attributes();
         attr->set_name("then_branch");
         attr->set_i(1);
       },
       {"node 1 'loop/body/pick' subgraph 'then_branch': also an attribute"}},
      {"a Loop body without the loop-carried input",
       [](om::Model& m) { Body(m).mutable_inputs()->RemoveLast(); },
       {"node 0 'loop': Loop has 3 inputs and 2 outputs, its body 2 inputs"}},
      {"a branch output count that differs",
       [](om::Model& m) {
         om::SubGraph* keep = Pick(m).mutable_subgraphs(1)->mutable_graph();
         *keep->add_outputs() = keep->outputs(0);
       },
       {"If has 1 outputs, its branches return 1 and 2"}},
      {"an unknown shape on a model input",
       [](om::Model& m) { m.mutable_inputs(2)->set_unknown_shape(true); },
       {"input 2 'x': an unknown shape, which only subgraph inputs and "
        "outputs and graph outputs may have"}},
      {"a dimension below -1",
       [](om::Model& m) { Body(m).mutable_inputs(2)->set_dims(0, -2); },
       {"subgraph 'loop/body': input 2 'v_in'"}},
      {"-1 without the unknown_shape flag",
       [](om::Model& m) {
         Body(m).mutable_inputs(2)->set_unknown_shape(false);
       },
       {"subgraph 'loop/body': input 2 'v_in'"}},
      {"a subgraph initializer larger than a tensor may be",
       [](om::Model& m) {
         om::TensorValue* init = Body(m).mutable_initializers(0);
         init->clear_dims();
         init->add_dims(int64_t{1} << 31);
       },
       {"subgraph 'loop/body': initializer 0 'body_bias'",
        "limit: 4294967296 bytes per tensor"}},
      {"a subgraph initializer whose data is short",
       [](om::Model& m) { Body(m).mutable_initializers(0)->set_data("abc"); },
       {"subgraph 'loop/body': initializer 0 'body_bias': holds 3 bytes"}},
      {"a value defined twice in a subgraph",
       [](om::Model& m) { Body(m).mutable_nodes(2)->set_outputs(0, "scaled"); },
       {"node 2 'loop/body/cond_out' output: value 'scaled' is defined more "
        "than once"}},
      {"two nodes of one name in a subgraph",
       [](om::Model& m) { Body(m).mutable_nodes(2)->set_name("mul"); },
       {"node 2 'loop/body/mul': node name is used more than once"}},
      {"a cycle in a subgraph",
       [](om::Model& m) {
         om::Node* mul = Body(m).mutable_nodes(0);
         mul->set_inputs(0, "scan_out");
       },
       {"subgraph 'loop/body': the graph has a cycle"}},
      {"an empty subgraph attribute name",
       [](om::Model& m) { Pick(m).mutable_subgraphs(0)->set_attribute(""); },
       {"node 1 'loop/body/pick' subgraph '': empty name"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    om::Model model = ToProto(LoopGraph());
    ASSERT_TRUE(Parse(model).ok());
    c.corrupt(model);
    const absl::Status status = Parse(model);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    for (const std::string& reason : c.reasons) {
      EXPECT_THAT(Message(status), HasSubstr(reason));
    }
  }
}

// `depth` Ifs, each in the then_branch of the one before.
Graph NestedIfs(int depth) {
  std::shared_ptr<Graph> inner;
  for (int d = depth; d >= 1; --d) {
    GraphNode node = Node("if", "If", {"cond"}, {"y" + std::to_string(d)});
    auto then_branch = std::make_shared<Graph>();
    then_branch->outputs = {
        Value(inner ? "y" + std::to_string(d + 1) : "x", DType::kFloat32, {2})};
    if (inner) then_branch->nodes = {inner->nodes[0]};
    auto else_branch = std::make_shared<Graph>();
    else_branch->outputs = {Value("x", DType::kFloat32, {2})};
    node.subgraphs = {{"then_branch", then_branch},
                      {"else_branch", else_branch}};
    node.implicit_inputs = ImplicitInputsOf(node);
    inner = std::make_shared<Graph>();
    inner->nodes = {node};
  }
  Graph graph;
  graph.name = "nested";
  graph.inputs = {Value("cond", DType::kBool, {}),
                  Value("x", DType::kFloat32, {2})};
  graph.outputs = {Value("y1", DType::kFloat32, {2})};
  graph.nodes = inner->nodes;
  return graph;
}

TEST(ModelFileSubgraphTest, NestingIsBounded) {
  absl::StatusOr<Graph> read =
      ParseModel(SerializeModel(NestedIfs(kMaxSubgraphDepth)));
  ASSERT_TRUE(read.ok()) << read.status();
  read = ParseModel(SerializeModel(NestedIfs(kMaxSubgraphDepth + 1)));
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(Message(read.status()),
              AllOf(HasSubstr("'if/then_branch/if/then_branch/"),
                    HasSubstr("subgraph 'then_branch': subgraphs nest more "
                              "than 32 deep")));
  // Deeper than protobuf parses: an error, no crash.
  read = ParseModel(SerializeModel(NestedIfs(300)));
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(Message(read.status()), HasSubstr("does not parse"));
}

TEST(ModelFileSubgraphTest, TrailingBytesAfterAnEndTagDoNotParse) {
  std::string bytes = SerializeModelVersion1(LoopGraph());
  ASSERT_TRUE(ParseModel(bytes).ok());
  bytes += std::string("\0\1\2", 3);
  EXPECT_FALSE(ParseModel(bytes).ok());
}

// A loaded file's bytes are handed over and freed once parsed (the loader's
// path: a model's weights are not held three times); the graph and the
// errors are those of parsing a view of the same bytes.
TEST(ModelFileSubgraphTest, OwnedBytesAreFreedAndReadAsAView) {
  const std::string bytes = SerializeModel(LoopGraph());
  absl::StatusOr<Graph> viewed = ParseModel(std::string_view(bytes));
  ASSERT_TRUE(viewed.ok()) << viewed.status();
  std::string owned = bytes;
  absl::StatusOr<Graph> taken = ParseModel(std::move(owned));
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_TRUE(owned.empty());
  EXPECT_EQ(SerializeModel(*taken), SerializeModel(*viewed));
  const std::string corrupt = bytes.substr(0, bytes.size() - 3);
  std::string owned_corrupt = corrupt;
  const absl::Status refused = ParseModel(std::move(owned_corrupt)).status();
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(Message(refused),
            Message(ParseModel(std::string_view(corrupt)).status()));
}

// A version-2 file cut into its parts, and put back together.
struct Version2Parts {
  om::Model message;
  std::string weights;
};

Version2Parts Split(const std::string& bytes) {
  Version2Parts parts;
  uint64_t size = 0;
  std::memcpy(&size, bytes.data() + kModelMagic.size(), 8);  // little-endian
  EXPECT_TRUE(parts.message.ParseFromString(bytes.substr(16, size)));
  parts.weights = bytes.substr((16 + size + 63) / 64 * 64);
  return parts;
}

std::string Join(const om::Model& message, const std::string& weights) {
  std::string bytes(kModelMagic);
  const std::string serialised = message.SerializeAsString();
  const uint64_t size = serialised.size();
  bytes.append(reinterpret_cast<const char*>(&size), 8);
  bytes += serialised;
  bytes.resize((bytes.size() + 63) / 64 * 64, '\0');
  return bytes + weights;
}

// Weights go to the section after the message, every initializer's (a
// subgraph's too), each 64-byte aligned; the file reads back as the graph it
// was written from, from memory and from disk; a version-1 file of the same
// graph still reads as the same graph.
TEST(ModelFileVersion2Test, WeightsLeaveTheMessageAndReadBack) {
  const Graph graph = LoopGraph();
  const std::string bytes = SerializeModel(graph);
  ASSERT_EQ(bytes.substr(0, 8), "ACLDMOM2");
  const Version2Parts parts = Split(bytes);
  ASSERT_EQ(parts.message.initializers_size(), 1);
  const om::TensorValue& scale = parts.message.initializers(0);
  EXPECT_TRUE(scale.external());
  EXPECT_TRUE(scale.data().empty());
  const om::TensorValue& body_bias =
      parts.message.nodes(0).subgraphs(0).graph().initializers(0);
  EXPECT_TRUE(body_bias.external());
  EXPECT_EQ(body_bias.offset() % 64, 0u);
  EXPECT_EQ(parts.weights.size(), 64u + 12u);  // two float[3], aligned

  absl::StatusOr<Graph> read = ParseModel(std::string_view(bytes));
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameGraph(graph, *read, "model");
  EXPECT_EQ(SerializeModel(*read), bytes);

  const std::string path = ::testing::TempDir() + "/version2.om";
  ASSERT_TRUE(WriteModelFile(graph, path).ok());
  absl::StatusOr<RandomAccessFile> file =
      RandomAccessFile::Open(path, "model file");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->size(), bytes.size());
  absl::StatusOr<Graph> from_disk = ReadModelFile(*file);
  ASSERT_TRUE(from_disk.ok()) << from_disk.status();
  EXPECT_EQ(SerializeModel(*from_disk), bytes);

  const std::string old = SerializeModelVersion1(graph);
  ASSERT_EQ(old.substr(0, 8), "ACLDMOM1");
  absl::StatusOr<Graph> from_old = ParseModel(old);
  ASSERT_TRUE(from_old.ok()) << from_old.status();
  EXPECT_EQ(SerializeModel(*from_old), bytes);
}

TEST(ModelFileVersion2Test, ACorruptLayoutIsRefusedSayingWhat) {
  const std::string bytes = SerializeModel(LoopGraph());
  const Version2Parts parts = Split(bytes);
  struct Case {
    const char* what;
    std::string bytes;
    const char* reason;
  };
  std::vector<Case> cases = {
      {"header cut", bytes.substr(0, 12), "shorter than its 16-byte header"},
      {"message cut", bytes.substr(0, 40), "is truncated"},
      {"weights cut", bytes.substr(0, bytes.size() - 4),
       "run past the end of the weights section"},
      {"bytes after the weights", bytes + std::string(8, '\0'),
       "8 bytes after the last initializer's"},
  };
  {
    om::Model edited = parts.message;
    edited.mutable_initializers(0)->set_offset(4);
    cases.push_back({"unaligned", Join(edited, parts.weights),
                     "not where the next initializer's start (0)"});
  }
  {
    om::Model edited = parts.message;
    edited.mutable_initializers(0)->set_data(std::string(12, '\0'));
    cases.push_back({"both places", Join(edited, parts.weights),
                     "both in the message and in the weights section"});
  }
  {
    om::Model edited = parts.message;
    edited.mutable_initializers(0)->set_offset(uint64_t{1} << 62);
    cases.push_back({"far offset", Join(edited, parts.weights),
                     "not where the next initializer's start (0)"});
  }
  {
    // Both initializers on the same bytes: each is read once, in order.
    om::Model edited = parts.message;
    edited.mutable_nodes(0)
        ->mutable_subgraphs(0)
        ->mutable_graph()
        ->mutable_initializers(0)
        ->set_offset(0);
    cases.push_back({"bytes read twice", Join(edited, parts.weights),
                     "not where the next initializer's start (64)"});
  }
  {
    // A version-1 file naming the weights section it has not.
    std::string old(kModelMagicV1);
    parts.message.AppendToString(&old);
    cases.push_back({"external in version 1", old,
                     "only the initializers of a version-2 file have"});
  }
  {
    std::string huge = bytes;
    huge[8 + 7] = 0x7f;  // the message's size: far past the file
    cases.push_back(
        {"message size", huge, "bytes, more than the limit of 2147483647"});
  }
  for (Case& c : cases) {
    SCOPED_TRACE(c.what);
    const absl::Status from_view =
        ParseModel(std::string_view(c.bytes)).status();
    EXPECT_THAT(Message(from_view), HasSubstr(c.reason));
    const std::string path = ::testing::TempDir() + "/corrupt.om";
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << c.bytes;
    }
    absl::StatusOr<RandomAccessFile> file =
        RandomAccessFile::Open(path, "model file");
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(Message(ReadModelFile(*file).status()), Message(from_view));
  }
}

// A file that shrinks after it was opened (rewritten under the reader): the
// weights that are no longer there are a read failure (DataLoss), not a
// corrupt model, and say where the file ended.
TEST(ModelFileVersion2Test, AFileCutWhileReadIsAReadFailure) {
  const std::string path = ::testing::TempDir() + "/shrinking.om";
  ASSERT_TRUE(WriteModelFile(LoopGraph(), path).ok());
  absl::StatusOr<RandomAccessFile> file =
      RandomAccessFile::Open(path, "model file");
  ASSERT_TRUE(file.ok()) << file.status();
  std::filesystem::resize_file(path, file->size() - 8);
  const absl::Status status = ReadModelFile(*file).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(Message(status), HasSubstr("it ended early"));
}

// A dynamic model whose gears run an If: the weight only the branch reads is
// stored once for every gear and still reaches each plan.
TEST(ModelFileSubgraphTest, AGearsSubgraphReadsASharedWeight) {
  Graph model;
  model.name = "geared";
  model.gear_kind = GearKind::kBatch;
  model.inputs = {Value("x", DType::kFloat32, {-1, 2})};
  model.outputs = {Value("y", DType::kFloat32, {2, 2})};
  auto cond = std::make_shared<Tensor>(DType::kBool, Shape({}));
  *cond->as<bool>() = true;
  const std::shared_ptr<const Tensor> w = Floats({1, 2});
  for (int64_t batch : {1, 2}) {
    auto plan = std::make_shared<Graph>();
    plan->name = model.name;
    plan->inputs = {Value("x", DType::kFloat32, {batch, 2})};
    plan->outputs = {Value("y", DType::kFloat32, {batch, 2})};
    plan->initializers = {{"cond", cond}, {"w", w}};
    auto then_branch = std::make_shared<Graph>();
    then_branch->nodes = {Node("add", "Add", {"x", "w"}, {"t"})};
    then_branch->outputs = {Value("t", DType::kFloat32, {-1, 2}, true)};
    auto else_branch = std::make_shared<Graph>();
    else_branch->outputs = {Value("x", DType::kFloat32, {-1, 2}, true)};
    GraphNode node = Node("if", "If", {"cond"}, {"y"});
    node.subgraphs = {{"then_branch", then_branch},
                      {"else_branch", else_branch}};
    node.implicit_inputs = ImplicitInputsOf(node);
    plan->nodes = {node};
    model.gears.push_back(Gear{{batch}, plan});
  }
  const om::Model proto = ToProto(model);
  ASSERT_EQ(proto.initializers_size(), 2);  // both shared
  absl::StatusOr<Graph> read = ParseModel(SerializeModel(model));
  ASSERT_TRUE(read.ok()) << read.status();
  for (const Gear& gear : read->gears) {
    EXPECT_EQ(gear.graph->initializers.count("w"), 1u);
    EXPECT_THAT(gear.graph->nodes[0].implicit_inputs, ElementsAre("x", "w"));
  }
}

}  // namespace
}  // namespace acldump

namespace acldump {
namespace {

// The unsigned types are stored under the dump format's numbers (DT_UINT16 =
// 6, DT_UINT32 = 9, DT_UINT64 = 10), like every other type.
TEST(ModelFileTypesTest, UnsignedTensorsRoundTrip) {
  Graph graph;
  graph.name = "unsigned";
  graph.inputs = {Value("x", DType::kUInt64, {2}),
                  Value("w", DType::kUInt16, {1})};
  graph.outputs = {Value("y", DType::kUInt64, {2})};
  auto bias = std::make_shared<Tensor>(DType::kUInt32, Shape({1}));
  bias->as<uint32_t>()[0] = 0xFFFFFFFFu;
  graph.initializers["bias"] = bias;
  graph.nodes = {Node("max", "Max", {"x"}, {"y"})};
  const om::Model model = ToProto(graph);
  EXPECT_EQ(model.inputs(0).data_type(), 10);
  EXPECT_EQ(model.inputs(1).data_type(), 6);
  absl::StatusOr<Graph> read = ParseModel(SerializeModel(graph));
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameGraph(graph, *read, "model");
  EXPECT_EQ(read->initializers.at("bias")->as<uint32_t>()[0], 0xFFFFFFFFu);
}

}  // namespace
}  // namespace acldump
