// Runs an ONNX model with ONNX Runtime (onnxruntime-node, CPU) on .npy inputs: the reference side
// of the model zoo (run.sh).
//   node ort_run.js model.onnx out_dir input_0.npy [input_1.npy ...]
//     runs once and writes the outputs as out_dir/output_<k>.npy;
//   node ort_run.js --time RUNS --threads N model.onnx - input_0.npy ...
//     runs twice to warm up, then RUNS times with N intra-op threads (sequential execution, all
//     graph optimisations), and prints each run's milliseconds as JSON: {"threads": N, "ms": [...]}.
//   node ort_run.js --first-run RUNS --threads N model.onnx - input_0.npy ...
//     what a service loading the model on demand sees, in a fresh process: the session's creation,
//     the first run, then RUNS more; prints as JSON the milliseconds of the creation and of the
//     first run, the resident memory before the creation and the peak at the end (MB);
//   node ort_run.js --profile RUNS --threads N model.onnx - input_0.npy ...
//     one warm-up run, then RUNS runs with ONNX Runtime's profiler; prints the kernel time per
//     run by op type and by node ("<node name> <op type>") as JSON:
//     {"by_type": {"Conv": ms, ...}, "by_node": {...}, "total_ms": ms}.
// NODE_PATH must reach a node_modules holding onnxruntime-node.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');

const DTYPES = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array]};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim())
      .filter(s => s.length).map(Number);
  const [type, Ctor] = DTYPES[descr] || [];
  if (!type) throw new Error(`${file}: dtype ${descr} not handled`);
  const offset = start + headerLen;
  const bytes = buf.subarray(offset);
  const data = new Ctor(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, data, shape);
}

function writeNpy(file, tensor) {
  const descr = {
    float32: '<f4', int64: '<i8', int32: '<i4', uint8: '|u1', int8: '|i1', bool: '|b1'
  }[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} not handled`);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

async function main() {
  const args = process.argv.slice(2);
  let runs = 0;
  let firstRuns = 0;
  let profileRuns = 0;
  let threads = 0;
  while (args.length >= 2 && args[0].startsWith('--')) {
    const [flag, value] = args.splice(0, 2);
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`bad value for ${flag}: ${value}`);
    if (flag === '--time') runs = n;
    else if (flag === '--first-run') firstRuns = n;
    else if (flag === '--profile') profileRuns = n;
    else if (flag === '--threads') threads = n;
    else throw new Error(`unknown option ${flag}`);
  }
  const [model, outDir, ...inputs] = args;
  if (!model || !outDir || inputs.length === 0) {
    console.error('usage: node ort_run.js [--time RUNS | --first-run RUNS | --profile RUNS] ' +
                  '[--threads N] model.onnx out_dir input.npy...');
    process.exit(2);
  }
  const options = {executionProviders: ['cpu']};
  // ORT_OPTIMIZATION=basic keeps ONNX Runtime from rewriting a quantized graph into its own int8
  // kernels (which quantize activations the model leaves in float): the exact result to compare.
  if (process.env.ORT_OPTIMIZATION) options.graphOptimizationLevel = process.env.ORT_OPTIMIZATION;
  if (threads > 0) {
    Object.assign(options, {intraOpNumThreads: threads, interOpNumThreads: 1,
                            executionMode: 'sequential', graphOptimizationLevel: 'all'});
  }
  // The inputs first, so that the creation's time and memory are the model's.
  const tensors = inputs.map(readNpy);
  let profilePrefix = null;
  if (profileRuns > 0) {
    profilePrefix = path.join(os.tmpdir(), `ort-profile-${process.pid}`);
    Object.assign(options, {enableProfiling: true, profileFilePrefix: profilePrefix});
  }
  const rssBefore = process.memoryUsage().rss / 1e6;
  const createStart = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, options);
  const createMs = Number(process.hrtime.bigint() - createStart) / 1e6;
  const feeds = {};
  session.inputNames.forEach((name, i) => { feeds[name] = tensors[i]; });
  if (firstRuns > 0) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    const firstMs = Number(process.hrtime.bigint() - start) / 1e6;
    for (let i = 0; i < firstRuns; ++i) await session.run(feeds);
    console.log(JSON.stringify({threads, load_ms: createMs, first_run_ms: firstMs,
                                rss_before_mb: rssBefore,
                                // maxRSS is in KiB.
                                peak_rss_mb: process.resourceUsage().maxRSS * 1024 / 1e6}));
    return;
  }
  if (profileRuns > 0) {
    await session.run(feeds);  // warm-up: its events are left out below
    for (let i = 0; i < profileRuns; ++i) await session.run(feeds);
    session.endProfiling();
    const dir = path.dirname(profilePrefix);
    const files = fs.readdirSync(dir).filter(f => f.startsWith(path.basename(profilePrefix)));
    if (files.length !== 1) throw new Error(`expected one profile file ${profilePrefix}*`);
    const file = path.join(dir, files[0]);
    const events = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.unlinkSync(file);
    // Kernel events of the timed runs: those after the warm-up's model_run event ends.
    const modelRuns = events.filter(e => e.cat === 'Session' && e.name === 'model_run');
    if (modelRuns.length !== profileRuns + 1) {
      throw new Error(`profile holds ${modelRuns.length} runs, expected ${profileRuns + 1}`);
    }
    const warmEnd = modelRuns[0].ts + modelRuns[0].dur;
    const byType = {};
    const byNode = {};
    let total = 0;
    for (const e of events) {
      if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < warmEnd) continue;
      const type = (e.args && e.args.op_name) || 'unknown';
      byType[type] = (byType[type] || 0) + e.dur / 1e3 / profileRuns;
      const node = `${e.name.slice(0, -'_kernel_time'.length)} ${type}`;
      byNode[node] = (byNode[node] || 0) + e.dur / 1e3 / profileRuns;
      total += e.dur / 1e3 / profileRuns;
    }
    console.log(JSON.stringify({by_type: byType, by_node: byNode, total_ms: total}));
    return;
  }
  if (runs > 0) {
    const ms = [];
    for (let i = 0; i < runs + 2; ++i) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      const stop = process.hrtime.bigint();
      if (i >= 2) ms.push(Number(stop - start) / 1e6);
    }
    console.log(JSON.stringify({threads, ms}));
    return;
  }
  const results = await session.run(feeds);
  session.outputNames.forEach((name, k) => {
    writeNpy(path.join(outDir, `output_${k}.npy`), results[name]);
  });
}

main().catch(e => { console.error(`ort_run: ${e.message}`); process.exit(1); });
