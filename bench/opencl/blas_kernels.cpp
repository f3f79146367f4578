// The apps' OpenCL tile kernels side by side: each BLAS-shaped kernel through the project's own
// OpenCL kernel and through CLBlast (common/opencl_blas.hpp), on the same device, tile and data,
// without the runtime: enqueue, clFinish, time. The figures choose each kernel's default
// (kClblastGemmByDefault, kClblastSyrkByDefault, kClblastTrsmByDefault, kClblastUpdatesByDefault;
// docs/results/clblast.md). QR's panels (geqrt, tpqrt) are blocked by ib either way: the choice
// is that of the updates of the columns right of each panel.
//
//   bench_opencl_blas_kernels [--tile 256] [--ib 32] [--repeat 5] [--precision d] [--device 0]
//
// One line per kernel and path: the median and fastest time of REPEAT runs (after one untimed run
// that builds the programs) and the median's GFLOP/s (LAPACK's flop counts).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/median.hpp"
#include "common/opencl_blas.hpp"
#include "common/precision.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"

namespace {

namespace common = conveyor::apps::common;
namespace cholesky = conveyor::apps::cholesky;
namespace qr = conveyor::apps::qr;

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "bench_opencl_blas_kernels: %s failed with error %d\n", what, status);
    std::exit(1);
  }
}

struct Device {
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;

  explicit Device(int index) {
    cl_uint platforms = 0;
    check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
    std::vector<cl_platform_id> ps(platforms);
    check(clGetPlatformIDs(platforms, ps.data(), nullptr), "clGetPlatformIDs");
    std::vector<cl_device_id> all;
    for (cl_platform_id p : ps) {
      cl_uint n = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) continue;
      std::vector<cl_device_id> ds(n);
      check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds.data(), nullptr), "clGetDeviceIDs");
      all.insert(all.end(), ds.begin(), ds.end());
    }
    if (index < 0 || index >= static_cast<int>(all.size())) {
      std::fprintf(stderr, "bench_opencl_blas_kernels: no OpenCL device %d\n", index);
      std::exit(2);
    }
    id = all[index];
    cl_int status = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    queue = clCreateCommandQueue(context, id, 0, &status);
    check(status, "clCreateCommandQueue");
  }
  std::string name() const {
    char text[256] = {};
    clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof text - 1, text, nullptr);
    return text;
  }
  cl_kernel kernel(std::string_view source, const std::string& options, const char* name) const {
    const char* text = source.data();
    std::size_t length = source.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &id, options.c_str(), nullptr, nullptr), "clBuildProgram");
    cl_kernel k = clCreateKernel(program, name, &status);
    check(status, "clCreateKernel");
    clReleaseProgram(program);  // the kernel keeps it
    return k;
  }
  template <typename T>
  cl_mem buffer(const std::vector<T>& host) const {
    cl_int status = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              host.size() * sizeof(T), const_cast<T*>(host.data()), &status);
    check(status, "clCreateBuffer");
    return m;
  }
};

struct Options {
  int tile = 256, ib = 32, repeat = 5, device = 0;
  std::string precision = "d";
};

// Times `enqueue` (the kernel's work on the queue) under each OpenCL BLAS choice.
void compare(const Device& dev, const Options& o, const char* name, double flops,
             const std::function<void()>& enqueue) {
  for (common::OpenclBlas choice : {common::OpenclBlas::Own, common::OpenclBlas::Clblast}) {
    if (choice == common::OpenclBlas::Clblast && !common::clblast_available()) continue;
    common::set_opencl_blas(choice);
    enqueue();  // untimed: builds the programs (CLBlast compiles its kernels on first use)
    check(clFinish(dev.queue), "clFinish");
    std::vector<double> seconds;
    for (int r = 0; r < o.repeat; ++r) {
      auto start = std::chrono::steady_clock::now();
      enqueue();
      check(clFinish(dev.queue), "clFinish");
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double med = common::median(seconds);
    std::printf("%-7s %-8s tile %4d ib %3d %s  median %8.3f ms  best %8.3f ms  %7.2f GFLOP/s\n",
                name, choice == common::OpenclBlas::Own ? "own" : "clblast", o.tile, o.ib,
                o.precision.c_str(), med * 1e3,
                *std::min_element(seconds.begin(), seconds.end()) * 1e3, flops / med * 1e-9);
  }
  common::set_opencl_blas(common::OpenclBlas::Auto);
}

template <typename T>
void run(const Device& dev, const Options& o) {
  const bool dp = std::is_same_v<T, double>;
  const int nb = o.tile, ib = std::min(o.ib, nb);
  const std::size_t tile = std::size_t(nb) * nb;
  std::mt19937 rng(7);
  std::uniform_real_distribution<T> dist(-1, 1);
  auto random = [&](std::size_t count) {
    std::vector<T> v(count);
    for (T& x : v) x = dist(rng);
    return v;
  };
  auto mem = [](cl_mem m) { return static_cast<void*>(m); };

  // Cholesky's gemm: C <- C - A B^T on tiles.
  {
    cl_kernel k = dev.kernel(cholesky::opencl_gemm_source(), cholesky::opencl_gemm_options(dp),
                             cholesky::kOpenclGemmKernel);
    cl_mem a = dev.buffer(random(tile)), b = dev.buffer(random(tile)), c = dev.buffer(random(tile));
    compare(dev, o, "gemm", 2.0 * nb * nb * nb, [&] {
      cholesky::opencl_gemm_enqueue(dev.queue, k, sizeof(T), nb, nb, nb, mem(a), nb, mem(b), nb,
                                    mem(c), nb);
    });
    for (cl_mem m : {a, b, c}) clReleaseMemObject(m);
    clReleaseKernel(k);
  }
  // Cholesky's syrk (S <- S - A A^T, lower) and trsm (B <- B L^-T, L with a dominant diagonal so
  // that repeated solves stay finite).
  {
    const std::string source(cholesky::opencl_gemm_source());
    const std::string options = cholesky::opencl_gemm_options(dp);
    cl_kernel syrk = dev.kernel(source, options, cholesky::kOpenclSyrkKernel);
    cl_kernel trsm = dev.kernel(source, options, cholesky::kOpenclTrsmKernel);
    std::vector<T> lower = random(tile);
    for (int j = 0; j < nb; ++j) lower[std::size_t(j) * nb + j] = T(nb);
    cl_mem a = dev.buffer(random(tile)), s = dev.buffer(random(tile)), l = dev.buffer(lower);
    cl_mem b = dev.buffer(random(tile));
    compare(dev, o, "syrk", double(nb) * nb * nb, [&] {
      cholesky::opencl_syrk_enqueue(dev.queue, syrk, sizeof(T), nb, nb, mem(a), nb, mem(s), nb);
    });
    compare(dev, o, "trsm", double(nb) * nb * nb, [&] {
      cholesky::opencl_trsm_enqueue(dev.queue, trsm, sizeof(T), nb, nb, mem(l), nb, mem(b), nb);
    });
    for (cl_mem m : {a, s, l, b}) clReleaseMemObject(m);
    for (cl_kernel k : {syrk, trsm}) clReleaseKernel(k);
  }

  // QR's updates with the reflectors of a real geqrt / tpqrt (the own panel kernels), so that Q
  // is orthogonal and repeated updates keep their size.
  const std::string source(qr::opencl_qr_source()), options = qr::opencl_qr_options(dp);
  cl_kernel geqrt = dev.kernel(source, options, "qr_geqrt");
  cl_kernel tpqrt = dev.kernel(source, options, "qr_tpqrt");
  cl_kernel gemqrt = dev.kernel(source, options, "qr_gemqrt");
  cl_kernel tpmqrt = dev.kernel(source, options, "qr_tpmqrt");
  cl_mem a = dev.buffer(random(tile)), v = dev.buffer(random(tile));
  cl_mem t = dev.buffer(std::vector<T>(std::size_t(ib) * nb));
  qr::opencl_geqrt_enqueue(dev.queue, geqrt, sizeof(T), nb, nb, ib, mem(a), nb, mem(t), ib, mem(v),
                           nb);
  // The panels, blocked by ib: each run factorises a fresh copy of the same tile (the copy, a
  // clEnqueueCopyBuffer, is timed with it).
  cl_mem pristine = dev.buffer(random(tile)), work = dev.buffer(random(tile));
  cl_mem w_t = dev.buffer(std::vector<T>(std::size_t(ib) * nb)), w_v = dev.buffer(random(tile));
  cl_mem w_tri = dev.buffer(random(tile));
  auto restore = [&](cl_mem from, cl_mem to) {
    check(clEnqueueCopyBuffer(dev.queue, from, to, 0, 0, tile * sizeof(T), 0, nullptr, nullptr),
          "clEnqueueCopyBuffer");
  };
  compare(dev, o, "geqrt", 4.0 / 3.0 * nb * nb * nb, [&] {  // 2 m n^2 - 2/3 n^3, m = n
    restore(pristine, work);
    qr::opencl_geqrt_enqueue(dev.queue, geqrt, sizeof(T), nb, nb, ib, mem(work), nb, mem(w_t), ib,
                             mem(w_v), nb);
  });
  compare(dev, o, "tpqrt", 2.0 * nb * nb * nb, [&] {  // 2 m n^2, the triangle's rows excluded
    restore(pristine, work);
    restore(a, w_tri);
    qr::opencl_tpqrt_enqueue(dev.queue, tpqrt, sizeof(T), nb, nb, ib, mem(w_tri), nb, mem(work), nb,
                             mem(w_t), ib);
  });
  for (cl_mem m : {pristine, work, w_t, w_v, w_tri}) clReleaseMemObject(m);
  cl_mem c = dev.buffer(random(tile));
  compare(dev, o, "gemqrt", 2.0 * nb * nb * nb, [&] {  // 2 n k (2 m - k), m = n = k
    qr::opencl_gemqrt_enqueue(dev.queue, gemqrt, sizeof(T), true, nb, nb, nb, ib, mem(v), nb,
                              mem(t), ib, mem(c), nb);
  });
  cl_mem b = dev.buffer(random(tile));
  qr::opencl_tpqrt_enqueue(dev.queue, tpqrt, sizeof(T), nb, nb, ib, mem(a), nb, mem(b), nb, mem(t),
                           ib);
  cl_mem top = dev.buffer(random(tile)), bottom = dev.buffer(random(tile));
  compare(dev, o, "tpmqrt", 4.0 * nb * nb * nb, [&] {
    qr::opencl_tpmqrt_enqueue(dev.queue, tpmqrt, sizeof(T), true, nb, nb, nb, ib, mem(b), nb,
                              mem(t), ib, mem(top), nb, mem(bottom), nb);
  });
  for (cl_mem m : {a, v, t, c, b, top, bottom}) clReleaseMemObject(m);
  for (cl_kernel k : {geqrt, tpqrt, gemqrt, tpmqrt}) clReleaseKernel(k);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"The apps' OpenCL tile kernels: own kernels against CLBlast"};
  app.add_option("--tile", o.tile, "tile size")->check(CLI::Range(1, 4096));
  app.add_option("--ib", o.ib, "QR inner block")->check(CLI::Range(1, 4096));
  app.add_option("--repeat", o.repeat, "timed runs per kernel and path")->check(CLI::Range(1, 100));
  app.add_option("--precision", o.precision, "s or d");
  app.add_option("--device", o.device, "OpenCL device index (all platforms, in order)");
  CLI11_PARSE(app, argc, argv);
  try {
    const bool single = common::parse_precision(o.precision) == common::Precision::Single;
    Device dev(o.device);
    std::printf("device: %s; CLBlast: %s\n", dev.name().c_str(),
                common::clblast_available() ? "yes" : "no (own kernels only)");
    single ? run<float>(dev, o) : run<double>(dev, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_opencl_blas_kernels: %s\n", e.what());
    return 2;
  }
}
