// Test vectors: what the NPU SDK's aclmdlSetDump accepts and rejects, one
// line each, covering the cases of the SDK's own unit tests (written here from
// its rules, not copied) and this runtime's additions. Each line gives the
// config, the verdict (OK or the ErrorKind of the rejection) and a fragment
// of the error message, or, for OK, of the description or of a warning.
//
// Through the C ABI, kInvalidDumpConfig and kInvalidJson are 100009 for
// aclmdlSetDump, kParseFile is 100006 and kFeatureUnsupported is this
// runtime's "not supported" code; OK is 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/config.h"

namespace acldump::dump {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Vector {
  // The members of the dump object, or after '=' the whole file. "@path"
  // stands for a valid dump_path, "@list" for a one-model dump_list.
  std::string config;
  std::string verdict;   // "OK" or an ErrorKind name
  std::string fragment;  // of the message, description or a warning
};

constexpr char kOk[] = "OK";
constexpr char kBad[] = "kInvalidDumpConfig";
constexpr char kJson[] = "kInvalidJson";
constexpr char kDeep[] = "kParseFile";
constexpr char kNpu[] = "kFeatureUnsupported";

// clang-format off
const std::vector<Vector> kVectors = {
    // --- The file and the dump section -----------------------------------
    {"={}", kOk, "dump disabled"},
    {R"(={"other": "data"})", kOk, "dump disabled"},
    {R"(={"dump": {}})", kOk, "dump: is empty: nothing is dumped"},
    {"=", kOk, "the file is empty: no dump is configured"},
    {"=[]", kOk, "the top level is an array, not an object"},
    {R"(="dump")", kOk, "the top level is string 'dump', not an object"},
    {R"(={"dump": true})", kBad, "dump: must be a JSON object such as"},
    {R"(={"dump": []})", kBad, "dump: must be a JSON object"},
    {R"(={"dump": 123})", kBad, "found number 123"},
    {R"(={"dump": null})", kBad, "found null"},
    {R"(={"dump": "invalid"})", kBad, "found string 'invalid'"},
    {R"(={"dump": {}, "dump": {}})", kBad, "dump: duplicate key 'dump'"},
    {"=asdf{", kJson, "not valid JSON: parse error at line 1, column 1"},
    {R"(={"dump": {"dump_op_switch": "on"})", kJson, "not valid JSON"},
    {R"(={"dump": {"dump_list": [{"model_name": "model1"}]})", kJson,
     "not valid JSON"},
    {"=  \n", kJson, "not valid JSON"},
    {R"(={"dump": {}, /* note */ "x": 1})", kJson, "not valid JSON"},
    {R"(={"dump": {},})", kJson, "not valid JSON"},
    {R"(={"dump": {"dump_path": "a\u0000b"}} x)", kJson,
     "expected end of input"},
    // Nesting: at most 10 objects and 10 arrays, counting every bracket.
    {R"(={"dump": {}, "x": [[[[[[[[[[1]]]]]]]]]]})", kOk, "dump: is empty"},
    {R"(={"dump": {}, "x": [[[[[[[[[[[1]]]]]]]]]]]})", kDeep,
     "the 11th nested '[' is at line 1, column 29"},
    {R"(={"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {}}}}}}}}}, "dump": {}})",
     kOk, "dump: is empty"},
    {R"(={"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {"j": {}}}}}}}}}}, "dump": {}})",
     kDeep, "the 11th nested '{'"},
    {R"(={"note": "[[[[[[[[[[", "dump": {}})", kOk, "dump: is empty"},
    {R"(={"note": "[[[[[[[[[[", "x": [1], "dump": {}})", kDeep,
     "also inside strings"},
    {R"(={"dump": {"dump_path": "{{{{{{{{{{"}})", kDeep, "nested '{'"},
    {"=[[[[[[[[[[[", kDeep, "JSON nesting is deeper than 10 levels"},
    {"={}\n\n  {{{{{{{{{{{", kDeep, "is at line 3, column 13"},

    // --- Types: every string key ------------------------------------------
    {R"("dump_path": 12345)", kBad, "dump.dump_path: must be a JSON string, found number 12345"},
    {R"("dump_path": ["./"])", kBad, "dump.dump_path: must be a JSON string, found an array"},
    {R"("dump_path": true)", kBad, "dump.dump_path: must be a JSON string, found boolean true"},
    {R"("dump_path": null)", kBad, "dump.dump_path: must be a JSON string, found null"},
    {R"("dump_mode": 123)", kBad, "dump.dump_mode: must be a JSON string"},
    {R"("dump_mode": ["output"])", kBad, "dump.dump_mode: must be a JSON string"},
    {R"("dump_op_switch": 123)", kBad, "dump.dump_op_switch: must be a JSON string"},
    {R"("dump_op_switch": ["on"])", kBad, "dump.dump_op_switch: must be a JSON string"},
    {R"("dump_op_switch": true)", kBad, R"(write "dump_op_switch": "on")"},
    {R"("dump_level": 123)", kBad, "dump.dump_level: must be a JSON string"},
    {R"("dump_level": ["op"])", kBad, "dump.dump_level: must be a JSON string"},
    {R"("dump_scene": 123)", kBad, "dump.dump_scene: must be a JSON string"},
    {R"("dump_scene": ["lite_exception"])", kBad, "dump.dump_scene: must be a JSON string"},
    {R"("dump_data": 123)", kBad, "dump.dump_data: must be a JSON string"},
    {R"("dump_data": ["tensor"])", kBad, "dump.dump_data: must be a JSON string"},
    {R"("dump_debug": 123)", kBad, "dump.dump_debug: must be a JSON string"},
    {R"("dump_debug": ["on"])", kBad, "dump.dump_debug: must be a JSON string"},
    {R"("dump_debug": false)", kBad, R"(write "dump_debug": "off")"},
    {R"("dump_kernel_data": 123)", kBad, "dump.dump_kernel_data: must be a JSON string"},
    {R"("dump_kernel_data": ["all"])", kBad, "dump.dump_kernel_data: must be a JSON string"},
    {R"("dump_step": 123)", kBad, R"(dump.dump_step: must be a JSON string, found number 123; write "dump_step": "123")"},
    {R"("dump_step": ["1-10"])", kBad, "dump.dump_step: must be a JSON string"},
    // dump_stats: an array of strings.
    {R"("dump_stats": 123)", kBad, "dump.dump_stats: must be an array of statistic names"},
    {R"("dump_stats": "tensor")", kBad, R"(write "dump_stats": ['tensor'])"},
    {R"("dump_stats": true)", kBad, "dump.dump_stats: must be an array"},
    {R"("dump_stats": {"key": "value"})", kBad, "dump.dump_stats: must be an array"},
    {R"("dump_stats": [123, 456])", kBad, "dump.dump_stats[0]: must be a JSON string"},
    {R"("dump_stats": [true, false])", kBad, "dump.dump_stats[0]: must be a JSON string"},
    {R"("dump_stats": [{"key": "value"}])", kBad, "dump.dump_stats[0]: must be a JSON string"},
    {R"("dump_stats": ["L2norm", 123])", kBad, "dump.dump_stats[1]: must be a JSON string"},
    // dump_list: an array of objects.
    {R"("dump_list": 123)", kBad, "dump.dump_list: must be an array of model entries"},
    {R"("dump_list": "model1")", kBad, "dump.dump_list: must be an array"},
    {R"("dump_list": true)", kBad, "dump.dump_list: must be an array"},
    {R"("dump_list": {"key": "value"})", kBad, "wrap the entry in [ ]"},
    {R"("dump_list": [123])", kBad, "dump.dump_list[0]: must be an object"},
    {R"("dump_list": ["string"])", kBad, R"(write {"model_name": 'string'})"},
    {R"("dump_list": [true])", kBad, "dump.dump_list[0]: must be an object"},
    {R"("dump_list": [{"model_name": "model1"}, 123])", kBad, "dump.dump_list[1]: must be an object"},
    // Inside dump_list items.
    {R"("dump_list": [{"model_name": 123}])", kBad, "dump.dump_list[0].model_name: must be a JSON string"},
    {R"("dump_list": [{"model_name": true}])", kBad, "dump.dump_list[0].model_name: must be a JSON string"},
    {R"("dump_list": [{"model_name": ["model"]}])", kBad, "dump.dump_list[0].model_name: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "layer": 123}])", kBad, "dump.dump_list[0].layer: must be an array of operator names"},
    {R"("dump_list": [{"model_name": "m", "layer": "layer1"}])", kBad, R"(write "layer": ['layer1'])"},
    {R"("dump_list": [{"model_name": "m", "layer": [123]}])", kBad, "dump.dump_list[0].layer[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "layer": [true]}])", kBad, "dump.dump_list[0].layer[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "layer": [{"key": "value"}]}])", kBad, "dump.dump_list[0].layer[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "watcher_nodes": 123}])", kBad, "dump.dump_list[0].watcher_nodes: must be an array"},
    {R"("dump_list": [{"model_name": "m", "watcher_nodes": "node1"}])", kBad, "dump.dump_list[0].watcher_nodes: must be an array"},
    {R"("dump_list": [{"model_name": "m", "watcher_nodes": [123]}])", kBad, "dump.dump_list[0].watcher_nodes[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "watcher_nodes": [true]}])", kBad, "dump.dump_list[0].watcher_nodes[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": 123}])", kBad, "dump.dump_list[0].optype_blacklist: must be an array of filters"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": "type1"}])", kBad, "dump.dump_list[0].optype_blacklist: must be an array"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [123]}])", kBad, "dump.dump_list[0].optype_blacklist[0]: must be an object such as"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": ["type1"]}])", kBad, "dump.dump_list[0].optype_blacklist[0]: must be an object"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [{"name": 123}]}])", kBad, "dump.dump_list[0].optype_blacklist[0].name: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": 123}]}])", kBad, "dump.dump_list[0].optype_blacklist[0].pos: must be an array of tensor positions"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": "pos1"}]}])", kBad, "optype_blacklist[0].pos: must be an array"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": [123]}]}])", kBad, "dump.dump_list[0].optype_blacklist[0].pos[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": [true]}]}])", kBad, "optype_blacklist[0].pos[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t"}, {"name": "u", "pos": ["input0", 1]}]}])", kBad, "dump.dump_list[0].optype_blacklist[1].pos[1]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "opname_blacklist": 123}])", kBad, "dump.dump_list[0].opname_blacklist: must be an array"},
    {R"("dump_list": [{"model_name": "m", "opname_blacklist": [{"name": 123}]}])", kBad, "dump.dump_list[0].opname_blacklist[0].name: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "opname_blacklist": [{"name": "op1", "pos": [123]}]}])", kBad, "dump.dump_list[0].opname_blacklist[0].pos[0]: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "opname_range": 123}])", kBad, "dump.dump_list[0].opname_range: must be an array of ranges"},
    {R"("dump_list": [{"model_name": "m", "opname_range": "range1"}])", kBad, "dump.dump_list[0].opname_range: must be an array"},
    {R"("dump_list": [{"model_name": "m", "opname_range": [123]}])", kBad, "dump.dump_list[0].opname_range[0]: must be an object"},
    {R"("dump_list": [{"model_name": "m", "opname_range": ["range1"]}])", kBad, "dump.dump_list[0].opname_range[0]: must be an object"},
    {R"("dump_list": [{"model_name": "m", "opname_range": [{"begin": 123}]}])", kBad, "dump.dump_list[0].opname_range[0].begin: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "opname_range": [{"begin": "op1", "end": 123}]}])", kBad, "dump.dump_list[0].opname_range[0].end: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "opname_range": [{"begin": "op1", "end": true}]}])", kBad, "opname_range[0].end: must be a JSON string"},
    {R"("dump_list": [{"model_name": "m", "opname_range": [{"begin": "op1", "end": ["op2"]}]}])", kBad, "opname_range[0].end: must be a JSON string"},
    // Types are checked in every scene, before anything else.
    {R"("dump_scene": "lite_exception", "dump_step": 5)", kBad, "dump.dump_step: must be a JSON string"},
    {R"("dump_mode": "bogus", "dump_step": 5)", kBad, "dump.dump_step: must be a JSON string"},

    // --- Values: enums are case-sensitive, "" is an error ------------------
    {R"("dump_mode": "")", kBad, "dump.dump_mode: is empty; expected one of 'input', 'output', 'all'"},
    {R"("dump_mode": "invalid_mode")", kBad, "dump.dump_mode: invalid dump_mode 'invalid_mode'"},
    {R"("dump_mode": "OUTPUT")", kBad, "values are case-sensitive: write 'output'"},
    {R"("dump_data": "")", kBad, "dump.dump_data: is empty"},
    {R"("dump_data": "invalid_data")", kBad, "dump.dump_data: invalid dump_data 'invalid_data'; expected one of 'tensor', 'stats'"},
    {R"("dump_op_switch": "")", kBad, "dump.dump_op_switch: is empty"},
    {R"("dump_op_switch": "ON")", kBad, "values are case-sensitive: write 'on'"},
    {R"("dump_op_switch": "invalid_switch")", kBad, "dump.dump_op_switch: invalid dump_op_switch"},
    {R"("dump_level": "")", kBad, "dump.dump_level: is empty; expected one of 'op', 'kernel', 'all'"},
    {R"("dump_level": "invalid_level")", kBad, "dump.dump_level: invalid dump_level"},
    {R"("dump_level": "Op")", kBad, "values are case-sensitive: write 'op'"},
    {R"("dump_debug": "")", kBad, "dump.dump_debug: is empty"},
    {R"("dump_debug": "invalid_debug")", kBad, "dump.dump_debug: invalid dump_debug"},
    {R"("dump_scene": "")", kBad, "dump.dump_scene: is empty"},
    {R"("dump_scene": "invalid_scene")", kBad, "expected one of 'lite_exception', 'aic_err_brief_dump', 'aic_err_norm_dump', 'aic_err_detail_dump', 'watcher'"},
    {R"("dump_scene": "aic_err_norm")", kBad, "did you mean 'aic_err_norm_dump'?"},
    {R"("dump_kernel_data": "")", kBad, "dump.dump_kernel_data: the value is empty"},
    {R"("dump_kernel_data": "invalid_kernel_data")", kBad, "the value is 'invalid_kernel_data'; expected a comma-separated list of 'all', 'printf', 'tensor', 'assert', 'timestamp'"},
    {R"("dump_kernel_data": "all,invalid_kernel_data")", kBad, "item 2 of 2 is 'invalid_kernel_data'"},
    {R"("dump_kernel_data": "tensor,printf,invalid")", kBad, "item 3 of 3 is 'invalid'"},
    {R"("dump_kernel_data": "all,")", kBad, "item 2 of 2 is empty"},
    {R"("dump_kernel_data": ",all")", kBad, "item 1 of 2 is empty"},
    {R"("dump_stats": ["invalid_stat"])", kBad, "dump.dump_stats[0]: invalid statistic 'invalid_stat'"},
    {R"("dump_stats": ["Max", "invalid_stat"])", kBad, "dump.dump_stats[1]: invalid statistic"},
    {R"("dump_stats": [""])", kBad, "dump.dump_stats[0]: is empty; expected one of 'Max'"},
    {R"("dump_stats": ["max"])", kBad, "values are case-sensitive: write 'Max'"},
    {R"("dump_stats": ["NegativeInf"])", kBad, "did you mean 'Negative Inf'?"},
    // Values in every scene, before constraints.
    {R"("dump_scene": "lite_exception", "dump_mode": "x")", kBad, "dump.dump_mode: invalid"},
    {R"("dump_scene": "aic_err_brief_dump", "dump_level": "x")", kBad, "dump.dump_level: invalid"},
    {R"("dump_step": "9-1", "dump_debug": "maybe")", kBad, "dump.dump_debug: invalid dump_debug 'maybe'"},
    // Every accepted value.
    {R"(@path, @list, "dump_mode": "input")", kOk, "model dump of 1 model, inputs, tensor"},
    {R"(@path, @list, "dump_mode": "output")", kOk, "model dump of 1 model, outputs, tensor"},
    {R"(@path, @list, "dump_mode": "all")", kOk, "model dump of 1 model, inputs and outputs"},
    {R"(@path, @list, "dump_data": "tensor")", kOk, ", tensor, every step"},
    {R"(@path, @list, "dump_data": "stats")", kOk, "stats (default columns)"},
    {R"(@path, "dump_op_switch": "on", "dump_level": "op")", kOk, "single-operator dump"},
    {R"(@path, "dump_op_switch": "on", "dump_level": "kernel")", kOk, "single-operator dump"},
    {R"(@path, "dump_op_switch": "on", "dump_level": "all")", kOk, "single-operator dump"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Max"])", kOk, "stats (Max)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Min"])", kOk, "stats (Min)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Avg"])", kOk, "stats (Avg)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Nan"])", kOk, "stats (Nan)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Negative Inf"])", kOk, "stats (Negative Inf)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Positive Inf"])", kOk, "stats (Positive Inf)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["L2norm"])", kOk, "stats (L2norm)"},
    {R"(@path, @list, "dump_data": "stats", "dump_stats": ["Max", "Min", "Avg", "Max"])", kOk, "stats (Max, Min, Avg)"},

    // --- Configs that select nothing: accepted, nothing enabled ------------
    {R"(@path)", kOk, "dump: selects nothing to dump"},
    {R"(@path, "dump_debug": "off")", kOk, "dump: selects nothing to dump"},
    {R"(@path, "dump_op_switch": "off")", kOk, "dump: selects nothing to dump"},
    {R"(@path, "dump_list": [])", kOk, "nothing selected (no dump_list entry, dump_op_switch off)"},
    {R"(@path, "dump_data": "stats", "dump_stats": ["Max"])", kOk, "dump: selects nothing to dump"},
    {R"(@path, "dump_mode": "all", "dump_step": "0-3")", kOk, "dump: selects nothing to dump"},

    // --- Unknown keys: ignored, with a warning ------------------------------
    {R"(@path, "dump_list": [], "dump_pth": "x")", kOk, "dump.dump_pth: unknown key 'dump_pth' is ignored; did you mean 'dump_path'?"},
    {R"(@path, "dump_list": [{"model_name": "m", "layers": ["a"]}])", kOk, "dump.dump_list[0].layers: unknown key 'layers' is ignored; did you mean 'layer'?"},
    {R"(@path, "Dump_Mode": "all")", kOk, "did you mean 'dump_mode'?"},
    {R"(@path, "verbose": true)", kOk, "unknown key 'verbose' is ignored; a dump knows 'dump_path'"},
    {R"(@path, "dump_lst": 5)", kOk, "did you mean 'dump_list'?"},
    {R"(@path, "model_name": "m")", kOk, "it belongs inside a dump_list entry"},
    {R"(@path, "dump_list": [{"model_name": "m", "dump_path": "x"}])", kOk, "it belongs in the dump object itself"},
    {R"(@path, "dump": {})", kOk, "the dump section is nested in itself"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "Conv", "poss": ["input0"]}]}])", kOk, "optype_blacklist[0].poss: unknown key 'poss' is ignored; did you mean 'pos'?"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{"begin": "a", "end": "b", "ned": "c"}]}])", kOk, "did you mean 'end'?"},
    {R"("dump_pth": "testdata", @list)", kBad, "dump.dump_path: is required: set it to an existing writable directory (absolute, or relative to the working directory); the key 'dump_pth' is not known and is ignored: did you mean 'dump_path'?"},
    // Duplicate keys are this runtime's error, anywhere in the dump object.
    {R"(@path, "dump_mode": "all", "dump_mode": "all")", kBad, "dump.dump_mode: duplicate key 'dump_mode'"},
    {R"(@path, "dump_list": [{"model_name": "a", "model_name": "b"}])", kBad, "dump.dump_list[0].model_name: duplicate key"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "a", "optype_blacklist": [{"name": "x", "name": "y"}]}])", kBad, "optype_blacklist[0].name: duplicate key"},
    {R"(@path, "x": 1, "x": 2)", kBad, "dump.x: duplicate key 'x'"},

    // --- dump_scene ----------------------------------------------------------
    {R"("dump_scene": "lite_exception")", kOk, "exception dump (dump_scene lite_exception)"},
    {R"(@path, "dump_scene": "lite_exception")", kOk, "exception dump"},
    {R"("dump_scene": "lite_exception", "dump_debug": "on")", kBad, "dump.dump_debug: 'on' cannot be combined with dump_scene 'lite_exception' (exception dump)"},
    {R"("dump_scene": "lite_exception", "dump_op_switch": "on")", kBad, "dump.dump_op_switch: 'on' cannot be combined with dump_scene 'lite_exception'"},
    {R"("dump_op_switch": "on", "dump_scene": "lite_exception", "dump_debug": "on")", kBad, "dump.dump_debug: 'on' cannot"},
    {R"("dump_scene": "lite_exception", "dump_debug": "off", "dump_op_switch": "off")", kOk, "exception dump"},
    // An exception scene checks nothing after the scene.
    {R"("dump_scene": "lite_exception", "dump_path": "./", "dump_mode": "output", "dump_level": "kernel", "dump_data": "tensor", "dump_stats": ["Max", "Min"], "dump_step": "1-10")", kOk, "exception dump"},
    {R"("dump_scene": "lite_exception", "dump_path": "testdata/no_such_dir")", kOk, "exception dump"},
    {R"("dump_scene": "lite_exception", "dump_path": "")", kOk, "exception dump"},
    {R"("dump_scene": "lite_exception", "dump_step": "abc")", kOk, "dump.dump_step: invalid value 'abc' is ignored"},
    {R"("dump_scene": "lite_exception", "dump_stats": [])", kOk, "exception dump"},
    {R"("dump_scene": "lite_exception", "dump_data": "tensor", "dump_stats": ["Max"])", kOk, "exception dump"},
    {R"("dump_scene": "lite_exception", "dump_list": [{"model_name": "", "layer": []}])", kOk, "the dump_list (1 entry) is ignored"},
    {R"("dump_scene": "lite_exception", "dump_list": [{"model_name": "m"}])", kOk, "dump.dump_list: is ignored: exception dump"},
    {R"("dump_scene": "lite_exception", "dump_list": [{"model_name": "a"}, {"model_name": "a"}])", kBad, "dump.dump_list[1].model_name: duplicate model 'a'"},
    {R"("dump_scene": "lite_exception", "dump_kernel_data": "all")", kNpu, "dump.dump_kernel_data: kernel debug data"},
    {R"("dump_scene": "lite_exception", "dump_list": [{"watcher_nodes": ["n"]}])", kOk, "dump.dump_list: is ignored: exception dump"},
    // NPU-only scenes: unsupported once the SDK's checks pass.
    {R"("dump_scene": "aic_err_brief_dump")", kOk, "exception dump (dump_scene aic_err_brief_dump): inputs, outputs, workspace and tiling data of operators that fail, into"},
    {R"(@path, "dump_scene": "aic_err_norm_dump")", kOk, "of operators that fail, with data types, formats and attributes, into extra-info/data-dump/{device} below $ASCEND_DUMP_PATH, $ASCEND_WORK_PATH, dump_path ("},
    {R"(@path, "dump_scene": "aic_err_detail_dump")", kNpu, "'aic_err_detail_dump' (exception dump with a core dump) records the AI Core's local memory, registers and call stack, which a CPU does not have; use 'aic_err_norm_dump'"},
    {R"("dump_scene": "aic_err_brief_dump", "dump_op_switch": "off")", kOk, "exception dump (dump_scene aic_err_brief_dump)"},
    {R"("dump_scene": "aic_err_brief_dump", "dump_path": "")", kOk, "dump.dump_path: "},
    {R"("dump_scene": "aic_err_norm_dump", "dump_path": "1.2.3.4:/x")", kOk, "exception files go to $ASCEND_DUMP_PATH, $ASCEND_WORK_PATH or the working directory instead"},
    {R"("dump_scene": "aic_err_brief_dump", "dump_debug": "on")", kBad, "dump.dump_debug: 'on' cannot be combined with dump_scene 'aic_err_brief_dump' (exception dump)"},
    {R"("dump_scene": "aic_err_norm_dump", "dump_path": "testdata/no_such_dir")", kOk, "testdata/no_such_dir), or the working directory"},
    {R"(@path, "dump_scene": "watcher", "dump_mode": "output")", kOk, "selects nothing to dump"},
    {R"(@path, "dump_scene": "watcher", "dump_mode": "output", "dump_list": [{"watcher_nodes": ["node1"]}])", kOk, "watcher dump of the outputs of node1 after every operator runs"},
    // The SDK documentation's example.
    {R"(@path, "dump_scene": "watcher", "dump_mode": "output", "dump_list": [{"layer": ["A", "B"], "watcher_nodes": ["C", "D"]}])", kOk, "watcher dump of the outputs of C, D after each of A, B runs"},
    {R"(@path, "dump_scene": "watcher", "dump_list": [{"layer": ["A"], "watcher_nodes": ["C"]}, {"watcher_nodes": ["D"]}])", kOk, "of the outputs of C, D after every operator runs"},
    {R"(@path, "dump_scene": "watcher", "dump_data": "stats", "dump_list": [{"watcher_nodes": ["C"]}])", kOk, "stats (default columns)"},
    {R"(@path, "dump_scene": "watcher", "dump_layout": "packed", "dump_list": [{"watcher_nodes": ["C"]}])", kOk, "(packed layout)"},
    {R"(@path, "dump_scene": "watcher", "dump_mode": "output", "dump_level": "op", "dump_data": "stats", "dump_stats": ["Max", "Min"], "dump_step": "1-10")", kOk, "selects nothing to dump"},
    {R"(@path, "dump_scene": "watcher", "dump_mode": "input")", kBad, "dump.dump_mode: 'input' cannot be combined with dump_scene 'watcher', which dumps outputs only"},
    {R"(@path, "dump_scene": "watcher", "dump_mode": "all", "dump_list": [{"watcher_nodes": ["C"]}])", kBad, "dump.dump_mode: 'all' cannot be combined"},
    {R"("dump_scene": "watcher", "dump_mode": "output")", kBad, "dump.dump_path: is required"},
    {R"("dump_scene": "watcher", "dump_debug": "on")", kBad, "dump.dump_debug: 'on' cannot be combined with dump_scene 'watcher'"},
    {R"("dump_scene": "watcher", "dump_op_switch": "on")", kBad, "dump.dump_op_switch: 'on' cannot be combined with dump_scene 'watcher'"},
    {R"(@path, "dump_scene": "watcher", "dump_list": [{"watcher_nodes": []}])", kBad, "dump.dump_list[0].watcher_nodes: is empty with dump_scene 'watcher'"},
    {R"(@path, "dump_scene": "watcher", "dump_list": [{"layer": ["a"]}])", kBad, "dump.dump_list[0].watcher_nodes: is required with dump_scene 'watcher'"},
    {R"(@path, "dump_scene": "watcher", "dump_list": [{"model_name": "model1", "watcher_nodes": ["node1"]}])", kBad, "dump.dump_list[0].model_name: cannot be set with dump_scene 'watcher'"},
    {R"(@path, "dump_scene": "watcher", "dump_step": "5-1")", kBad, "dump.dump_step: invalid value"},
    {R"(@path, "dump_list": [{"model_name": "model1", "watcher_nodes": ["node1"]}])", kBad, "dump.dump_list[0].watcher_nodes: can only be set with \"dump_scene\": \"watcher\""},
    {R"(@path, "dump_op_switch": "on", "dump_list": [{"model_name": "m", "watcher_nodes": ["n"]}])", kBad, "watcher_nodes: can only be set"},
    {R"(@path, "dump_list": [{"model_name": "m", "watcher_nodes": []}])", kOk, "model dump of 1 model"},

    // --- dump_path -----------------------------------------------------------
    {R"(@list)", kBad, "dump.dump_path: is required: set it"},
    {R"("dump_debug": "on")", kBad, "dump.dump_path: is required for overflow dump"},
    {R"("dump_path": "", @list)", kBad, "dump.dump_path: is empty"},
    {R"("dump_path": "", "dump_debug": "on")", kBad, "dump.dump_path: is empty"},
    {R"("dump_path": "asdf###", @list)", kBad, "directory 'asdf###' (resolved to '/"},
    {R"("dump_path": "./nonexistent/path", @list)", kBad, "does not exist; create it first"},
    {R"("dump_path": "testdata/configs/cases.txt", @list)", kBad, "is not a directory; dump_path names the directory dump files go to"},
    {R"("dump_path": "testdata/configs/cases.txt/x", @list)", kBad, "a component of the path is not a directory"},
    {R"("dump_path": "testdata/configs/", @list)", kOk, "/testdata/configs"},
    {R"("dump_path": "./testdata//configs/.", @list)", kOk, "/testdata/configs"},
    // Remote "ip:path" forms: checked as the SDK does, then unsupported.
    {R"("dump_path": "10.29.103.106:/home/xh", @list)", kNpu, "dump.dump_path: '10.29.103.106:/home/xh' names a directory on another host (ip:path)"},
    {R"("dump_path": "192.168.0.1:/home/xh")", kNpu, "names a directory on another host"},
    {R"("dump_path": "10.29.103.106:/home/xh", "dump_debug": "on")", kNpu, "names a directory on another host"},
    {R"("dump_path": "1.2.3.4.:/x", @list)", kNpu, "another host"},
    {R"("dump_path": " 1.+2.3.4abc:/x", @list)", kNpu, "another host"},
    {R"("dump_path": "-0.0.0.255:/x", @list)", kNpu, "another host"},
    {R"("dump_path": "1.2.3.4:/ok:with:colons_and-=[];,./!@#$%^&*()_+{}?", @list)", kNpu, "another host"},
    {R"("dump_path": "192.168.0.1:/home/    ", @list)", kBad, "dump.dump_path: the remote path '/home/    ' (after host '192.168.0.1') contains ' ', which is not allowed there"},
    {R"("dump_path": "1.2.3.4:/~home", @list)", kBad, "contains '~'"},
    {R"("dump_path": "1.2.3.4:/caf\u00e9", @list)", kBad, "which is not allowed there"},
    {R"("dump_path": "192.168.0.1:", @list)", kBad, "directory '192.168.0.1:' (resolved to"},
    {R"("dump_path": "10.29.103.1061:/home/xh", @list)", kBad, "does not exist"},
    {R"("dump_path": "192.168.0.256:/home/xh", @list)", kBad, "does not exist"},
    {R"("dump_path": "192.168.0.aaa:/home/xh", @list)", kBad, "does not exist"},
    {R"("dump_path": "256.0.0.1:/data/dump", @list)", kBad, "does not exist"},
    {R"("dump_path": ":/home/xh", @list)", kBad, "does not exist"},
    {R"("dump_path": "1..2.3:/x", @list)", kBad, "does not exist"},
    {R"("dump_path": "1.2.3:/x", @list)", kBad, "does not exist"},
    // dump_path comes before dump_debug, dump_step, dump_list and dump_stats.
    {R"("dump_path": "nope", "dump_step": "x", "dump_stats": [], @list)", kBad, "dump.dump_path: directory 'nope'"},

    // --- dump_debug ----------------------------------------------------------
    {R"(@path, "dump_debug": "on")", kOk, "overflow dump of the inputs and outputs"},
    {R"(@path, "dump_debug": "on", "dump_op_switch": "on")", kBad, "dump.dump_op_switch: 'on' cannot be combined with dump_debug 'on'"},
    {R"(@path, "dump_debug": "on", @list)", kBad, "dump.dump_list: overflow dump (dump_debug 'on') cannot be combined with a model dump_list"},
    {R"(@path, "dump_debug": "on", "dump_op_switch": "on", @list)", kBad, "dump.dump_op_switch: 'on' cannot"},
    {R"(@path, "dump_debug": "on", "dump_list": [])", kOk, "overflow dump"},
    {R"(@path, "dump_debug": "on", "dump_step": "abc")", kOk, "dump.dump_step: invalid value 'abc' is ignored"},
    {R"(@path, "dump_debug": "on", "dump_step": "0|3")", kOk, "overflow dump of the inputs and outputs of operators whose results overflow, steps 0|3"},
    {R"(@path, "dump_debug": "on", "dump_stats": [])", kOk, "overflow dump"},
    {R"(@path, "dump_debug": "on", "dump_stats": ["Max"])", kOk, "overflow dump"},
    {R"(@path, "dump_debug": "off", "dump_op_switch": "on")", kOk, "single-operator dump"},

    // --- dump_step -------------------------------------------------------------
    {R"(@path, @list, "dump_step": "")", kOk, "every step"},
    {R"(@path, @list, "dump_step": "3")", kOk, "steps 3,"},
    {R"(@path, @list, "dump_step": "1|3-5|10")", kOk, "steps 1|3-5|10,"},
    {R"(@path, @list, "dump_step": "3-3")", kOk, "steps 3,"},
    {R"(@path, @list, "dump_step": "007|8")", kOk, "steps 7-8,"},
    {R"(@path, @list, "dump_step": "18446744073709551616")", kOk, "steps 18446744073709551615,"},
    {R"(@path, @list, "dump_step": "10-5")", kBad, "dump.dump_step: invalid value '10-5': item 1 of 1 ('10-5'): range start 10 is greater than its end 5"},
    {R"(@path, @list, "dump_step": "5-3")", kBad, "range start 5 is greater than its end 3"},
    {R"(@path, @list, "dump_step": "1-2-3")", kBad, "item 1 of 1 ('1-2-3'): has more than one '-'"},
    {R"(@path, @list, "dump_step": "|")", kBad, "item 1 of 2 (''): is empty"},
    {R"(@path, @list, "dump_step": "1|")", kBad, "item 2 of 2 (''): is empty"},
    {R"(@path, @list, "dump_step": "|1")", kBad, "item 1 of 2 (''): is empty"},
    {R"(@path, @list, "dump_step": "abc")", kBad, "'a' is not allowed"},
    {R"(@path, @list, "dump_step": "abc-123")", kBad, "'a' is not allowed"},
    {R"(@path, @list, "dump_step": "-5")", kBad, "the range has no start"},
    {R"(@path, @list, "dump_step": "5-")", kBad, "the range has no end"},
    {R"(@path, @list, "dump_step": " 5")", kBad, "' ' is not allowed"},
    {R"(@path, @list, "dump_step": "+5")", kBad, "'+' is not allowed"},
    {R"(@path, "dump_op_switch": "on", "dump_step": "1.5")", kBad, "'.' is not allowed"},
    // dump_step comes before dump_list and dump_stats.
    {R"(@path, "dump_step": "x", "dump_stats": [], "dump_list": [{"model_name": ""}])", kBad, "dump.dump_step: invalid value 'x'"},

    // --- dump_list items -------------------------------------------------------
    {R"(@path, "dump_list": [{"model_name": "model1"}])", kOk, "model dump of 1 model, outputs, tensor, every step"},
    {R"(@path, "dump_list": [{"model_name": "model1", "layer": ["layer1"]}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_list": [{"layer": ["conv1"]}])", kOk, "model dump of 1 layer list for every model"},
    {R"(@path, "dump_list": [{"model_name": "", "layer": ["layer1"]}])", kBad, "dump.dump_list[0].model_name: is empty; name a model"},
    {R"(@path, "dump_list": [{"model_name": "model1", "layer": []}])", kBad, "dump.dump_list[0].layer: is empty; list operator names"},
    {R"(@path, "dump_list": [{"model_name": "a"}, {"model_name": ""}])", kBad, "dump.dump_list[1].model_name: is empty"},
    {R"(@path, "dump_op_switch": "on", "dump_list": [{"model_name": "", "layer": []}])", kOk, "model dump of every operator of every model and single-operator dump"},
    {R"(@path, "dump_list": [{}])", kOk, "dump.dump_list[0]: names neither a model nor layers: every operator of every model is dumped"},
    {R"(@path, "dump_list": [{"model_name": "m", "layer": ["conv1", ""]}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_list": [{"model_name": "a"}, {"layer": ["x"]}, {"model_name": "b"}])", kOk, "model dump of 2 models and 1 layer list for every model"},
    {R"(@path, "dump_list": [{"model_name": "a"}, {"model_name": "b"}, {"model_name": "a"}])", kBad, "dump.dump_list[2].model_name: duplicate model 'a', already named by dump.dump_list[0].model_name"},
    {R"(@path, "dump_op_switch": "on", "dump_list": [{"model_name": ""}, {"model_name": ""}])", kOk, "every operator of every model"},

    // --- Blacklists: need dump_level "op", at most 100 filters -------------------
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "model1", "optype_blacklist": [{"name": "type1"}]}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_blacklist": [{"name": "op1", "pos": ["input0", "output0"]}]}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_level": "kernel", "dump_list": [{"model_name": "model1", "optype_blacklist": [{"name": "type1"}]}])", kBad, "dump.dump_list[0].optype_blacklist: needs \"dump_level\": \"op\" (dump_level is 'kernel')"},
    {R"(@path, "dump_level": "all", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t"}]}])", kBad, "(dump_level is 'all')"},
    {R"(@path, "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t"}]}])", kBad, "(dump_level is 'all', the default); set dump_level to 'op' or remove optype_blacklist"},
    {R"(@path, "dump_level": "kernel", "dump_list": [{"model_name": "model1", "opname_blacklist": [{"name": "op1"}]}])", kBad, "dump.dump_list[0].opname_blacklist: needs"},
    {R"(@path, "dump_op_switch": "on", "dump_level": "all", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "Conv2D", "pos": ["input"]}]}])", kBad, "optype_blacklist: needs"},
    {R"(@path, "dump_list": [{"model_name": "m", "optype_blacklist": [], "opname_blacklist": []}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_level": "all", "dump_list": [{"model_name": "m", "opname_blacklist": [{"name": "a"}], "optype_blacklist": [{"name": "b"}]}])", kBad, "dump.dump_list[0].optype_blacklist: needs"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": ["workspace0"]}]}])", kOk, "'workspace0' is not a position of the form inputN or outputN (such as input0): it excludes nothing"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": ["input_0"]}]}])", kOk, "dump.dump_list[0].optype_blacklist[0].pos[0]: 'input_0' is not a position"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": ["output_0"]}]}])", kOk, "'output_0' is not a position"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": [""]}]}])", kOk, "'' is not a position"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": "t", "pos": []}]}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "optype_blacklist": [{"name": ""}]}])", kOk, "dump.dump_list[0].optype_blacklist[0]: has no name: it excludes nothing"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_blacklist": [{"pos": ["input0"]}]}])", kOk, "has no name"},
    {R"(@path, "dump_level": "op", "dump_list": [{"optype_blacklist": [{"name": "Relu"}]}])", kOk, "every operator of every model"},

    // --- opname_range: needs dump_level "op" and a model_name ------------------
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "model1", "opname_range": [{"begin": "op1", "end": "op2"}]}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_level": "kernel", "dump_list": [{"model_name": "m", "opname_range": [{"begin": "op1", "end": "op2"}]}])", kBad, "dump.dump_list[0].opname_range: needs \"dump_level\": \"op\""},
    {R"(@path, "dump_list": [{"model_name": "m", "opname_range": [{"begin": "op1", "end": "op2"}]}])", kBad, "opname_range: needs"},
    {R"(@path, "dump_level": "op", "dump_list": [{"opname_range": [{"begin": "op1", "end": "op2"}]}])", kBad, "dump.dump_list[0].model_name: is required with opname_range"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "", "opname_range": [{"begin": "op1", "end": "op2"}]}])", kBad, "dump.dump_list[0].model_name: is empty; name a model"},
    {R"(@path, "dump_op_switch": "on", "dump_level": "op", "dump_list": [{"model_name": "", "opname_range": [{"begin": "a", "end": "b"}]}])", kBad, "dump.dump_list[0].model_name: is empty with opname_range"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{"begin": "", "end": "op2"}]}])", kBad, "dump.dump_list[0].opname_range[0]: is incomplete: begin and end must both name an operator (found begin '', end 'op2')"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{"begin": "op1", "end": ""}]}])", kBad, "(found begin 'op1', end '')"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{"end": "op2"}]}])", kBad, "(found begin missing, end 'op2')"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{}]}])", kBad, "(found begin missing, end missing)"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{"begin": "a", "end": "b"}, {"begin": "c"}]}])", kBad, "dump.dump_list[0].opname_range[1]: is incomplete"},
    {R"(@path, "dump_list": [{"model_name": "m", "opname_range": []}])", kOk, "model dump of 1 model"},
    {R"(@path, "dump_level": "op", "dump_list": [{"model_name": "m", "opname_range": [{"begin": "a", "end": "b"}], "opname_blacklist": [{"name": "c"}]}])", kOk, "model dump of 1 model"},

    // --- dump_stats ------------------------------------------------------------
    {R"(@path, @list, "dump_stats": [])", kBad, "dump.dump_stats: is empty; list statistics"},
    {R"(@path, @list, "dump_stats": ["Max"])", kBad, "dump.dump_stats: needs \"dump_data\": \"stats\""},
    {R"(@path, @list, "dump_data": "tensor", "dump_stats": ["Max"])", kBad, "needs \"dump_data\": \"stats\""},
    {R"(@path, @list, "dump_data": "tensor", "dump_stats": [])", kBad, "dump.dump_stats: is empty"},
    {R"(@path, "dump_op_switch": "on", "dump_stats": [])", kBad, "dump.dump_stats: is empty"},
    {R"(@path, "dump_op_switch": "on", "dump_stats": ["Max"])", kBad, "needs \"dump_data\""},
    {R"(@path, "dump_op_switch": "on", "dump_data": "stats")", kOk, "single-operator dump, outputs, stats (default columns)"},
    {R"(@path, "dump_mode": "all", "dump_op_switch": "on", "dump_data": "stats")", kOk, "inputs and outputs, stats"},
    {R"(@path, "dump_stats": [], "dump_list": [{"model_name": ""}])", kBad, "dump.dump_list[0].model_name: is empty"},

    // --- NPU-only features come after the SDK's checks ---------------------------
    {R"(@path, @list, "dump_kernel_data": "all")", kNpu, "dump.dump_kernel_data: kernel debug data (printf, assert, timestamp and tensor records of device kernels) needs an NPU"},
    {R"(@path, @list, "dump_kernel_data": "all,printf")", kNpu, "dump.dump_kernel_data"},
    {R"(@path, "dump_kernel_data": "printf")", kNpu, "dump.dump_kernel_data"},
    {R"(@path, "dump_op_switch": "on", "dump_kernel_data": "tensor")", kNpu, "dump.dump_kernel_data"},
    {R"(@path, @list, "dump_kernel_data": "bogus")", kBad, "dump.dump_kernel_data: the value is 'bogus'"},
    {R"(@list, "dump_kernel_data": "all")", kBad, "dump.dump_path: is required"},
    {R"(@path, "dump_kernel_data": "all", "dump_step": "x", "dump_list": [])", kBad, "dump.dump_step"},
    {R"(@path, "dump_kernel_data": "all", "dump_list": [{"model_name": "a"}, {"model_name": "a"}])", kBad, "duplicate model 'a'"},
    {R"("dump_path": "1.2.3.4:/x", "dump_scene": "watcher")", kNpu, "dump.dump_path"},
};
// clang-format on

std::string ConfigText(std::string config) {
  if (!config.empty() && config.front() == '=') return config.substr(1);
  const auto replace = [&config](std::string_view from, std::string_view to) {
    for (size_t at = config.find(from); at != std::string::npos;
         at = config.find(from, at + to.size())) {
      config.replace(at, from.size(), to);
    }
  };
  replace("@path", R"("dump_path": "testdata/configs")");
  replace("@list", R"("dump_list": [{"model_name": "model1"}])");
  return StrCat(R"({"dump": {)", config, "}}");
}

std::string KindName(const absl::Status& status) {
  const std::optional<ErrorKind> kind = KindOf(status);
  if (!kind) return "(none)";
  switch (*kind) {
    case ErrorKind::kParseFile:
      return kDeep;
    case ErrorKind::kInvalidDumpConfig:
      return kBad;
    case ErrorKind::kInvalidJson:
      return kJson;
    case ErrorKind::kFeatureUnsupported:
      return kNpu;
    default:
      return StrCat("ErrorKind(", static_cast<int>(*kind), ")");
  }
}

TEST(ConfigVectorsTest, EachVectorGetsItsVerdict) {
  for (const Vector& v : kVectors) {
    const std::string text = ConfigText(v.config);
    SCOPED_TRACE(text);
    const absl::StatusOr<DumpConfig> config = ParseDumpConfig(text, "acl.json");
    if (v.verdict == kOk) {
      ASSERT_TRUE(config.ok()) << config.status();
      std::string described = DescribeDumpConfig(*config);
      for (const std::string& warning : config->warnings) {
        StrAppend(described, "\n", warning);
      }
      EXPECT_THAT(described, HasSubstr(v.fragment));
      continue;
    }
    ASSERT_FALSE(config.ok()) << DescribeDumpConfig(*config);
    EXPECT_EQ(KindName(config.status()), v.verdict) << config.status();
    const std::string message(ToStd(config.status().message()));
    EXPECT_THAT(message, StartsWith("acl.json: "));
    EXPECT_THAT(message, HasSubstr(v.fragment));
    const absl::StatusCode code = v.verdict == kNpu
                                      ? absl::StatusCode::kUnimplemented
                                      : absl::StatusCode::kInvalidArgument;
    EXPECT_EQ(config.status().code(), code);
  }
}

TEST(ConfigVectorsTest, TheTableIsLarge) { EXPECT_GE(kVectors.size(), 150u); }

// Limits at their edges, built rather than written out.
TEST(ConfigVectorsTest, LimitsAtTheirEdges) {
  std::string hundred = "0";
  for (int i = 1; i < 100; ++i) StrAppend(hundred, "|", i);
  const auto step_config = [](const std::string& steps) {
    return ConfigText(StrCat(R"(@path, @list, "dump_step": ")", steps, "\""));
  };
  EXPECT_TRUE(ParseDumpConfig(step_config(hundred), "a").ok());
  const absl::StatusOr<DumpConfig> over =
      ParseDumpConfig(step_config(hundred + "|100"), "a");
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(std::string(ToStd(over.status().message())),
              HasSubstr("the step list has 101 items; at most 100 are "
                        "allowed"));

  const auto filters = [](std::string_view key, int n) {
    std::string list;
    for (int i = 0; i < n; ++i) {
      StrAppend(list, i ? ", " : "", R"({"name": "type)", i, "\"}");
    }
    return ConfigText(StrCat(R"(@path, "dump_level": "op", "dump_list": [)",
                             R"({"model_name": "m", ")", key, "\": [", list,
                             "]}]"));
  };
  for (std::string_view key : {"optype_blacklist", "opname_blacklist"}) {
    EXPECT_TRUE(ParseDumpConfig(filters(key, 100), "a").ok()) << key;
    const absl::StatusOr<DumpConfig> too_many =
        ParseDumpConfig(filters(key, 101), "a");
    ASSERT_FALSE(too_many.ok()) << key;
    EXPECT_EQ(KindOf(too_many.status()), ErrorKind::kInvalidDumpConfig);
    EXPECT_THAT(std::string(ToStd(too_many.status().message())),
                HasSubstr(StrCat("dump.dump_list[0].", key,
                                 ": has 101 filters; at most 100 are "
                                 "allowed")));
  }
  // The size comes before dump_level, as in the SDK.
  const std::string no_level = filters("optype_blacklist", 101);
  const std::string without_level =
      no_level.substr(0, no_level.find(R"("dump_level": "op", )")) +
      no_level.substr(no_level.find(R"("dump_list")"));
  EXPECT_THAT(std::string(ToStd(
                  ParseDumpConfig(without_level, "a").status().message())),
              HasSubstr("has 101 filters"));

  // dump_path: 512 bytes pass the length check, 513 do not.
  const auto path_config = [](size_t bytes) {
    std::string path = "testdata/configs";
    path.resize(bytes, '/');
    return ConfigText(StrCat(R"("dump_path": ")", path, R"(", @list)"));
  };
  EXPECT_TRUE(ParseDumpConfig(path_config(512), "a").ok());
  EXPECT_THAT(
      std::string(
          ToStd(ParseDumpConfig(path_config(513), "a").status().message())),
      HasSubstr("dump.dump_path: is 513 bytes long; at most 512 are allowed"));
  EXPECT_THAT(
      std::string(ToStd(ParseDumpConfig(ConfigText(StrCat(R"("dump_path": ")",
                                                          std::string(513, 'a'),
                                                          R"(", @list)")),
                                        "a")
                            .status()
                            .message())),
      HasSubstr("is 513 bytes long"));
}

}  // namespace
}  // namespace acldump::dump
