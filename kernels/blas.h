// Thread set-up of oneDNN (GEMM and convolution), shared by the kernels that
// use it.
#ifndef ACLDUMP_KERNELS_BLAS_H_
#define ACLDUMP_KERNELS_BLAS_H_

namespace acldump {

// Pins oneDNN's OpenMP to one thread (the executor is single-threaded and
// the dump writer needs the other core) unless ACLDUMP_BLAS_THREADS says
// otherwise.
// Idempotent and thread-safe.
void ConfigureBlasOnce();

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_BLAS_H_
