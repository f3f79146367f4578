// The QR device kernels (OpenCL on PoCL here, device_kernels.inc; CUDA, through cuSOLVER and
// cuBLAS, where a GPU is present), each run as one task through the runtime on a device alone,
// against the LAPACKE kernels on ragged tiles with ib not dividing the width, in both precisions;
// then whole factorisations on the device alone and beside a CPU worker, checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "common/opencl_blas.hpp"
#include "common/precision.hpp"
#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"
#include "qr/q_forming.hpp"
#include "qr/qr.hpp"
#include "qr/qr_check.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_matrix.hpp"
#include "unit/apps/qr_tiles.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::apps::qr {
namespace {

// The arithmetic differs from LAPACK's (other blockings and summation orders): entries
// agree to a multiple of n u relative to their size.
template <typename T>
void expect_close(Tile<T>& got, Tile<T>& want, int n, const char* what) {
  const double tol = 50.0 * n * common::unit_roundoff<T>();
  for (int j = 0; j < got.cols; ++j)
    for (int i = 0; i < got.rows; ++i)
      ASSERT_NEAR(got(i, j), want(i, j), tol * std::max(1.0, std::fabs(double(want(i, j)))))
          << what << " (" << i << ", " << j << ")";
}

// T's blocks: only each block's upper triangle is defined (LAPACK leaves the rest alone).
template <typename T>
void expect_t_close(Tile<T>& got, Tile<T>& want, int ib, int n) {
  const double tol = 50.0 * n * common::unit_roundoff<T>();
  for (int j = 0; j < got.cols; ++j)
    for (int q = 0; q <= j % ib; ++q)
      ASSERT_NEAR(got(q, j), want(q, j), tol * std::max(1.0, std::fabs(double(want(q, j)))))
          << "T (" << q << ", " << j << ")";
}

struct Shape {
  int m, n, ib;
};
// geqrt: square, tall, ib not dividing n, ib = n, ib = 1, and the widest default ib (128, apps/qr/
// t_factors.hpp) beside a narrower last block. tpqrt/tpmqrt: the lower tile shorter than the
// triangle (the ragged last tile row), taller, ib not dividing, ib 128.
const Shape kGeqrt[] = {{16, 16, 4},  {37, 29, 8}, {45, 45, 7},
                        {20, 20, 20}, {9, 9, 1},   {140, 136, 128}};
const Shape kTpqrt[] = {{16, 16, 4}, {11, 29, 8}, {45, 33, 7}, {9, 9, 1}, {72, 136, 128}};

class QrDeviceKernels : public test::PerDevice {
 protected:
  void SetUp() override {
    test::PerDevice::SetUp();
    if (IsSkipped()) return;
    if (!cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE (the reference)";
  }
  bool lacks_fp64() {
    return device().info().kind == DeviceKind::OpenCL &&
           !device_details(device().info()).value("fp64", false);
  }
  // A runtime whose only worker is the device, so every task runs there.
  std::unique_ptr<Runtime> device_runtime() {
    RuntimeOptions options;
    options.cpus = 0;
    options.devices = {GetParam()};
    options.scheduler = "eager";
    return std::make_unique<Runtime>(options);
  }

  // One task of `codelet` on `tiles` (in the codelet's access order), then everything home.
  template <typename T>
  void run(Runtime& rt, const Codelet& codelet, std::vector<std::pair<Tile<T>*, Access>> tiles) {
    std::vector<Data> data;
    std::vector<DataAccess> accesses;
    for (auto& [tile, mode] : tiles)
      data.push_back(rt.register_matrix(tile->data(), std::size_t(tile->rows),
                                        std::size_t(tile->cols), std::size_t(tile->ld)));
    for (std::size_t i = 0; i < data.size(); ++i) accesses.push_back({data[i], tiles[i].second});
    rt.submit(codelet, accesses);
    rt.wait_all();
    for (auto& d : data) rt.unregister(d);
  }

  template <typename T>
  void check_kernels() {
    const Precision p = std::is_same_v<T, float> ? Precision::Single : Precision::Double;
    if (p == Precision::Double && lacks_fp64()) GTEST_SKIP() << "no cl_khr_fp64";
    auto rt = device_runtime();
    QrCodelets codelets(p);
    QFormingCodelets q_codelets(p);
    std::mt19937 rng(11);
    for (auto s : kGeqrt) {
      SCOPED_TRACE(::testing::Message() << "geqrt/gemqrt " << s.m << "x" << s.n << " ib " << s.ib);
      const int k = std::min(s.m, s.n);
      auto a = random_tile<T>(s.m, s.n, rng), want = a;
      Tile<T> t(s.ib, k, 0), want_t = t, v(s.m, s.n);
      cpu_geqrt<T>(s.m, s.n, s.ib, want.data(), want.ld, want_t.data(), want_t.ld);
      run<T>(*rt, codelets.geqrt,
             {{&a, Access::ReadWrite}, {&v, Access::Write}, {&t, Access::Write}});
      expect_close(a, want, s.m, "geqrt's R and V");
      expect_t_close(t, want_t, s.ib, s.m);
      expect_close(v, a, 1, "the copy V");
      // gemqrt with LAPACK's reflectors, on a tile of another width.
      auto c = random_tile<T>(s.m, 13, rng), want_c = c;
      cpu_gemqrt<T>(true, s.m, 13, k, s.ib, want.data(), want.ld, want_t.data(), want_t.ld,
                    want_c.data(), want_c.ld);
      run<T>(*rt, codelets.gemqrt,
             {{&want, Access::Read}, {&want_t, Access::Read}, {&c, Access::ReadWrite}});
      expect_close(c, want_c, s.m, "gemqrt's Q^T C");
      // Forming Q: the same reflectors applying Q, not Q^T.
      auto d = random_tile<T>(s.m, 13, rng), want_d = d;
      cpu_gemqrt<T>(false, s.m, 13, k, s.ib, want.data(), want.ld, want_t.data(), want_t.ld,
                    want_d.data(), want_d.ld);
      run<T>(*rt, q_codelets.apply_geqrt,
             {{&want, Access::Read}, {&want_t, Access::Read}, {&d, Access::ReadWrite}});
      expect_close(d, want_d, s.m, "apply_geqrt's Q C");
    }
    for (auto s : kTpqrt) {
      SCOPED_TRACE(::testing::Message() << "tpqrt/tpmqrt " << s.m << "x" << s.n << " ib " << s.ib);
      // R's lower triangle holds geqrt's reflectors in the factorisation: it must stay as it is.
      auto r = random_tile<T>(s.n, s.n, rng), want_r = r;
      auto b = random_tile<T>(s.m, s.n, rng), want_b = b;
      Tile<T> t(s.ib, s.n, 0), want_t = t;
      cpu_tpqrt<T>(s.m, s.n, s.ib, want_r.data(), want_r.ld, want_b.data(), want_b.ld,
                   want_t.data(), want_t.ld);
      run<T>(*rt, codelets.tpqrt,
             {{&r, Access::ReadWrite}, {&b, Access::ReadWrite}, {&t, Access::Write}});
      expect_close(r, want_r, s.m + s.n, "tpqrt's R (and the untouched lower triangle)");
      expect_close(b, want_b, s.m + s.n, "tpqrt's V");
      expect_t_close(t, want_t, s.ib, s.m + s.n);
      // tpmqrt with LAPACK's reflectors on [A; B] of another width.
      auto top = random_tile<T>(s.n, 10, rng), want_top = top;
      auto bottom = random_tile<T>(s.m, 10, rng), want_bottom = bottom;
      cpu_tpmqrt<T>(true, s.m, 10, s.n, s.ib, want_b.data(), want_b.ld, want_t.data(), want_t.ld,
                    want_top.data(), want_top.ld, want_bottom.data(), want_bottom.ld);
      run<T>(*rt, codelets.tpmqrt,
             {{&want_b, Access::Read},
              {&want_t, Access::Read},
              {&top, Access::ReadWrite},
              {&bottom, Access::ReadWrite}});
      expect_close(top, want_top, s.m + s.n, "tpmqrt's A");
      expect_close(bottom, want_bottom, s.m + s.n, "tpmqrt's B");
      // Forming Q: [A; B] <- Q [A; B].
      cpu_tpmqrt<T>(false, s.m, 10, s.n, s.ib, want_b.data(), want_b.ld, want_t.data(), want_t.ld,
                    want_top.data(), want_top.ld, want_bottom.data(), want_bottom.ld);
      run<T>(*rt, q_codelets.apply_tpqrt,
             {{&want_b, Access::Read},
              {&want_t, Access::Read},
              {&top, Access::ReadWrite},
              {&bottom, Access::ReadWrite}});
      expect_close(top, want_top, s.m + s.n, "apply_tpqrt's A");
      expect_close(bottom, want_bottom, s.m + s.n, "apply_tpqrt's B");
    }
  }

  // A whole factorisation of an m x n matrix on `rt`, checked as conveyor qr --check does;
  // returns what it did.
  template <typename T>
  Factorization expect_checked(Runtime& rt, int n, int block, int ib, int m = 0) {
    m = std::max(m, n);
    SCOPED_TRACE(::testing::Message() << m << " x " << n << " block=" << block << " ib=" << ib);
    GeneralMatrix matrix(m, n);
    std::vector<T> a(std::size_t(m) * n);
    matrix.fill(a.data(), m);
    QrCodelets codelets(std::is_same_v<T, float> ? Precision::Single : Precision::Double);
    TFactors<T> t(MatrixSize{m, n}, block, std::min(ib, block));
    Factorization f = factorize(rt, codelets, a.data(), m, t);
    QrCheck c = check_qr(matrix, a.data(), m, t);
    EXPECT_LE(c.residual, residual_bound<T>(m));
    EXPECT_LE(c.orthogonality, orthogonality_bound<T>(m));
    return f;
  }
};

TEST_P(QrDeviceKernels, SingleMatchesLapack) { check_kernels<float>(); }
TEST_P(QrDeviceKernels, DoubleMatchesLapack) { check_kernels<double>(); }

// With CLBlast the OpenCL updates run in blocked WY form through it (common/opencl_blas.hpp), the
// own kernels staying the fallback: both paths, on the same tiles, agree with each other (each
// also matches LAPACK: SingleMatchesLapack under Auto, OwnKernelsMatchLapack below).
struct BlasScope {
  explicit BlasScope(common::OpenclBlas c) { common::set_opencl_blas(c); }
  ~BlasScope() { common::set_opencl_blas(common::OpenclBlas::Auto); }
};

TEST_P(QrDeviceKernels, ClblastAndOwnUpdatesAgree) {
  if (device().info().kind != DeviceKind::OpenCL) GTEST_SKIP() << "OpenCL only";
  if (!common::clblast_available()) GTEST_SKIP() << "built without CLBlast";
  if (lacks_fp64()) GTEST_SKIP() << "no cl_khr_fp64";
  auto rt = device_runtime();
  QrCodelets codelets(Precision::Double);
  std::mt19937 rng(5);
  for (auto s : {Shape{45, 33, 7}, Shape{64, 64, 16}}) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << " ib " << s.ib);
    // LAPACK's reflectors: geqrt's for gemqrt, tpqrt's (an n x n triangle on m x n) for tpmqrt.
    const int k = std::min(s.m, s.n);
    auto v = random_tile<double>(s.m, s.n, rng);
    Tile<double> t(s.ib, k, 0);
    cpu_geqrt<double>(s.m, s.n, s.ib, v.data(), v.ld, t.data(), t.ld);
    auto tri = random_tile<double>(s.n, s.n, rng), vb = random_tile<double>(s.m, s.n, rng);
    Tile<double> tb(s.ib, s.n, 0);
    cpu_tpqrt<double>(s.m, s.n, s.ib, tri.data(), tri.ld, vb.data(), vb.ld, tb.data(), tb.ld);
    auto c = random_tile<double>(s.m, 21, rng), c_own = c;
    auto r = random_tile<double>(s.n, 21, rng), r_own = r;
    auto b = random_tile<double>(s.m, 21, rng), b_own = b;
    auto updates = [&](Tile<double>& cm, Tile<double>& top, Tile<double>& bottom) {
      run<double>(*rt, codelets.gemqrt,
                  {{&v, Access::Read}, {&t, Access::Read}, {&cm, Access::ReadWrite}});
      run<double>(*rt, codelets.tpmqrt,
                  {{&vb, Access::Read},
                   {&tb, Access::Read},
                   {&top, Access::ReadWrite},
                   {&bottom, Access::ReadWrite}});
    };
    {
      BlasScope own(common::OpenclBlas::Own);
      updates(c_own, r_own, b_own);
    }
    {
      BlasScope clblast(common::OpenclBlas::Clblast);
      updates(c, r, b);
    }
    expect_close(c, c_own, s.m, "gemqrt through CLBlast and the own kernel");
    expect_close(r, r_own, s.m + s.n, "tpmqrt's A through CLBlast and the own kernel");
    expect_close(b, b_own, s.m + s.n, "tpmqrt's B through CLBlast and the own kernel");
  }
}

// Each path set explicitly, whatever CONVEYOR_OPENCL_BLAS says (ctest runs with =own): the panels
// are blocked either way, their updates and the update kernels through the own kernels (on a CPU
// device the blocked form through the CPU gemm; elsewhere one work-item per column) or CLBlast.
TEST_P(QrDeviceKernels, OwnKernelsMatchLapack) {
  if (device().info().kind != DeviceKind::OpenCL) GTEST_SKIP() << "OpenCL only";
  BlasScope own(common::OpenclBlas::Own);
  check_kernels<float>();
  check_kernels<double>();
}

// The one-work-item-per-column updates, which a CPU device does not run by default.
TEST_P(QrDeviceKernels, PerColumnUpdatesMatchLapack) {
  if (device().info().kind != DeviceKind::OpenCL) GTEST_SKIP() << "OpenCL only";
  BlasScope own(common::OpenclBlas::Own);
  set_opencl_updates(OpenclUpdates::PerColumn);
  struct Reset {
    ~Reset() { set_opencl_updates(OpenclUpdates::Auto); }
  } reset;
  check_kernels<float>();
  check_kernels<double>();
  auto rt = device_runtime();
  expect_checked<double>(*rt, 250, 96, 40);
}

TEST_P(QrDeviceKernels, ClblastKernelsMatchLapack) {
  if (device().info().kind != DeviceKind::OpenCL) GTEST_SKIP() << "OpenCL only";
  if (!common::clblast_available()) GTEST_SKIP() << "built without CLBlast";
  BlasScope clblast(common::OpenclBlas::Clblast);
  check_kernels<float>();
  check_kernels<double>();
  auto rt = device_runtime();
  expect_checked<float>(*rt, 250, 96, 40);
}

// Every task on the device: ragged last tiles, ib not dividing the block.
TEST_P(QrDeviceKernels, FactorisationOnTheDeviceAlonePassesTheCheck) {
  auto rt = device_runtime();
  expect_checked<float>(*rt, 250, 96, 40);
  if (lacks_fp64()) GTEST_SKIP() << "no cl_khr_fp64 (single precision passed)";
  expect_checked<double>(*rt, 384, 96, 32);
  EXPECT_EQ(rt->stats().tasks, 30u);  // 4 x 4 tiles: 4 + 6 + 6 + 14
}

// A tall matrix, 5 x 2 tiles of 96: the last tile row 20 high, the last tile column 54 wide, so
// its diagonal tile (1, 1) is taller than wide and ib 40 does not divide either.
TEST_P(QrDeviceKernels, TallFactorisationOnTheDevicePassesTheCheck) {
  auto rt = device_runtime();
  expect_checked<float>(*rt, 150, 96, 40, 404);
  EXPECT_EQ(rt->stats().tasks, 14u);  // 2 geqrt, 1 gemqrt, 4 + 3 tpqrt, 4 tpmqrt
}

// A CPU worker and the device side by side, so tiles move between host and device in the middle
// of the graph: the updates (gemqrt, tpmqrt) offloaded to the device, the panel (geqrt, tpqrt) on
// the CPU worker, whose every step reads tiles the device updated last. Placed by codelet, not
// taken from one pool as eager does, where the CPU worker may happen to take every task.
TEST_P(QrDeviceKernels, FactorisationBesideACpuWorkerPassesTheCheck) {
  if (lacks_fp64()) GTEST_SKIP() << "no cl_khr_fp64";
  RuntimeOptions options;
  options.cpus = 1;
  options.devices = {GetParam()};
  options.scheduler = "offload";
  options.offload = {"gemqrt", "tpmqrt"};
  Runtime rt(options);
  Factorization f = expect_checked<double>(rt, 400, 96, 40);
  std::uint64_t on_device = 0, on_cpu = 0;
  for (const auto& w : rt.stats().workers)
    (w.name.rfind("cpu", 0) == 0 ? on_cpu : on_device) += w.tasks;
  EXPECT_EQ(on_device, f.gemqrt_tasks + f.tpmqrt_tasks);
  EXPECT_EQ(on_cpu, f.geqrt_tasks + f.tpqrt_tasks);
  EXPECT_GT(on_device, 0u);
  EXPECT_GT(on_cpu, 0u);
  EXPECT_GT(rt.stats().h2d_copies, 0u);
  EXPECT_GT(rt.stats().d2h_copies, 0u);
}

// Q formed by tasks with the device as the only worker (one domain: every task has a device
// kernel) matches Q formed on the host, kernel after kernel: ragged tiles, ib not dividing the
// block, a tall matrix, and more columns of Q than of A.
TEST_P(QrDeviceKernels, QIsFormedOnTheDeviceAlone) {
  if (lacks_fp64()) GTEST_SKIP() << "no cl_khr_fp64";
  const int m = 300, n = 170, block = 96, ib = 40, columns = 200;
  GeneralMatrix matrix(m, n);
  std::vector<double> a(std::size_t(m) * n);
  matrix.fill(a.data(), m);
  TFactors<double> t(MatrixSize{m, n}, block, ib);
  {
    RuntimeOptions options;
    options.cpus = 1;
    Runtime host(options);
    factorize(host, QrCodelets(Precision::Double), a.data(), m, t);
  }
  auto rt = device_runtime();
  const std::vector<double> q =
      form_q(*rt, QFormingCodelets(Precision::Double), a.data(), m, t, columns);
  EXPECT_GT(rt->stats().tasks, 0u);
  const std::vector<double> want = form_q(a.data(), m, t, columns);
  ASSERT_EQ(q.size(), want.size());
  const double tol = 50.0 * m * common::unit_roundoff<double>();
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_NEAR(q[i], want[i], tol) << "entry " << i;
}

CONVEYOR_INSTANTIATE_PER_ACCELERATOR(QrDeviceKernels);

}  // namespace
}  // namespace conveyor::apps::qr
