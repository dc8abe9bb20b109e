#include "kernels/blas.h"

#include <omp.h>

#include <cstdlib>
#include <mutex>

namespace acldump {

void ConfigureBlasOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    int threads = 1;
    if (const char* env = std::getenv("ACLDUMP_BLAS_THREADS")) {
      const int parsed = std::atoi(env);
      if (parsed > 0 && parsed <= 256) threads = parsed;
    }
    // oneDNN (Debian's build) runs on OpenMP.
    omp_set_num_threads(threads);
  });
}

}  // namespace acldump
