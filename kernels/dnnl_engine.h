// The oneDNN CPU engine and a per-thread stream, shared by the kernels that use
// oneDNN.
#ifndef ACLDUMP_KERNELS_DNNL_ENGINE_H_
#define ACLDUMP_KERNELS_DNNL_ENGINE_H_

#include <oneapi/dnnl/dnnl.hpp>

namespace acldump {

dnnl::engine& DnnlEngine();
dnnl::stream& DnnlStream();

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_DNNL_ENGINE_H_
