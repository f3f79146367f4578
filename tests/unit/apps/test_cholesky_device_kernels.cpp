// Each device tile kernel, run as a single task through the runtime on every device present,
// against the CPU loop kernels: OpenCL (gemm, syrk, trsm, on PoCL here) and CUDA (all four;
// skipped without a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/opencl_blas.hpp"
#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::apps::cholesky {
namespace {

template <typename T>
struct Matrix {
  std::size_t rows, cols, ld;
  std::vector<T> v;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), ld(r + 5), v(ld * c, T(0)) {}
  T& operator()(std::size_t i, std::size_t j) { return v[i + j * ld]; }
};

template <typename T>
Matrix<T> random_matrix(std::size_t r, std::size_t c, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Matrix<T> m(r, c);
  for (auto& x : m.v) x = T(u(rng));
  return m;
}

class DeviceTileKernels : public test::PerDevice {
 protected:
  // A runtime whose only worker is the device, so every task must run there.
  std::unique_ptr<Runtime> device_runtime(std::vector<std::string> offload) {
    RuntimeOptions options;
    options.cpus = 0;
    options.devices = {GetParam()};
    options.scheduler = "offload";
    options.offload = std::move(offload);
    return std::make_unique<Runtime>(options);
  }

  template <typename T>
  void check_gemm() {
    Precision p = std::is_same_v<T, float> ? Precision::Single : Precision::Double;
    if (p == Precision::Double && device().info().kind == DeviceKind::OpenCL &&
        !device_details(device().info()).value("fp64", false))
      GTEST_SKIP() << "no cl_khr_fp64";
    auto rt = device_runtime({"gemm"});
    CholeskyCodelets codelets(p);
    std::mt19937 rng(7);
    // Ragged sizes that are not multiples of the OpenCL kernel's 32 x 32 blocks, and one that is.
    for (auto [m, n, k] : {std::tuple{37, 29, 17}, std::tuple{64, 64, 64}, std::tuple{1, 70, 3}}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k);
      auto a = random_matrix<T>(m, k, rng), b = random_matrix<T>(n, k, rng);
      auto c = random_matrix<T>(m, n, rng);
      auto ref = c;
      loop_gemm<T>(m, n, k, a.v.data(), int(a.ld), b.v.data(), int(b.ld), ref.v.data(),
                   int(ref.ld));
      Data da = rt->register_matrix(a.v.data(), a.rows, a.cols, a.ld);
      Data db = rt->register_matrix(b.v.data(), b.rows, b.cols, b.ld);
      Data dc = rt->register_matrix(c.v.data(), c.rows, c.cols, c.ld);
      rt->submit(codelets.gemm, {{da, Access::Read}, {db, Access::Read}, {dc, Access::ReadWrite}});
      rt->wait_all();
      rt->unregister(da);
      rt->unregister(db);
      rt->unregister(dc);
      double tol = 16 * (k + 1) * std::numeric_limits<T>::epsilon();
      for (std::size_t j = 0; j < c.cols; ++j)
        for (std::size_t i = 0; i < c.ld; ++i) {
          if (i < c.rows) {
            ASSERT_NEAR(c(i, j), ref(i, j), tol) << i << "," << j;
          } else {
            ASSERT_EQ(c(i, j), ref(i, j)) << "padding below the tile changed";
          }
        }
    }
    EXPECT_EQ(rt->stats().tasks, 3u);
  }

  // One task of `codelet` on the matrices (in its access order: all read but the last).
  template <typename T>
  void run_one(Runtime& rt, const Codelet& codelet, std::vector<Matrix<T>*> matrices) {
    std::vector<DataAccess> accesses;
    for (std::size_t i = 0; i < matrices.size(); ++i) {
      Matrix<T>& m = *matrices[i];
      accesses.push_back({rt.register_matrix(m.v.data(), m.rows, m.cols, m.ld),
                          i + 1 < matrices.size() ? Access::Read : Access::ReadWrite});
    }
    rt.submit(codelet, accesses);
    rt.wait_all();
    for (auto& a : accesses) rt.unregister(a.data);
  }

  // syrk and trsm against the loops, on ragged sizes: syrk touches only S's lower triangle.
  template <typename T>
  void check_syrk_trsm() {
    Precision p = std::is_same_v<T, float> ? Precision::Single : Precision::Double;
    if (p == Precision::Double && device().info().kind == DeviceKind::OpenCL &&
        !device_details(device().info()).value("fp64", false))
      GTEST_SKIP() << "no cl_khr_fp64";
    auto rt = device_runtime({"syrk", "trsm"});
    CholeskyCodelets codelets(p);
    std::mt19937 rng(3);
    for (auto [m, n] : {std::pair{37, 29}, std::pair{64, 64}, std::pair{1, 9}, std::pair{45, 1}}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << n);
      const double tol = 64 * (n + 1) * std::numeric_limits<T>::epsilon();
      // syrk: S (n x n) -= A A^T, A n x m.
      auto a = random_matrix<T>(n, m, rng), s = random_matrix<T>(n, n, rng), want_s = s;
      loop_syrk<T>(n, m, a.v.data(), int(a.ld), want_s.v.data(), int(want_s.ld));
      run_one<T>(*rt, codelets.syrk, {&a, &s});
      for (std::size_t j = 0; j < s.cols; ++j)
        for (std::size_t i = 0; i < s.ld; ++i) {
          if (i >= j && i < s.rows)
            ASSERT_NEAR(s(i, j), want_s(i, j), tol * m) << "syrk " << i << "," << j;
          else
            ASSERT_EQ(s(i, j), want_s(i, j)) << "syrk wrote outside the lower triangle";
        }
      // trsm: B (m x n) <- B L^-T, L n x n lower with a dominant diagonal.
      auto l = random_matrix<T>(n, n, rng), b = random_matrix<T>(m, n, rng), want_b = b;
      for (std::size_t j = 0; j < l.cols; ++j) {
        l(j, j) = T(n + 2);
        for (std::size_t i = 0; i < j; ++i) l(i, j) = T(99);  // above the diagonal: never read
      }
      loop_trsm<T>(m, n, l.v.data(), int(l.ld), want_b.v.data(), int(want_b.ld));
      run_one<T>(*rt, codelets.trsm, {&l, &b});
      for (std::size_t j = 0; j < b.cols; ++j)
        for (std::size_t i = 0; i < b.ld; ++i) {
          if (i < b.rows)
            ASSERT_NEAR(b(i, j), want_b(i, j), tol) << "trsm " << i << "," << j;
          else
            ASSERT_EQ(b(i, j), want_b(i, j)) << "trsm wrote below the tile";
        }
    }
    EXPECT_EQ(rt->stats().tasks, 8u);
  }
};

// OpenCL has two gemm kernels (local memory for GPUs, register-blocked for CPU drivers): both run
// here, whatever the device, and the automatic choice too.
struct VariantScope {
  explicit VariantScope(OpenclGemmVariant v) { set_opencl_gemm_variant(v); }
  ~VariantScope() { set_opencl_gemm_variant(OpenclGemmVariant::Auto); }
};
const OpenclGemmVariant kVariants[] = {OpenclGemmVariant::Auto, OpenclGemmVariant::LocalMemory,
                                       OpenclGemmVariant::RegisterBlocked};

TEST_P(DeviceTileKernels, GemmSingle) {
  if (device().info().kind == DeviceKind::Cpu) GTEST_SKIP() << "covered by CpuKernels";
  for (auto v : kVariants) {
    SCOPED_TRACE(static_cast<int>(v));
    VariantScope scope(v);
    check_gemm<float>();
  }
}
TEST_P(DeviceTileKernels, GemmDouble) {
  if (device().info().kind == DeviceKind::Cpu) GTEST_SKIP() << "covered by CpuKernels";
  for (auto v : kVariants) {
    SCOPED_TRACE(static_cast<int>(v));
    VariantScope scope(v);
    check_gemm<double>();
  }
}

// With CLBlast, Auto runs CLBlast's gemm (common/opencl_blas.hpp) and the own kernel stays the
// fallback: both against the same reference, so they agree with each other.
TEST_P(DeviceTileKernels, GemmThroughClblastAndTheOwnKernel) {
  if (device().info().kind != DeviceKind::OpenCL) GTEST_SKIP() << "OpenCL only";
  if (!common::clblast_available()) GTEST_SKIP() << "built without CLBlast: the own kernel ran";
  for (auto choice : {common::OpenclBlas::Own, common::OpenclBlas::Clblast}) {
    SCOPED_TRACE(choice == common::OpenclBlas::Own ? "own kernel" : "CLBlast");
    struct Scope {
      explicit Scope(common::OpenclBlas c) { common::set_opencl_blas(c); }
      ~Scope() { common::set_opencl_blas(common::OpenclBlas::Auto); }
    } scope(choice);
    check_gemm<float>();
    check_gemm<double>();
  }
}

// syrk and trsm on every accelerator; on OpenCL through the own kernels and through CLBlast.
TEST_P(DeviceTileKernels, SyrkAndTrsm) {
  if (device().info().kind == DeviceKind::Cpu) GTEST_SKIP() << "covered by CpuKernels";
  std::vector<common::OpenclBlas> choices{common::OpenclBlas::Auto};
  if (device().info().kind == DeviceKind::OpenCL) {
    choices = {common::OpenclBlas::Own};
    if (common::clblast_available()) choices.push_back(common::OpenclBlas::Clblast);
  }
  for (auto choice : choices) {
    SCOPED_TRACE(static_cast<int>(choice));
    struct Scope {
      explicit Scope(common::OpenclBlas c) { common::set_opencl_blas(c); }
      ~Scope() { common::set_opencl_blas(common::OpenclBlas::Auto); }
    } scope(choice);
    check_syrk_trsm<float>();
    check_syrk_trsm<double>();
  }
}

// CUDA has all four kernels: a whole small factorisation with every task on the GPU.
TEST_P(DeviceTileKernels, WholeFactorisationOnTheDevice) {
  if (device().info().kind != DeviceKind::Cuda) GTEST_SKIP() << "only CUDA implements all four";
  auto rt = device_runtime({"potrf", "trsm", "syrk", "gemm"});
  for (Precision p : {Precision::Single, Precision::Double}) {
    CholeskyCodelets codelets(p);
    const int n = 300;
    SpdMatrix spd(n);
    if (p == Precision::Single) {
      std::vector<float> a(std::size_t(n) * n);
      spd.fill(a.data(), n);
      factorize(*rt, codelets, a.data(), n, n, 64);
      EXPECT_LE(cholesky_residual(spd, a.data(), n), residual_bound<float>(n));
    } else {
      std::vector<double> a(std::size_t(n) * n);
      spd.fill(a.data(), n);
      factorize(*rt, codelets, a.data(), n, n, 64);
      EXPECT_LE(cholesky_residual(spd, a.data(), n), residual_bound<double>(n));
    }
  }
}

CONVEYOR_INSTANTIATE_PER_DEVICE(DeviceTileKernels);

}  // namespace
}  // namespace conveyor::apps::cholesky
