/*
 * acldump C ABI: single-operator execution (dumped when the dump config sets
 * "dump_op_switch": "on"). Tensor descriptions are in acl_base.h.
 */
#ifndef ACLDUMP_ACL_OP_H_
#define ACLDUMP_ACL_OP_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopAttr aclopAttr;

/* Operator attributes (ONNX names, e.g. "strides" for Conv). */
ACL_FUNC_VISIBILITY aclopAttr *aclopCreateAttr(void);
/* NULL is allowed; a second destroy of the same attr is ignored. */
ACL_FUNC_VISIBILITY void aclopDestroyAttr(const aclopAttr *attr);

/* Sets attribute `attrName` (copied with its value; setting a name again
 * replaces the value). ACL_ERROR_INVALID_PARAM for a NULL or destroyed attr, a
 * NULL or empty name, a NULL string value, or (lists) numValues < 0 or NULL
 * values with numValues > 0. */
ACL_FUNC_VISIBILITY aclError aclopSetAttrBool(aclopAttr *attr,
                                              const char *attrName,
                                              uint8_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrInt(aclopAttr *attr,
                                             const char *attrName,
                                             int64_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrFloat(aclopAttr *attr,
                                               const char *attrName,
                                               float attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrString(aclopAttr *attr,
                                                const char *attrName,
                                                const char *attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListInt(aclopAttr *attr,
                                                 const char *attrName,
                                                 int numValues,
                                                 const int64_t *values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListFloat(aclopAttr *attr,
                                                   const char *attrName,
                                                   int numValues,
                                                   const float *values);

/* Runs one operator (ONNX op type, e.g. "Add", "Conv") synchronously on the
 * host. inputDesc and inputs have numInputs entries (an absent optional input:
 * NULL desc and NULL buffer); outputDesc must describe exactly what the op
 * produces (ACL_ERROR_OP_OUTPUT_NOT_MATCH otherwise). attr may be NULL; stream
 * is ignored (the op runs before the call returns). Needs aclInit. Errors:
 * ACL_ERROR_OP_NOT_FOUND, ACL_ERROR_OP_INPUT_NOT_MATCH,
 * ACL_ERROR_OP_ATTR_NOT_MATCH, ACL_ERROR_OP_OUTPUT_NOT_MATCH, ACL_ERROR_FAILURE
 * (the kernel failed; the message names the op and the reason). */
ACL_FUNC_VISIBILITY aclError aclopExecuteV2(
    const char *opType, int numInputs, aclTensorDesc *inputDesc[],
    aclDataBuffer *inputs[], int numOutputs, aclTensorDesc *outputDesc[],
    aclDataBuffer *outputs[], aclopAttr *attr, aclrtStream stream);

/* Converts srcBuffer (described by srcDesc) to dstDesc's data type into
 * dstBuffer: the single operator Cast, run as aclopExecuteV2 runs it. Shapes
 * must be equal. A float to integer conversion rounds toward zero whatever
 * truncate says (ONNX Cast's rule; the device's operator rounds when truncate
 * is 0). stream is ignored. Needs aclInit. */
ACL_FUNC_VISIBILITY aclError aclopCast(const aclTensorDesc *srcDesc,
                                       const aclDataBuffer *srcBuffer,
                                       const aclTensorDesc *dstDesc,
                                       aclDataBuffer *dstBuffer,
                                       uint8_t truncate, aclrtStream stream);

/* The folder of single-operator models (.om files) the device's compiler
 * wrote. acldump runs every operator from its own kernels and loads none: the
 * call checks that modelDir is a readable folder. Once per process, as on the
 * device (ACL_ERROR_REPEAT_INITIALIZE after a successful call). */
ACL_FUNC_VISIBILITY aclError aclopSetModelDir(const char *modelDir);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_OP_H_ */
