#pragma once
// Real CUDA kernels behind the runtime tests' codelets, so that the tests written once per device
// also run on a CUDA GPU. Built from cuda_test_kernels.cu where CMake found CUDA; elsewhere the
// launchers are never reached (no CUDA device exists) and throw if they are.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace conveyor::test::cuda {

/// True when `device` (TaskContext::device()) is a real CUDA device: the emulated devices ("emu:N")
/// also take the cuda implementation, but hand it host pointers.
inline bool real(std::string_view device) { return device.rfind("cuda:", 0) == 0; }

// Every launcher enqueues on `stream` (a cudaStream_t) and returns; buffers are device pointers to
// contiguous replicas (Buffer::ld == rows on devices).
void add_one(int* x, std::size_t n, void* stream);
void scale(int* x, std::size_t n, void* stream);
void scale(double* x, std::size_t n, void* stream);
void accumulate(const int* x, int* y, std::size_t n, void* stream);
void accumulate(const double* x, double* y, std::size_t n, void* stream);

/// The differential test's operation: out[e] = (rw ? 3 out[e] : 0) + salt + sum_j (j + 1)
/// in_j[e mod count_j], j < reads.
struct DiffOp {
  std::uint32_t* out;
  std::uint32_t count, read_write, salt, reads;
  const std::uint32_t* in[3];  // up to 3 inputs: the halo ops read a tile and its two neighbours
  std::uint32_t in_count[3];
};
void diff_op(const DiffOp& op, void* stream);

// Device memory of a test's own (data whose home is a GPU): cudaMalloc on device `ordinal`,
// cudaFree, and synchronous copies in and out.
void* device_alloc(int ordinal, std::size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_from_device(void* dst, const void* src, std::size_t bytes);

}  // namespace conveyor::test::cuda
