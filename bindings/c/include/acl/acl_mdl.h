/*
 * acldump C ABI: models and model dump.
 *
 * Dump lifecycle: aclmdlInitDump -> aclmdlSetDump(cfg) -> load -> execute ->
 * aclmdlFinalizeDump, repeatable within a process with different configs. What
 * a model dumps is decided when it is loaded: a config applies to models loaded
 * after aclmdlSetDump, and the latest aclmdlSetDump before a load wins. Between
 * aclmdlInitDump and the first aclmdlSetDump (and after aclmdlFinalizeDump),
 * models loaded get aclInit's dump config, if it had one. aclmdlFinalizeDump
 * writes everything queued and reports data that could not be written.
 * Executions on a stream (aclmdlExecuteAsync) dump exactly as aclmdlExecute:
 * one still queued when aclmdlFinalizeDump is called is waited for (see
 * there); one queued when its stream is destroyed, its model unloaded or
 * aclFinalize called runs first, and dumps.
 *
 * Every call needs aclInit (ACL_ERROR_UNINITIALIZE) except the description,
 * dataset and query-size getters.
 */
#ifndef ACLDUMP_ACL_MDL_H_
#define ACLDUMP_ACL_MDL_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF
#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"

typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlDataset aclmdlDataset;
/* AIPP parameters for a model input with dynamic AIPP (aclmdlCreateAIPP). */
typedef struct aclmdlAIPP aclmdlAIPP;
typedef struct aclAippExtendInfo aclAippExtendInfo;

/* AIPP source image formats. acldump preprocesses YUV420SP_U8, XRGB8888_U8,
 * RGB888_U8, YUV400_U8 and ARGB8888_U8. */
typedef enum {
  ACL_YUV420SP_U8 = 1,
  ACL_XRGB8888_U8,
  ACL_RGB888_U8,
  ACL_YUV400_U8,
  ACL_NC1HWC0DI_FP16,
  ACL_NC1HWC0DI_S8,
  ACL_ARGB8888_U8,
  ACL_YUYV_U8,
  ACL_YUV422SP_U8,
  ACL_AYUV444_U8,
  ACL_RAW10,
  ACL_RAW12,
  ACL_RAW16,
  ACL_RAW24,
  ACL_AIPP_RESERVED = 0xffff
} aclAippInputFormat;

/* What an input is to AIPP (aclmdlGetAippType). */
typedef enum {
  ACL_DATA_WITHOUT_AIPP = 0,
  ACL_DATA_WITH_STATIC_AIPP,
  ACL_DATA_WITH_DYNAMIC_AIPP,
  ACL_DYNAMIC_AIPP_NODE
} aclmdlInputAippType;

/* A fixed-size value type (SDK layout). */
typedef struct aclmdlIODims {
  char name[ACL_MAX_TENSOR_NAME_LEN];
  size_t dimCount;
  int64_t dims[ACL_MAX_DIM_CNT];
} aclmdlIODims;

/* A dynamic model's gears (convert --dynamic-batch-size /
 * --dynamic-image-size): batch sizes, or (height, width) pairs, in the order
 * given at conversion. */
typedef struct aclmdlBatch {
  size_t batchCount;
  uint64_t batch[ACL_MAX_BATCH_NUM];
} aclmdlBatch;

typedef struct aclmdlHW {
  size_t hwCount;
  uint64_t hw[ACL_MAX_HW_NUM][2];
} aclmdlHW;

/* A static AIPP input's image dims and size, and the dims and size AIPP
 * produces (SDK layout). */
typedef struct aclAippDims {
  aclmdlIODims srcDims;
  size_t srcSize;
  aclmdlIODims aippOutdims;
  size_t aippOutSize;
} aclAippDims;

/* A static AIPP input's configuration (aclmdlGetFirstAippInfo; SDK layout). */
typedef struct aclAippInfo {
  aclAippInputFormat inputFormat;
  int32_t srcImageSizeW;
  int32_t srcImageSizeH;
  int8_t cropSwitch;
  int32_t loadStartPosW;
  int32_t loadStartPosH;
  int32_t cropSizeW;
  int32_t cropSizeH;
  int8_t resizeSwitch;
  int32_t resizeOutputW;
  int32_t resizeOutputH;
  int8_t paddingSwitch;
  int32_t leftPaddingSize;
  int32_t rightPaddingSize;
  int32_t topPaddingSize;
  int32_t bottomPaddingSize;
  int8_t cscSwitch;
  int8_t rbuvSwapSwitch;
  int8_t axSwapSwitch;
  int8_t singleLineMode;
  int32_t matrixR0C0;
  int32_t matrixR0C1;
  int32_t matrixR0C2;
  int32_t matrixR1C0;
  int32_t matrixR1C1;
  int32_t matrixR1C2;
  int32_t matrixR2C0;
  int32_t matrixR2C1;
  int32_t matrixR2C2;
  int32_t outputBias0;
  int32_t outputBias1;
  int32_t outputBias2;
  int32_t inputBias0;
  int32_t inputBias1;
  int32_t inputBias2;
  int32_t meanChn0;
  int32_t meanChn1;
  int32_t meanChn2;
  int32_t meanChn3;
  float minChn0;
  float minChn1;
  float minChn2;
  float minChn3;
  float varReciChn0;
  float varReciChn1;
  float varReciChn2;
  float varReciChn3;
  aclFormat srcFormat;
  aclDataType srcDatatype;
  size_t srcDimNum;
  size_t shapeCount;
  aclAippDims outDims[ACL_MAX_SHAPE_COUNT];
  aclAippExtendInfo *aippExtend; /* reserved: NULL */
} aclAippInfo;

/* ---- Dump ---- */

/* Starts a dump session (also when aclInit's config set up dump).
 * ACL_ERROR_UNINITIALIZE before aclInit, ACL_ERROR_REPEAT_INITIALIZE when
 * already started. */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
/* Reads the dump config at `dumpCfgPath` (a JSON file with a "dump" section).
 * Checked in this order: ACL_ERROR_UNINITIALIZE before aclInit,
 * ACL_ERROR_DUMP_NOT_RUN before aclmdlInitDump, ACL_ERROR_INVALID_PARAM for a
 * NULL or empty path, then the file: ACL_ERROR_INVALID_FILE (missing, not a
 * regular file, too large), ACL_ERROR_PARSE_FILE (nested too deeply),
 * ACL_ERROR_INVALID_DUMP_CONFIG (not JSON, or a rule broken: the message gives
 * the JSON path of the offending item). */
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
/* Ends the dump session: every queued dump file is written before it returns.
 * Executions queued with aclmdlExecuteAsync before the call are waited for
 * first (all streams' work queued so far, as aclrtSynchronizeDevice would, the
 * caller's own stream excepted when called from a stream callback), so they
 * dump as aclmdlExecute's do. That wait is bounded (60 s, or
 * ACLDUMP_FINALIZE_WAIT_MS): work still queued then (a stream waiting for an
 * event not yet recorded) runs later without dump, and the call returns
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT saying how many streams. Stream failures
 * stay for aclrtSynchronizeStream to report.
 * Needs aclmdlInitDump (else ACL_ERROR_DUMP_NOT_RUN). ACL_ERROR_WRITE_FILE when
 * files could not be written (the message says how many and which). */
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);
/* acldump extension: aclmdlFinalizeDump without the wait, for a service that
 * must not stall while files are written. The dump ends at once
 * (aclmdlInitDump may follow right away; models loaded under it stop
 * dumping once the executions queued on streams before this call have run)
 * and a background thread writes what is queued. aclmdlWaitDumpFinalized
 * reports; aclFinalize waits for it too. ACL_ERROR_DUMP_NOT_RUN without
 * aclmdlInitDump. */
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDumpInBackground(void);
/* Waits for every background finalize to end, at most timeoutMs milliseconds
 * (-1: no limit; 0: just look), and returns their report: ACL_SUCCESS,
 * ACL_ERROR_WRITE_FILE (files could not be written; the message says how many
 * and which), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (queued executions never ran),
 * or ACL_ERROR_RT_WAIT_TIMEOUT when one is still writing at the timeout (call
 * again). A report is given once. */
ACL_FUNC_VISIBILITY aclError aclmdlWaitDumpFinalized(int32_t timeoutMs);

/* ---- Dump armed on a loaded model (acldump extensions) ----
 *
 * For services: dump turned on for a loaded model with no reload, for a number
 * of executions or for the requests that carry a tag. A model never armed runs
 * exactly as before, at no cost; an armed model's unmatched executions run
 * unobserved (or with the dump its load attached). */

/* Arms dump on loaded model `modelId`: from its next execution on,
 * `executions` executions (0: every one until aclmdlDisarmDump) dump as the
 * config at `dumpCfgPath` says (a JSON file with a "dump" section, read as
 * aclmdlSetDump reads it; a dump_list entry without model_name selects this
 * model's layers). With a non-empty `requestTag` only executions run by
 * aclmdlExecuteWithTag with that tag count and dump; with NULL or "" any
 * execution does (a tagged execution uses its tag's arm first). Each dumped
 * execution writes request.json beside its files: the request tag, the
 * iteration, the arm. Needs aclInit, not aclmdlInitDump, and is independent of
 * aclmdlSetDump/aclmdlFinalizeDump. Arming a model again for the same tag
 * replaces that arm; the previous one is closed as aclmdlDisarmDump would
 * (ACL_ERROR_WRITE_FILE if its files could not all be written; the new arm is
 * in effect). Errors: ACL_ERROR_INVALID_MODEL_ID; ACL_ERROR_INVALID_PARAM for a
 * NULL or empty path, a tag longer than 128 bytes or with characters outside
 * printable ASCII, or a config that dumps nothing of this model; config file
 * errors as aclmdlSetDump's. aclmdlUnload and aclFinalize close the model's
 * arms. */
ACL_FUNC_VISIBILITY aclError aclmdlArmDump(uint32_t modelId,
                                           const char *dumpCfgPath,
                                           const char *requestTag,
                                           uint64_t executions);
/* Removes the arm of `requestTag` from the model ("": the untagged arm; NULL:
 * every arm of the model), lets an execution under way finish, writes all its
 * queued files and returns. ACL_ERROR_WRITE_FILE when files could not be
 * written (the message says how many and which); ACL_ERROR_INVALID_PARAM when
 * the model has no such arm. */
ACL_FUNC_VISIBILITY aclError aclmdlDisarmDump(uint32_t modelId,
                                              const char *requestTag);
/* The arm of `requestTag` (NULL or "": the untagged arm): how many executions
 * it has dumped, and how many it will still dump (UINT64_MAX when it lasts
 * until disarmed). ACL_ERROR_INVALID_PARAM when the model has no such arm. */
ACL_FUNC_VISIBILITY aclError aclmdlGetArmedDumpCount(uint32_t modelId,
                                                     const char *requestTag,
                                                     uint64_t *dumped,
                                                     uint64_t *remaining);
/* What dump has dropped of model `modelId` so far in the open dump sessions
 * (aclmdlSetDump's since aclmdlInitDump, aclInit's, the model's arms): records
 * an execution could not hand to the writer within its wait budget under
 * "dump_backpressure": "drop", and records beyond a config's dump_max_bytes.
 * Each session also reports them when it closes (dump_dropped.json in its
 * time folder, and a warning). Any output pointer may be NULL. */
ACL_FUNC_VISIBILITY aclError aclmdlGetDumpDropCount(uint32_t modelId,
                                                    uint64_t *records,
                                                    uint64_t *bytes,
                                                    uint64_t *iterations);
/* aclmdlExecute for the request `requestTag` (NULL or "": none), which the
 * model's arms match; tag rules as aclmdlArmDump's. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteWithTag(uint32_t modelId,
                                                  const char *requestTag,
                                                  const aclmdlDataset *input,
                                                  aclmdlDataset *output);

/* ---- Flight recorder (acldump extensions) ----
 *
 * For services: a loaded model keeps, in memory, its last N executions (their
 * inputs, the checksums and NaN/Inf counts of their outputs and, optionally,
 * the statistics of every operator output). When something goes wrong (a NaN
 * or infinity in an output or operator output, a failed execution, a call,
 * SIGUSR2) a report is written: the ring (each input as an .npy file,
 * recorder.json) and a replay of the triggering execution from its saved
 * inputs, dumped as the recorder's dump config says, with a check that the
 * replay reproduces the recorded outputs bit for bit. Triggers are written
 * on a background thread, one at a time (at most 16 NaN/Inf or failure
 * reports per recorder; later ones are counted). */

/* Flags of aclmdlStartRecorder. */
#define ACL_RECORDER_OPERATOR_STATS 0x1u     /* every operator output's stats */
#define ACL_RECORDER_TRIGGER_NON_FINITE 0x2u /* a NaN/Inf in an output */
#define ACL_RECORDER_TRIGGER_ERROR 0x4u      /* a failed execution */
#define ACL_RECORDER_TRIGGER_SIGNAL 0x8u     /* SIGUSR2 sent to the process */
#define ACL_RECORDER_DEFAULT \
  (ACL_RECORDER_TRIGGER_NON_FINITE | ACL_RECORDER_TRIGGER_ERROR)

/* Starts a recorder on loaded model `modelId` keeping its last `executions`
 * executions (1-1024). `dumpCfgPath` is a dump config (as aclmdlArmDump's,
 * without dump_step): reports go into its dump_path, and the replay is dumped
 * as it says (layers, mode, tensors or statistics, layout). With
 * ACL_RECORDER_OPERATOR_STATS and ACL_RECORDER_TRIGGER_NON_FINITE a NaN/Inf in
 * any operator output triggers too. ACL_RECORDER_TRIGGER_SIGNAL installs a
 * SIGUSR2 handler (the previous one is restored when the last such recorder
 * stops). Errors: ACL_ERROR_INVALID_MODEL_ID; ACL_ERROR_INVALID_PARAM for a
 * NULL or empty path, `executions` out of range, unknown flags, a model that
 * has a recorder, a config with dump_step or one that dumps nothing of this
 * model; config file errors as aclmdlSetDump's. aclmdlUnload and aclFinalize
 * stop it. */
ACL_FUNC_VISIBILITY aclError aclmdlStartRecorder(uint32_t modelId,
                                                 const char *dumpCfgPath,
                                                 uint32_t executions,
                                                 uint32_t flags);
/* Stops the recorder after the reports under way. ACL_ERROR_WRITE_FILE when
 * a report since the last aclmdlWaitRecorder could not be written;
 * ACL_ERROR_INVALID_PARAM when the model has no recorder. */
ACL_FUNC_VISIBILITY aclError aclmdlStopRecorder(uint32_t modelId);
/* Writes a report now, on the calling thread, replaying the newest recorded
 * execution; `reason` (may be NULL) is kept in recorder.json. Whether the
 * replay reproduced the recorded outputs bit for bit goes to `*reproduced`
 * (1/0; may be NULL); aclmdlGetRecorderReportDir gives the report's folder.
 * ACL_ERROR_INVALID_PARAM when the model has no recorder, nothing was
 * recorded since it started or since the last report, or `reason` is longer
 * than 1024 bytes; ACL_ERROR_WRITE_FILE when the report could not be
 * written. */
ACL_FUNC_VISIBILITY aclError aclmdlTriggerRecorder(uint32_t modelId,
                                                   const char *reason,
                                                   int32_t *reproduced);
/* Waits until the reports the recorder's triggers started are written
 * (`timeoutMs` -1: without limit; ACL_ERROR_RT_WAIT_TIMEOUT when one is still
 * being written) and returns the first of their failures since the last call
 * (ACL_ERROR_WRITE_FILE). */
ACL_FUNC_VISIBILITY aclError aclmdlWaitRecorder(uint32_t modelId,
                                                int32_t timeoutMs);
/* The recorder's counts: executions recorded, triggers seen, reports written,
 * reports whose replay reproduced the execution, and triggers not written (a
 * report was under way, the limit was reached, nothing was recorded). Any
 * pointer may be NULL. */
ACL_FUNC_VISIBILITY aclError aclmdlGetRecorderCount(
    uint32_t modelId, uint64_t *recorded, uint64_t *triggers, uint64_t *reports,
    uint64_t *reproduced, uint64_t *skipped);
/* The latest report: whether its replay reproduced the execution (1/0), and
 * the iteration that triggered it. ACL_ERROR_INVALID_PARAM when none was
 * written yet. Either pointer may be NULL. */
ACL_FUNC_VISIBILITY aclError aclmdlGetRecorderLastReport(
    uint32_t modelId, int32_t *reproduced, uint64_t *triggerIteration);
/* The latest report's folder (it holds recorder.json), or NULL (the recent
 * error says why: no recorder, no report yet). The string stays valid until
 * the calling thread calls this function again. */
ACL_FUNC_VISIBILITY const char *aclmdlGetRecorderReportDir(uint32_t modelId);

/* ---- Load / execute ---- */

/* Loads an .om model file converted from ONNX by acldump's converter
 * (acldump-convert, //tools:convert; the NPU SDK's .om is refused). On
 * success writes the new id to *modelId. Its dump model name is the file name
 * without extension or the model's graph name; its dump device is the device
 * of the calling thread's current context (0 without one). Errors:
 * ACL_ERROR_READ_MODEL_FAILURE (cannot read: missing, a directory, ...),
 * ACL_ERROR_PARSE_MODEL (corrupt or inconsistent), ACL_ERROR_MODEL_SIZE_INVALID
 * (a tensor too large), ACL_ERROR_BAD_ALLOC (more memory than the per-model
 * limit, ACLDUMP_MAX_MODEL_MEMORY_MB, or out of memory). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char *modelPath,
                                                uint32_t *modelId);
/* acldump extension (the SDK converts with its ATC tool): converts an ONNX
 * model (opset 7-18) into an .om file at omPath, as the `convert` tool does
 * (BatchNorm folding and operator fusions keep every original name for dump).
 * inputShape is NULL or "" when every input dimension is fixed, else static
 * sizes for inputs with symbolic dimensions: "name:d0,d1,...;name2:...". The
 * .om is written complete or not at all. Needs no aclInit. Errors:
 * ACL_ERROR_INVALID_PARAM (a NULL path, a malformed inputShape),
 * ACL_ERROR_READ_MODEL_FAILURE (onnxPath cannot be read: missing, a
 * directory, unreadable, larger than 2 GiB), ACL_ERROR_FEATURE_UNSUPPORTED (an
 * operator or feature the runtime lacks), ACL_ERROR_PARSE_MODEL (not a valid
 * ONNX model, or its shapes cannot be inferred), ACL_ERROR_WRITE_FILE (omPath
 * cannot be written). */
ACL_FUNC_VISIBILITY aclError aclmdlConvertOnnx(const char *onnxPath,
                                               const char *omPath,
                                               const char *inputShape);
/* Loads a model from memory (copied; the caller keeps ownership of `model`).
 * Only the graph name matches a dump_list model_name. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void *model,
                                               size_t modelSize,
                                               uint32_t *modelId);
/* The memory a model needs when the caller provides it: `workSize` bytes of
 * work memory (activations and kernel scratch) and `weightSize` bytes for its
 * weights, each at least 64 so they can be passed to aclrtMalloc. The model is
 * checked, not loaded. Errors as aclmdlLoadFromFile. Needs no aclInit. */
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char *fileName,
                                             size_t *workSize,
                                             size_t *weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySizeFromMem(const void *model,
                                                    size_t modelSize,
                                                    size_t *workSize,
                                                    size_t *weightSize);
/* Loads a model that runs in the caller's memory: activations and scratch in
 * [workPtr, workPtr + workSize), its weights copied into [weightPtr, weightPtr
 * + weightSize). Both must be device memory from aclrtMalloc and stay
 * allocated until the model is unloaded (aclrtFree refuses them before). A
 * NULL pointer lets the model allocate that part itself (its size is then
 * ignored). ACL_ERROR_GE_PARAM_INVALID when a size is smaller than
 * aclmdlQuerySize reports, or the range is not inside one aclrtMalloc
 * allocation. Other errors as aclmdlLoadFromFile. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(
    const char *modelPath, uint32_t *modelId, void *workPtr, size_t workSize,
    void *weightPtr, size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithMem(
    const void *model, size_t modelSize, uint32_t *modelId, void *workPtr,
    size_t workSize, void *weightPtr, size_t weightSize);
/* Unloads; ACL_ERROR_INVALID_MODEL_ID for an unknown id. An execution running
 * on another thread or queued on a stream completes first, and caller memory
 * stays in use until it has. */
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);
/* Runs the model once. `input` holds one buffer per model input, `output` one
 * per output, each at least the tensor's byte size. Executions of one model are
 * serialised; different models run in parallel. ACL_ERROR_MODEL_INPUT_NOT_MATCH
 * / ACL_ERROR_MODEL_OUTPUT_NOT_MATCH for wrong buffers; ACL_ERROR_FAILURE when
 * an operator fails (the message names it). */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId,
                                           const aclmdlDataset *input,
                                           aclmdlDataset *output);
/* Queues one execution on `stream` (NULL: the current context's default
 * stream) and returns; aclrtSynchronizeStream waits for it and returns its
 * failure, if any. The model id and the datasets are checked now (errors as
 * aclmdlExecute); the buffers' addresses and sizes are read now, their
 * contents when the execution runs, so the memory must stay valid until then.
 * Dumps exactly as aclmdlExecute. Needs a current context. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId,
                                                const aclmdlDataset *input,
                                                aclmdlDataset *output,
                                                aclrtStream stream);

/* ---- Model description ---- */

/* A dynamic model (one with gears) describes its inputs with -1 in their
 * dynamic dimensions and sizes for its largest gear, plus one last input, the
 * gear input ACL_DYNAMIC_TENSOR_NAME (ACL_INT64, [1] for batch gears, [2] for
 * image size gears); its outputs have the largest gear's dims and sizes. */
/* The getters below need no aclInit; on a NULL or destroyed desc or an index
 * out of range they return 0 / NULL / ACL_FORMAT_UNDEFINED /
 * ACL_DT_UNDEFINED, or ACL_ERROR_INVALID_PARAM, and set the recent error. */
ACL_FUNC_VISIBILITY aclmdlDesc *aclmdlCreateDesc(void);
/* NULL is allowed; a second destroy of the same desc is
 * ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc);
/* Fills `modelDesc` with the inputs and outputs of a loaded model. */
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc *modelDesc,
                                           uint32_t modelId);

ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc,
                                                     size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc,
                                                      size_t index);
/* Valid while `modelDesc` lives. */
ACL_FUNC_VISIBILITY const char *aclmdlGetInputNameByIndex(
    const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY const char *aclmdlGetOutputNameByIndex(
    const aclmdlDesc *modelDesc, size_t index);

ACL_FUNC_VISIBILITY aclDataType
aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType
aclmdlGetOutputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc,
                                                   size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc,
                                                    size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc,
                                                size_t index,
                                                aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc,
                                                 size_t index,
                                                 aclmdlIODims *dims);
/* The input's dims as the model's user sees them: the same as
 * aclmdlGetInputDims. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc,
                                                  size_t index,
                                                  aclmdlIODims *dims);
/* The output's dims for the gear last set on the model described
 * (aclmdlSetDynamicBatchSize / aclmdlSetDynamicHWSize); before any, and for a
 * static model, aclmdlGetOutputDims's. ACL_ERROR_GE_EXEC_MODEL_ID_INVALID when
 * that model was unloaded. */
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc,
                                                    size_t index,
                                                    aclmdlIODims *dims);
/* The index of the input / output named `name`. ACL_ERROR_INVALID_PARAM for a
 * NULL argument or a name the model does not have. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(
    const aclmdlDesc *modelDesc, const char *name, size_t *index);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputIndexByName(
    const aclmdlDesc *modelDesc, const char *name, size_t *index);
/* The model's gears: batchCount / hwCount 0 for a model without batch / image
 * size gears. hw[i][0] is a height, hw[i][1] a width; `index` is reserved
 * (pass -1). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicBatch(const aclmdlDesc *modelDesc,
                                                   aclmdlBatch *batch);
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicHW(const aclmdlDesc *modelDesc,
                                                size_t index, aclmdlHW *hw);
/* A dims model's gears (convert --dynamic-dims): their count (0 for any other
 * model), and each gear as the dims of every input at it, one input after
 * another in one aclmdlIODims (name unused). `gearDims` has room for
 * `gearCount` entries; ACL_ERROR_INVALID_PARAM when that is fewer than the
 * model's gears or the model has none. `index` is reserved (pass -1). */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicGearCount(
    const aclmdlDesc *modelDesc, size_t index, size_t *gearCount);
ACL_FUNC_VISIBILITY aclError
aclmdlGetInputDynamicDims(const aclmdlDesc *modelDesc, size_t index,
                          aclmdlIODims *gearDims, size_t gearCount);
/* Selects the gear of the next executions with `dataset` as input: writes
 * the batch size (or height and width) into buffer `index`, the model's gear
 * input (its last input, named ACL_DYNAMIC_TENSOR_NAME: int64 [1] or [2]), and
 * records it for aclmdlGetCurOutputDims. Checked in this order:
 * ACL_ERROR_INVALID_PARAM for a NULL dataset, a 0 value, an index out of range
 * or a buffer without memory; ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID for a
 * buffer under 4 bytes per value; ACL_ERROR_GE_EXEC_MODEL_ID_INVALID for an
 * unknown model; ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID for a value that is
 * not one of the model's gears. An execution whose gear input is all zeros
 * (never set) runs the largest gear; one naming no gear fails with
 * ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID. Inputs and outputs sized for the
 * largest gear (aclmdlGetInputSizeByIndex) fit every gear. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicBatchSize(uint32_t modelId,
                                                       aclmdlDataset *dataset,
                                                       size_t index,
                                                       uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicHWSize(uint32_t modelId,
                                                    aclmdlDataset *dataset,
                                                    size_t index,
                                                    uint64_t height,
                                                    uint64_t width);
/* The same for a dims model: `dims` gives every input's dims, one input after
 * another (dimCount their sum), as aclmdlGetInputDynamicDims lists the gears;
 * the values at the inputs' -1s are written into the gear input. Beyond the
 * checks above, ACL_ERROR_INVALID_PARAM for a NULL `dims` and
 * ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID for dims whose count or fixed
 * dimensions differ from the model's inputs. */
ACL_FUNC_VISIBILITY aclError
aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset *dataset,
                          size_t index, const aclmdlIODims *dims);

/* ---- AIPP: image preprocessing in front of a model input ----
 * A model converted with --insert-op-conf preprocesses an input's images
 * (crop, color conversion, padding, (pixel - mean - min) * var_reci) on the
 * CPU, as the NPU's AIPP does. Static AIPP keeps the configuration in the
 * model (aclmdlGetFirstAippInfo reads it). Dynamic AIPP takes it per
 * execution: build it with aclmdlCreateAIPP and the aclmdlSetAIPP* calls,
 * then write it into the dataset with aclmdlSetInputAIPP (the buffer of the
 * input named ACL_DYNAMIC_AIPP_NAME) or aclmdlSetAIPPByInputIndex (the image
 * input's index). Resizing (aclmdlSetAIPPScfParams with the switch on) is not
 * supported. Values are checked as the SDK checks them:
 * ACL_ERROR_INVALID_PARAM names the parameter and its range. */

/* Parameters for `batchSize` images (1..127), NULL on a bad size. Free with
 * aclmdlDestroyAIPP. */
ACL_FUNC_VISIBILITY aclmdlAIPP *aclmdlCreateAIPP(uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyAIPP(const aclmdlAIPP *aippParmsSet);
/* Bytes of the dynamic AIPP input for `batchSize` images. */
ACL_FUNC_VISIBILITY aclError aclmdlGetAippDataSize(uint64_t batchSize,
                                                   size_t *size);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPInputFormat(
    aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat);
/* The color matrix in units of 1/256: out = clamp(round(M (in - inputBias) /
 * 256) + outputBias, 0, 255). */
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCscParams(
    aclmdlAIPP *aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
    int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
    int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
    int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
    uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
    uint8_t cscInputBiasR1, uint8_t cscInputBiasR2);
ACL_FUNC_VISIBILITY aclError
aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP *aippParmsSet,
                                                       int8_t axSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP *aippParmsSet,
                                                       int32_t srcImageSizeW,
                                                       int32_t srcImageSizeH);
/* Resizing: accepted with the switch off only (acldump does not resize). */
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPScfParams(
    aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
    int32_t scfInputSizeH, int32_t scfOutputSizeW, int32_t scfOutputSizeH,
    uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCropParams(
    aclmdlAIPP *aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
    int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH,
    uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPaddingParams(
    aclmdlAIPP *aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
    int32_t paddingSizeBottom, int32_t paddingSizeLeft,
    int32_t paddingSizeRight, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP *aippParmsSet,
                                                       int16_t dtcPixelMeanChn0,
                                                       int16_t dtcPixelMeanChn1,
                                                       int16_t dtcPixelMeanChn2,
                                                       int16_t dtcPixelMeanChn3,
                                                       uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMin(
    aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0, float dtcPixelMinChn1,
    float dtcPixelMinChn2, float dtcPixelMinChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError
aclmdlSetAIPPPixelVarReci(aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0,
                          float dtcPixelVarReciChn1, float dtcPixelVarReciChn2,
                          float dtcPixelVarReciChn3, uint64_t batchIndex);
/* Writes the parameters into dataset buffer `index`, the input named
 * ACL_DYNAMIC_AIPP_NAME; they are checked against the model's input first
 * (format, image size, crop and padding to the input's height and width). */
ACL_FUNC_VISIBILITY aclError aclmdlSetInputAIPP(uint32_t modelId,
                                                aclmdlDataset *dataset,
                                                size_t index,
                                                const aclmdlAIPP *aippParmsSet);
/* The same, given the index of the image input that dynamic AIPP feeds. */
ACL_FUNC_VISIBILITY aclError
aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset *dataset,
                          size_t index, const aclmdlAIPP *aippParmsSet);
/* Input `index`'s AIPP: none, static, dynamic (then `dynamicAttachedDataIndex`
 * is the parameter input's index, else ACL_INVALID_NODE_INDEX), or the
 * dynamic parameter input itself. */
ACL_FUNC_VISIBILITY aclError
aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType *type,
                  size_t *dynamicAttachedDataIndex);
/* A static AIPP input's configuration. ACL_ERROR_GE_AIPP_NOT_EXIST for an
 * input without AIPP, ACL_ERROR_NOT_STATIC_AIPP for dynamic AIPP. */
ACL_FUNC_VISIBILITY aclError aclmdlGetFirstAippInfo(uint32_t modelId,
                                                    size_t index,
                                                    aclAippInfo *aippInfo);

/* ---- Datasets: ordered lists of data buffers (not owned) ---- */

/* A new, empty dataset; free it with aclmdlDestroyDataset. */
ACL_FUNC_VISIBILITY aclmdlDataset *aclmdlCreateDataset(void);
/* Frees the dataset, not the buffers added to it. NULL is allowed; a second
 * destroy is ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset *dataset);
/* Appends `dataBuffer` (neither copied nor owned: it must outlive its use).
 * ACL_ERROR_INVALID_PARAM for a NULL or destroyed dataset or buffer. */
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset,
                                                    aclDataBuffer *dataBuffer);
/* The number of buffers; 0 for a NULL or destroyed dataset. */
ACL_FUNC_VISIBILITY size_t
aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset);
/* The buffer at `index` (not owned by the caller); NULL for a NULL or
 * destroyed dataset, and NULL with ACL_ERROR_INVALID_PARAM as the recent error
 * for an index out of range. */
ACL_FUNC_VISIBILITY aclDataBuffer *aclmdlGetDatasetBuffer(
    const aclmdlDataset *dataset, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_MDL_H_ */
