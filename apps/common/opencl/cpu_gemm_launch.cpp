// Enqueues the CPU devices' gemm, and either path of common::gemm (built when CMake found OpenCL).
#include <limits>
#include <string>

#include "common/opencl/gemm.hpp"
#include "common/opencl/opencl_kernel_cache.hpp"
#include "common/opencl_blas.hpp"
#include "common/opencl_cpu_gemm.hpp"

namespace conveyor::apps::common {
namespace {

template <typename T>
void set_args(const OpenclCalls& cl, cl_kernel kernel, bool trans_a, bool trans_b, int m, int n,
              int k, double alpha, const ClOperand& a, const ClOperand& b, double beta,
              const ClOperand& c) {
  cl_uint i = 0;
  auto offset = [&](const ClOperand& x) {
    if (x.off > std::size_t(std::numeric_limits<cl_int>::max()))
      throw Error(std::string(cl.who) + ": gemm offset too large");
    cl.arg(kernel, i++, x.mem);
    cl.arg(kernel, i++, cl_int(x.off));
  };
  cl.arg(kernel, i++, cl_int{m});
  cl.arg(kernel, i++, cl_int{n});
  cl.arg(kernel, i++, cl_int{k});
  cl.arg(kernel, i++, T(alpha));
  offset(a);
  cl.arg(kernel, i++, cl_int{a.ld});
  offset(b);
  if (trans_a) {
    cl.arg(kernel, i++, cl_int{b.ld});
  } else {  // B(p, j) = b[p bsp + j bsj]
    cl.arg(kernel, i++, cl_int{trans_b ? b.ld : 1});
    cl.arg(kernel, i++, cl_int{trans_b ? 1 : b.ld});
  }
  cl.arg(kernel, i++, T(beta));
  offset(c);
  cl.arg(kernel, i++, cl_int{c.ld});
}

}  // namespace

void cpu_gemm(const OpenclCalls& cl, cl_command_queue queue, cl_kernel sibling,
              std::size_t elem_size, bool trans_a, bool trans_b, int m, int n, int k, double alpha,
              ClOperand a, ClOperand b, double beta, ClOperand c) {
  if (m < 0 || n < 0 || k < 0 || (elem_size != sizeof(float) && elem_size != sizeof(double)))
    throw Error(std::string(cl.who) + ": bad gemm arguments");
  if (trans_a && trans_b) throw Error(std::string(cl.who) + ": the CPU gemm has no A^T B^T form");
  if (m == 0 || n == 0) return;
  OpenclKernelCache& cache = opencl_kernel_cache();
  cl_kernel kernel = cache.kernel(cl, sibling, trans_a ? "cpu_gemm_tn" : "cpu_gemm_n");
  if (elem_size == sizeof(float))
    set_args<float>(cl, kernel, trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
  else
    set_args<double>(cl, kernel, trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
  // The blocks as the kernel cuts them (cpu_gemm_source.cpp) for the device's vector width: rows of
  // two vectors (cpu_gemm_n) or of 4 (cpu_gemm_tn); strips of 48 columns. Any range is correct;
  // this one gives each work-item one block. Work-groups of one work-item: as fast as groups of 4
  // or 8 on PoCL (docs/results/clblast.md), and a fixed size, so that PoCL compiles one variant of
  // the kernel (it compiles one per work-group size), in the untimed warm-up, whatever the shape.
  const int rows = trans_a ? 4 : 2 * cache.native_width(cl, queue, elem_size), cols = 48;
  std::size_t global[2] = {std::size_t((m + rows - 1) / rows), std::size_t((n + cols - 1) / cols)};
  std::size_t local[2] = {1, 1};
  cl.check(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global, local, 0, nullptr, nullptr),
           "clEnqueueNDRangeKernel");
}

void gemm(GemmPath path, const OpenclCalls& cl, cl_command_queue queue, cl_kernel sibling,
          std::size_t elem_size, bool trans_a, bool trans_b, int m, int n, int k, double alpha,
          ClOperand a, ClOperand b, double beta, ClOperand c) {
  if (path == GemmPath::Cpu)
    cpu_gemm(cl, queue, sibling, elem_size, trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
  else
    clblast_gemm_enqueue(cl.who, queue, elem_size, trans_a, trans_b, m, n, k, alpha, a.mem, a.off,
                         a.ld, b.mem, b.off, b.ld, beta, c.mem, c.off, c.ld);
}

void opencl_cpu_gemm_enqueue(void* queue, void* kernel, std::size_t elem_size, bool trans_a,
                             bool trans_b, int m, int n, int k, double alpha, void* a,
                             std::size_t a_off, int lda, void* b, std::size_t b_off, int ldb,
                             double beta, void* c, std::size_t c_off, int ldc) {
  constexpr OpenclCalls kCl{"OpenCL gemm"};
  cpu_gemm(kCl, static_cast<cl_command_queue>(queue), static_cast<cl_kernel>(kernel), elem_size,
           trans_a, trans_b, m, n, k, alpha, {static_cast<cl_mem>(a), a_off, lda},
           {static_cast<cl_mem>(b), b_off, ldb}, beta, {static_cast<cl_mem>(c), c_off, ldc});
}

}  // namespace conveyor::apps::common
