#include "kernels/dnnl_engine.h"

namespace acldump {

dnnl::engine& DnnlEngine() {
  static dnnl::engine* const engine =
      new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& DnnlStream() {
  thread_local dnnl::stream stream(DnnlEngine());
  return stream;
}

}  // namespace acldump
