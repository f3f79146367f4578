// The QR codelets' OpenCL and CUDA implementations: decoding a task's buffers (in the order of its
// accesses, qr_graph.hpp) into the device kernels' arguments. Device replicas are contiguous, so
// each buffer's ld is its rows; a T tile has ib rows, so the ragged last column needs no extra.
#include "qr/qr_device_codelets.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "common/narrow.hpp"
#include "common/opencl_blas.hpp"
#include "conveyor/error.hpp"
#include "qr/cuda/qr_cuda_kernels.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"

namespace conveyor::apps::qr {
namespace {

using common::as_int;

// The program of kernel `index` of kOpenclKernels, for T.
template <typename T>
OpenclProgram program(int index) {
  OpenclProgram p;
  p.source = std::string(opencl_qr_source());
  p.kernel = kOpenclKernels[index];
  p.options = opencl_qr_options(std::is_same_v<T, double>);
  return p;
}

// The updates, Q^T (the factorisation's) or Q (forming Q), on buffers V (r), T (r), C (rw) for
// gemqrt and V (r), T (r), A (rw), B (rw) for tpmqrt.
template <typename T>
auto gemqrt_opencl(bool transpose) {
  return [transpose](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &m = t.buffer(2);
    opencl_gemqrt_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), transpose, as_int(m.rows),
                          as_int(m.cols), as_int(std::min(v.rows, v.cols)), as_int(f.rows),
                          t.opencl_mem(0), as_int(v.ld), t.opencl_mem(1), as_int(f.ld),
                          t.opencl_mem(2), as_int(m.ld));
  };
}
template <typename T>
auto tpmqrt_opencl(bool transpose) {
  return [transpose](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &a = t.buffer(2), &b = t.buffer(3);
    opencl_tpmqrt_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), transpose, as_int(b.rows),
                          as_int(b.cols), as_int(v.cols), as_int(f.rows), t.opencl_mem(0),
                          as_int(v.ld), t.opencl_mem(1), as_int(f.ld), t.opencl_mem(2),
                          as_int(a.ld), t.opencl_mem(3), as_int(b.ld));
  };
}
template <typename T>
auto gemqrt_cuda(bool transpose) {
  return [transpose](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &m = t.buffer(2);
    cuda_gemqrt<T>(t.cuda_stream(), transpose, as_int(m.rows), as_int(m.cols),
                   as_int(std::min(v.rows, v.cols)), as_int(f.rows), t.data<T>(0), as_int(v.ld),
                   t.data<T>(1), as_int(f.ld), t.data<T>(2), as_int(m.ld));
  };
}
template <typename T>
auto tpmqrt_cuda(bool transpose) {
  return [transpose](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &a = t.buffer(2), &b = t.buffer(3);
    cuda_tpmqrt<T>(t.cuda_stream(), transpose, as_int(b.rows), as_int(b.cols), as_int(v.cols),
                   as_int(f.rows), t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld),
                   t.data<T>(2), as_int(a.ld), t.data<T>(3), as_int(b.ld));
  };
}

template <typename T>
void add_opencl(QrCodelets& c) {
  c.geqrt.opencl(program<T>(0), [](const TaskContext& t) {
    const Buffer &a = t.buffer(0), &v = t.buffer(1), &f = t.buffer(2);
    opencl_geqrt_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), as_int(a.rows),
                         as_int(a.cols), as_int(f.rows), t.opencl_mem(0), as_int(a.ld),
                         t.opencl_mem(2), as_int(f.ld), t.opencl_mem(1), as_int(v.ld));
  });
  c.gemqrt.opencl(program<T>(1), gemqrt_opencl<T>(true));
  c.tpqrt.opencl(program<T>(2), [](const TaskContext& t) {
    const Buffer &r = t.buffer(0), &b = t.buffer(1), &f = t.buffer(2);
    opencl_tpqrt_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), as_int(b.rows),
                         as_int(b.cols), as_int(f.rows), t.opencl_mem(0), as_int(r.ld),
                         t.opencl_mem(1), as_int(b.ld), t.opencl_mem(2), as_int(f.ld));
  });
  c.tpmqrt.opencl(program<T>(3), tpmqrt_opencl<T>(true));
}

template <typename T>
void add_cuda(QrCodelets& c) {
  c.geqrt.cuda([](const TaskContext& t) {
    const Buffer &a = t.buffer(0), &v = t.buffer(1), &f = t.buffer(2);
    cuda_geqrt<T>(t.cuda_stream(), as_int(a.rows), as_int(a.cols), as_int(f.rows), t.data<T>(0),
                  as_int(a.ld), t.data<T>(2), as_int(f.ld), t.data<T>(1), as_int(v.ld));
  });
  c.gemqrt.cuda(gemqrt_cuda<T>(true));
  c.tpqrt.cuda([](const TaskContext& t) {
    const Buffer &r = t.buffer(0), &b = t.buffer(1), &f = t.buffer(2);
    cuda_tpqrt<T>(t.cuda_stream(), as_int(b.rows), as_int(b.cols), as_int(f.rows), t.data<T>(0),
                  as_int(r.ld), t.data<T>(1), as_int(b.ld), t.data<T>(2), as_int(f.ld));
  });
  c.tpmqrt.cuda(tpmqrt_cuda<T>(true));
}

template <typename T>
void add_q_forming(QFormingCodelets& c) {
  if (opencl_kernels_available()) {
    c.apply_geqrt.opencl(program<T>(1), gemqrt_opencl<T>(false));
    c.apply_tpqrt.opencl(program<T>(3), tpmqrt_opencl<T>(false));
  }
  // Only real CUDA devices take them: no simulated platform models these codelets.
  if (cuda_kernels_available()) {
    c.apply_geqrt.cuda(gemqrt_cuda<T>(false));
    c.apply_tpqrt.cuda(tpmqrt_cuda<T>(false));
  }
}

}  // namespace

void add_device_implementations(QFormingCodelets& c) {
  if (opencl_kernels_available()) common::opencl_blas();  // a bad CONVEYOR_OPENCL_BLAS fails here
  c.precision == Precision::Single ? add_q_forming<float>(c) : add_q_forming<double>(c);
}

void add_device_implementations(QrCodelets& c) {
  const bool single = c.precision == Precision::Single;
  if (opencl_kernels_available()) {
    common::opencl_blas();  // a bad CONVEYOR_OPENCL_BLAS fails here, before any task runs
    single ? add_opencl<float>(c) : add_opencl<double>(c);
  }
  if (cuda_kernels_available()) {
    single ? add_cuda<float>(c) : add_cuda<double>(c);
    return;
  }
  // Without the CUDA toolkit there is no CUDA backend, so every CUDA-kind device is a simulated
  // platform's (docs/simulation.md): it places only codelets that have a CUDA implementation, and
  // runs their CPU implementation when it runs kernels at all. This stand-in makes a build without
  // CUDA simulate the same placements as one with it.
  for (Codelet* codelet : {&c.geqrt, &c.gemqrt, &c.tpqrt, &c.tpmqrt})
    codelet->cuda([](const TaskContext&) {
      throw Error("qr: this build has no CUDA kernels (only simulated devices take them)");
    });
}

}  // namespace conveyor::apps::qr
