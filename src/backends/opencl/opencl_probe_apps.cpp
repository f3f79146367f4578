// The application pair of seed 004 on an OpenCL device: a tiled single-precision matrix product and
// MD5 over independent 64-byte messages. Both are timed on the host clock and include moving the
// inputs to the device and the results back.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "conveyor/units.hpp"
#include "opencl_probe_target.hpp"

namespace conveyor::backend::opencl {
namespace {

// C = A * B, row-major n x n. Each work-group computes a TILE x TILE block of C, staging the
// matching tiles of A and B in local memory; tiles hanging over the edge are padded with zeros.
constexpr const char* kMatmulSource = R"CLC(
__kernel void matmul(__global const float* restrict a, __global const float* restrict b,
                     __global float* restrict c, int n) {
  __local float tile_a[TILE][TILE];
  __local float tile_b[TILE][TILE];
  const int col = get_global_id(0), row = get_global_id(1);
  const int lc = get_local_id(0), lr = get_local_id(1);
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    tile_a[lr][lc] = (row < n && t + lc < n) ? a[(size_t)row * n + t + lc] : 0.0f;
    tile_b[lr][lc] = (t + lr < n && col < n) ? b[(size_t)(t + lr) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) acc += tile_a[lr][k] * tile_b[k][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < n && col < n) c[(size_t)row * n + col] = acc;
}
)CLC";

// MD5 (RFC 1321) of one 64-byte message per work-item: the message is the first 512-bit block, the
// second is the padding (0x80, zeros, bit length 512 as a little-endian 64-bit number). MD5 words
// are little-endian; LE() makes that so on big-endian devices too.
constexpr const char* kMd5Body = R"CLC(
#ifdef __ENDIAN_LITTLE__
#define LE(x) (x)
#else
#define LE(x) as_uint(as_uchar4(x).wzyx)
#endif

__constant uint kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                              5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                              4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                              6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

void md5_block(uint* state, const uint* w) {
  uint a = state[0], b = state[1], c = state[2], d = state[3];
  for (int i = 0; i < 64; ++i) {
    uint f, g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    uint next = d;
    d = c;
    c = b;
    b = b + rotate(a + f + kSine[i] + w[g], kShift[i]);
    a = next;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
}

__kernel void md5_64(__global const uint* restrict messages, __global uint* restrict digests,
                     ulong count) {
  size_t id = get_global_id(0);
  if (id >= count) return;
  uint state[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  uint w[16];
  for (int i = 0; i < 16; ++i) w[i] = LE(messages[id * 16 + i]);
  md5_block(state, w);
  for (int i = 0; i < 16; ++i) w[i] = 0;
  w[0] = 0x80u;
  w[14] = 512u;
  md5_block(state, w);
  for (int i = 0; i < 4; ++i) digests[id * 4 + i] = LE(state[i]);
}
)CLC";

// The MD5 sine table, K[i] = floor(2^32 * |sin(i + 1)|), computed rather than transcribed.
std::string md5_source() {
  std::string table = "__constant uint kSine[64] = {";
  for (int i = 0; i < 64; ++i)
    table += fmt::format(
        "{}0x{:08x}u", i ? ", " : "",
        static_cast<std::uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0)));
  return table + "};\n" + kMd5Body;
}

constexpr std::size_t kMd5Local = 64;
constexpr std::size_t kMaxTile = 16;

std::size_t kernel_limit(cl_kernel kernel, cl_device_id device) {
  std::size_t limit = 0;
  CONVEYOR_CL_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof(limit), &limit, nullptr));
  return limit;
}

}  // namespace

cl_kernel OpenCLProbeTarget::matmul_kernel() {
  if (matmul_) return matmul_.get();
  // The largest tile whose work-group the device, and then the compiled kernel, accepts.
  for (std::size_t tile = kMaxTile; tile >= 1; tile /= 2) {
    if (tile * tile > facts().max_work_group ||
        2 * tile * tile * sizeof(float) > facts().local_mem_bytes)
      continue;
    Kernel kernel = context_->kernel(kMatmulSource, "matmul", fmt::format("-DTILE={}", tile));
    if (kernel_limit(kernel.get(), facts().device) >= tile * tile || tile == 1) {
      matmul_ = std::move(kernel);
      tile_ = tile;
      break;
    }
  }
  return matmul_.get();
}

double OpenCLProbeTarget::matmul(int n, const float* a, const float* b, float* c) {
  if (n <= 0) throw UsageError(fmt::format("matmul: n must be positive, not {}", n));
  std::size_t bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * sizeof(float);
  check_bytes(bytes, "matmul matrix");
  cl_kernel kernel = matmul_kernel();
  for (DeviceBlock* m : {&matrix_a_, &matrix_b_, &matrix_c_})
    m->ensure(context_->get(), queue_.get(), bytes);
  set_arg(kernel, 0, matrix_a_.get());
  set_arg(kernel, 1, matrix_b_.get());
  set_arg(kernel, 2, matrix_c_.get());
  set_arg(kernel, 3, static_cast<cl_int>(n));
  const std::size_t global[2] = {round_up(n, tile_), round_up(n, tile_)};
  const std::size_t local[2] = {tile_, tile_};
  return core::seconds_of([&] {
    cl_command_queue q = queue_.get();
    CONVEYOR_CL_CHECK(
        clEnqueueWriteBuffer(q, matrix_a_.get(), CL_FALSE, 0, bytes, a, 0, nullptr, nullptr));
    CONVEYOR_CL_CHECK(
        clEnqueueWriteBuffer(q, matrix_b_.get(), CL_FALSE, 0, bytes, b, 0, nullptr, nullptr));
    CONVEYOR_CL_CHECK(
        clEnqueueNDRangeKernel(q, kernel, 2, nullptr, global, local, 0, nullptr, nullptr));
    CONVEYOR_CL_CHECK(
        clEnqueueReadBuffer(q, matrix_c_.get(), CL_TRUE, 0, bytes, c, 0, nullptr, nullptr));
  });
}

cl_kernel OpenCLProbeTarget::md5_kernel() {
  if (!md5_) md5_ = context_->kernel(md5_source(), "md5_64");
  return md5_.get();
}

double OpenCLProbeTarget::md5(std::size_t count, const std::uint8_t* messages,
                              std::uint8_t* digests) {
  if (count == 0) throw UsageError("md5: at least one message is needed");
  constexpr std::size_t kMessage = 64, kDigest = 16;
  if (count > facts().max_alloc_bytes / kMessage)
    throw UsageError(
        fmt::format("md5: {} messages of 64 bytes do not fit one allocation on {} (at "
                    "most {})",
                    count, facts().id, format_bytes(facts().max_alloc_bytes)));
  cl_kernel kernel = md5_kernel();
  std::size_t local = std::min(kMd5Local, kernel_limit(kernel, facts().device));
  messages_.ensure(context_->get(), queue_.get(), count * kMessage);
  digests_.ensure(context_->get(), queue_.get(), count * kDigest);
  set_arg(kernel, 0, messages_.get());
  set_arg(kernel, 1, digests_.get());
  set_arg(kernel, 2, static_cast<cl_ulong>(count));
  return core::seconds_of([&] {
    cl_command_queue q = queue_.get();
    CONVEYOR_CL_CHECK(clEnqueueWriteBuffer(q, messages_.get(), CL_FALSE, 0, count * kMessage,
                                           messages, 0, nullptr, nullptr));
    launch_1d(q, kernel, count, local);
    CONVEYOR_CL_CHECK(clEnqueueReadBuffer(q, digests_.get(), CL_TRUE, 0, count * kDigest, digests,
                                          0, nullptr, nullptr));
  });
}

}  // namespace conveyor::backend::opencl
