#pragma once
// Host-side launchers of the backend's kernels. The kernels live in two .cu files compiled by nvcc;
// the rest of the backend is plain C++ and sees only these declarations. Each launcher returns the
// launch status (cudaGetLastError) for the caller to check; none synchronises.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace conveyor::backend::cuda {

// --- STREAM (stream_kernels.cu) ---

/// How a STREAM kernel is launched. Standard: one element per thread, as plain as STREAM itself.
/// Vectorised: double2 loads and stores in a grid-stride loop over a grid that fills the device
/// once.
struct StreamLaunch {
  bool vectorised = false;
  int threads = 1024;  ///< per block
  int blocks = 0;      ///< grid-stride kernels (vectorised ones, and Dot) only
  cudaStream_t stream = nullptr;
};

/// Blocks of `threads` threads that fit on the whole device at once for the grid-stride kernels.
int stream_resident_blocks(int sm_count, int threads);

cudaError_t launch_stream_init(double* a, double* b, double* c, double va, double vb, double vc,
                               std::size_t n, const StreamLaunch& launch);
cudaError_t launch_copy(const double* a, double* c, std::size_t n, const StreamLaunch& launch);
cudaError_t launch_scale(double* b, const double* c, double s, std::size_t n,
                         const StreamLaunch& launch);
cudaError_t launch_add(const double* a, const double* b, double* c, std::size_t n,
                       const StreamLaunch& launch);
cudaError_t launch_triad(double* a, const double* b, const double* c, double s, std::size_t n,
                         const StreamLaunch& launch);
/// Writes sum(a[i] * b[i]) to *result (device memory) through `partial` (launch.blocks doubles), in
/// two passes so that the sum is the same from run to run.
cudaError_t launch_dot(const double* a, const double* b, std::size_t n, double* partial,
                       double* result, const StreamLaunch& launch);

// --- probes (probe_kernels.cu) ---

/// A kernel with no body: the dispatch cost and nothing else.
cudaError_t launch_empty(cudaStream_t stream);
/// Adds 1 to each of `count` floats in place: one read and one write of every element.
cudaError_t launch_touch(float* data, std::size_t count, int max_blocks, cudaStream_t stream);
/// Copies `bytes` from `src` to `dst` with device threads (for mapped host memory, which no DMA
/// copy touches).
cudaError_t launch_copy_bytes(void* dst, const void* src, std::size_t bytes, int max_blocks,
                              cudaStream_t stream);
/// MD5 of `count` independent 64-byte messages, one thread each; 16-byte digests.
cudaError_t launch_md5(const std::uint8_t* messages, std::uint8_t* digests, std::size_t count,
                       int max_blocks, cudaStream_t stream);

}  // namespace conveyor::backend::cuda
