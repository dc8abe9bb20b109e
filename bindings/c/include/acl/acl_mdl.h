/*
 * acldump C ABI: models and model dump.
 *
 * Dump lifecycle (S1-S7): aclmdlInitDump -> aclmdlSetDump(cfg) -> load ->
 * execute -> aclmdlFinalizeDump, repeatable within a process with different
 * configs. A config applies to models loaded after aclmdlSetDump (S4); the
 * latest aclmdlSetDump before a load wins (S5); aclmdlFinalizeDump writes
 * everything queued and reports data that could not be written.
 */
#ifndef ACLDUMP_ACL_MDL_H_
#define ACLDUMP_ACL_MDL_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128

typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlDataset aclmdlDataset;

/* A fixed-size value type (SDK layout). */
typedef struct aclmdlIODims {
  char name[ACL_MAX_TENSOR_NAME_LEN];
  size_t dimCount;
  int64_t dims[ACL_MAX_DIM_CNT];
} aclmdlIODims;

/* ---- Dump ---- */

/* Starts a dump session. ACL_ERROR_UNINITIALIZE before aclInit,
 * ACL_ERROR_REPEAT_INITIALIZE when already started, ACL_ERROR_DUMP_ALREADY_RUN
 * while aclInit's config enables dump (S6). */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
/* Reads the dump config at `dumpCfgPath` (a JSON file with a "dump" section).
 * Needs aclmdlInitDump (else ACL_ERROR_DUMP_NOT_RUN). Bad files:
 * ACL_ERROR_INVALID_FILE / ACL_ERROR_PARSE_FILE; bad configs:
 * ACL_ERROR_INVALID_DUMP_CONFIG with the JSON path of the offending item in the
 * message. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
/* Ends the dump session: every queued dump file is written before it returns.
 * Needs aclmdlInitDump (else ACL_ERROR_DUMP_NOT_RUN). ACL_ERROR_WRITE_FILE when
 * files could not be written (the message says how many and which). */
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);

/* ---- Load / execute ---- */

/* Loads an .om model file (convert ONNX with `bazel run //tools:convert`). On
 * success writes the new id to *modelId. Its dump model name (S9) is the file
 * name without extension or the model's graph name. Errors:
 * ACL_ERROR_READ_MODEL_FAILURE (cannot read), ACL_ERROR_PARSE_MODEL (corrupt or
 * inconsistent), ACL_ERROR_MODEL_SIZE_INVALID (too large). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char *modelPath,
                                                uint32_t *modelId);
/* Loads a model from memory (copied; the caller keeps ownership of `model`).
 * Only the graph name matches dump_list model_name (S9). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void *model,
                                               size_t modelSize,
                                               uint32_t *modelId);
/* Unloads; ACL_ERROR_INVALID_MODEL_ID for an unknown id. An execution running
 * on another thread completes first. */
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);
/* Runs the model once. `input` holds one buffer per model input, `output` one
 * per output, each at least the tensor's byte size. Executions of one model are
 * serialised; different models run in parallel. ACL_ERROR_MODEL_INPUT_NOT_MATCH
 * / ACL_ERROR_MODEL_OUTPUT_NOT_MATCH for wrong buffers; ACL_ERROR_FAILURE when
 * an operator fails (the message names it). */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId,
                                           const aclmdlDataset *input,
                                           aclmdlDataset *output);

/* ---- Model description ---- */

ACL_FUNC_VISIBILITY aclmdlDesc *aclmdlCreateDesc(void);
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

/* ---- Datasets: ordered lists of data buffers (not owned) ---- */

ACL_FUNC_VISIBILITY aclmdlDataset *aclmdlCreateDataset(void);
/* Frees the dataset, not the buffers added to it. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset *dataset);
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset,
                                                    aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY size_t
aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset);
ACL_FUNC_VISIBILITY aclDataBuffer *aclmdlGetDatasetBuffer(
    const aclmdlDataset *dataset, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_MDL_H_ */
