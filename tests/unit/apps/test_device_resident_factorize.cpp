// The tile Cholesky and QR of a matrix that lives in device memory (factorize with a MatrixHome on
// a device): every tile a strided device home on the emulated device, whose "device memory" is
// host memory the test reads. Its codelets run their CPU kernels there (the emulated device runs
// CUDA implementations with plain pointers), so the results must equal a host factorisation's
// bit for bit: the same kernels on the same values, only with ld = rows on the device. Where every
// task runs on the device nothing goes through the host; the matrix's padding rows are never
// written. On a real GPU (skipped without one), a cudaMalloc'd matrix factorised by the CUDA
// kernels agrees with the host to rounding.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "device/codelet_impl.hpp"
#include "qr/q_forming.hpp"
#include "qr/qr.hpp"
#include "qr/qr_check.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_matrix.hpp"
#include "unit/backends/per_device.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor::apps {
namespace {

using common::MatrixHome;

constexpr int kN = 40, kBlock = 16;  // tiles of 16, 16 and 8
constexpr long kLd = 48;             // 8 padding rows under every column
constexpr double kPadding = -7.0;

// The codelet's CPU kernel as its CUDA implementation: what the emulated device runs.
void run_cpu_kernel_on_devices(Codelet& c) {
  device::CodeletImpl& impl = *device::CodeletAccess::impl(c);
  impl.run[device::index(DeviceKind::Cuda)] = impl.fn(DeviceKind::Cpu);
}

RuntimeOptions host_options() {
  RuntimeOptions o;
  o.cpus = 1;
  o.pin = false;
  o.perf_models = "none";
  return o;
}

// `cpus` 0: every task on emu:0; else the codelets in `offload` there, the rest on the CPUs.
std::unique_ptr<Runtime> emulated_runtime(int cpus, std::vector<std::string> offload = {}) {
  RuntimeOptions o = host_options();
  o.cpus = cpus;
  o.scheduler = offload.empty() ? "eager" : "offload";
  o.offload = std::move(offload);
  return test::make_emulated_runtime(o, 1, false, false, /*adopt_any_memory=*/true);
}

std::vector<double> padded(const std::vector<double>& a) {
  std::vector<double> m(static_cast<std::size_t>(kLd) * kN, kPadding);
  for (int j = 0; j < kN; ++j) std::copy_n(a.begin() + j * kN, kN, m.begin() + j * kLd);
  return m;
}

// The kN x kN matrix of a padded one, with leading dimension kN.
std::vector<double> compact(const std::vector<double>& m) {
  std::vector<double> a(static_cast<std::size_t>(kN) * kN);
  for (int j = 0; j < kN; ++j) std::copy_n(m.begin() + j * kLd, kN, a.begin() + j * kN);
  return a;
}

void expect_same_matrix(const std::vector<double>& device, const std::vector<double>& host) {
  for (int j = 0; j < kN; ++j) {
    for (int i = 0; i < kN; ++i)
      ASSERT_EQ(device[i + j * kLd], host[i + j * kLd]) << "at (" << i << ", " << j << ")";
    for (long i = kN; i < kLd; ++i) ASSERT_EQ(device[i + j * kLd], kPadding) << "padding";
  }
}

// ---- Cholesky ----------------------------------------------------------------------------------

cholesky::CholeskyCodelets cholesky_codelets() {
  cholesky::CholeskyCodelets c(cholesky::Precision::Double);
  for (Codelet* k : {&c.potrf, &c.trsm, &c.syrk, &c.gemm}) run_cpu_kernel_on_devices(*k);
  return c;
}

std::vector<double> spd_matrix() {
  std::vector<double> a(static_cast<std::size_t>(kN) * kN);
  cholesky::SpdMatrix(kN).fill(a.data(), kN);
  return padded(a);
}

std::vector<double> host_cholesky() {
  std::vector<double> a = spd_matrix();
  Runtime rt(host_options());
  cholesky::factorize(rt, cholesky_codelets(), a.data(), kN, kLd, kBlock);
  return a;
}

TEST(DeviceResidentCholesky, EveryTaskOnTheDeviceCopiesNothingAndMatchesTheHost) {
  std::vector<double> a = spd_matrix();
  auto rt = emulated_runtime(0);
  cholesky::Factorization f = cholesky::factorize(*rt, cholesky_codelets(), a.data(), kN, kLd,
                                                  kBlock, MatrixHome::on("emu:0"));
  EXPECT_EQ(f.stats.tasks, f.total_tasks());
  EXPECT_EQ(f.stats.h2d_copies, 0u);
  EXPECT_EQ(f.stats.d2h_copies, 0u);
  expect_same_matrix(a, host_cholesky());
}

TEST(DeviceResidentCholesky, TasksOnTheCpusGetCopiesAndTheResultLandsOnTheDevice) {
  std::vector<double> a = spd_matrix();
  auto rt = emulated_runtime(1, {"gemm", "syrk"});
  cholesky::Factorization f = cholesky::factorize(*rt, cholesky_codelets(), a.data(), kN, kLd,
                                                  kBlock, MatrixHome::on("emu:0"));
  EXPECT_GT(f.stats.d2h_copies, 0u);  // potrf and trsm on the CPU worker read device tiles
  expect_same_matrix(a, host_cholesky());
}

TEST(DeviceResidentCholesky, AHomeDeviceTheRuntimeDoesNotHaveIsAUsageError) {
  std::vector<double> a = spd_matrix();
  Runtime rt(host_options());
  try {
    cholesky::factorize(rt, cholesky_codelets(), a.data(), kN, kLd, kBlock,
                        MatrixHome::on("cuda:7"));
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cholesky: the matrix is on cuda:7, which this runtime does not have (its "
              "devices: none)");
  }
}

// ---- QR ----------------------------------------------------------------------------------------

constexpr int kIb = 8;

qr::QrCodelets qr_codelets() {
  qr::QrCodelets c(qr::Precision::Double);
  for (Codelet* k : {&c.geqrt, &c.gemqrt, &c.tpqrt, &c.tpmqrt}) run_cpu_kernel_on_devices(*k);
  return c;
}

std::vector<double> general_matrix() {
  std::vector<double> a(static_cast<std::size_t>(kN) * kN);
  qr::GeneralMatrix(kN).fill(a.data(), kN);
  return padded(a);
}

TEST(DeviceResidentQr, EveryTaskOnTheDeviceCopiesNothingInAndMatchesTheHost) {
  if (!qr::cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE";
  std::vector<double> host = general_matrix();
  qr::TFactors<double> host_t(kN, kBlock, kIb);
  {
    Runtime rt(host_options());
    qr::factorize(rt, qr_codelets(), host.data(), kN, kLd, kBlock, host_t);
  }
  std::vector<double> a = general_matrix();
  qr::TFactors<double> t(kN, kBlock, kIb);
  auto rt = emulated_runtime(0);
  qr::Factorization f = qr::factorize(*rt, qr_codelets(), a.data(), kN, kLd, kBlock, t, true,
                                      MatrixHome::on("emu:0"));
  EXPECT_EQ(f.stats.tasks, f.total_tasks());
  // The matrix never goes to the device: it is there. Only the T factors and the reflector
  // copies (host data, written on the device) come back to the host.
  EXPECT_EQ(f.stats.h2d_copies, 0u);
  expect_same_matrix(a, host);
  qr::QrCheck c = qr::check_qr(qr::GeneralMatrix(kN), compact(a).data(), kN, t);
  EXPECT_LE(c.residual, qr::residual_bound<double>(kN));
}

qr::QFormingCodelets q_forming_codelets() {
  qr::QFormingCodelets c(qr::Precision::Double);
  for (Codelet* k : {&c.apply_geqrt, &c.apply_tpqrt}) run_cpu_kernel_on_devices(*k);
  return c;
}

// Q formed on a device (padded, in `q`) against Q formed on the host from the same reflectors (the
// padded `a`): equal to `tol`, the padding rows never written.
void expect_host_q(const std::vector<double>& q, const std::vector<double>& a,
                   const qr::TFactors<double>& t, double tol) {
  const std::vector<double> want = qr::form_q(compact(a).data(), kN, t, kN);
  for (int j = 0; j < kN; ++j) {
    for (int i = 0; i < kN; ++i)
      ASSERT_NEAR(q[i + j * kLd], want[i + j * kN], tol) << "at (" << i << ", " << j << ")";
    for (long i = kN; i < kLd; ++i) ASSERT_EQ(q[i + j * kLd], kPadding) << "padding";
  }
}

// The first kN columns of the identity, padded as the matrix.
std::vector<double> padded_identity() {
  std::vector<double> q(static_cast<std::size_t>(kLd) * kN, kPadding);
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) q[i + j * kLd] = i == j ? 1.0 : 0.0;
  return q;
}

// Q of a matrix factorised in device memory, formed there: the reflectors and Q strided device
// homes on emu:0, every task on it. Nothing comes home (only the T factors, host data, go in), the
// padding rows are never written, and Q is the host's to rounding (the same kernels on tiles of
// other widths).
TEST(DeviceResidentQr, QIsFormedWhereTheReflectorsLive) {
  if (!qr::cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE";
  std::vector<double> a = general_matrix();
  qr::TFactors<double> t(kN, kBlock, kIb);
  auto rt = emulated_runtime(0);
  qr::factorize(*rt, qr_codelets(), a.data(), kN, kLd, kBlock, t, true, MatrixHome::on("emu:0"));
  std::vector<double> q = padded_identity();
  rt->reset_stats();
  qr::form_q(*rt, q_forming_codelets(), a.data(), kLd, t, kN, q.data(), kLd,
             MatrixHome::on("emu:0"));
  const RuntimeStats s = rt->stats();
  EXPECT_GT(s.tasks, 0u);
  EXPECT_GT(s.h2d_copies, 0u);  // the T factors
  EXPECT_EQ(s.d2h_copies, 0u);
  expect_host_q(q, a, t, 1e-13);
}

TEST(DeviceResidentQr, QOnADeviceTheRuntimeDoesNotHaveIsAUsageError) {
  if (!qr::cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE";
  std::vector<double> a = general_matrix(), q = padded_identity();
  qr::TFactors<double> t(kN, kBlock, kIb);
  Runtime rt(host_options());
  EXPECT_THROW(qr::form_q(rt, qr::QFormingCodelets(qr::Precision::Double), a.data(), kLd, t, kN,
                          q.data(), kLd, MatrixHome::on("cuda:3")),
               UsageError);
  EXPECT_THROW(qr::form_q(rt, qr::QFormingCodelets(qr::Precision::Double), a.data(), kLd, t, kN - 1,
                          q.data(), kLd, MatrixHome::host()),
               UsageError);
}

// ---- on a real GPU -----------------------------------------------------------------------------

bool cuda_present() {
  for (const auto& d : all_devices())
    if (d->info().id == "cuda:0") return true;
  return false;
}

// `a` copied into cudaMalloc'd memory, factorised there by `factorize(rt, device_matrix)` on a
// runtime whose only workers are cuda:0's, and copied back into `a`; returns the run's stats.
template <typename Factorize>
RuntimeStats on_cuda(std::vector<double>& a, Factorize factorize) {
  const std::size_t bytes = a.size() * sizeof(double);
  std::unique_ptr<void, void (*)(void*)> block(test::cuda::device_alloc(0, bytes),
                                               test::cuda::device_free);
  test::cuda::copy_to_device(block.get(), a.data(), bytes);
  RuntimeStats stats;
  {
    RuntimeOptions o = host_options();
    o.cpus = 0;
    o.devices = {"cuda:0"};
    Runtime rt(o);
    stats = factorize(rt, static_cast<double*>(block.get()));
  }
  test::cuda::copy_from_device(a.data(), block.get(), bytes);
  return stats;
}

TEST(DeviceResidentCholesky, OnCudaTheMatrixIsFactorisedWhereItLives) {
  if (!cuda_present()) GTEST_SKIP() << "cuda:0 is not present on this machine";
  std::vector<double> a = spd_matrix();
  RuntimeStats s = on_cuda(a, [](Runtime& rt, double* d_a) {
    cholesky::CholeskyCodelets codelets(cholesky::Precision::Double);  // cuBLAS / cuSOLVER
    return cholesky::factorize(rt, codelets, d_a, kN, kLd, kBlock, MatrixHome::on("cuda:0")).stats;
  });
  EXPECT_EQ(s.h2d_copies, 0u);
  EXPECT_EQ(s.d2h_copies, 0u);
  std::vector<double> host = host_cholesky();
  for (int j = 0; j < kN; ++j) {
    for (int i = j; i < kN; ++i)
      ASSERT_NEAR(a[i + j * kLd], host[i + j * kLd], 1e-12 * kN) << "at (" << i << ", " << j << ")";
    for (long i = kN; i < kLd; ++i) ASSERT_EQ(a[i + j * kLd], kPadding) << "padding";
  }
}

TEST(DeviceResidentQr, OnCudaTheMatrixIsFactorisedWhereItLives) {
  if (!cuda_present()) GTEST_SKIP() << "cuda:0 is not present on this machine";
  std::vector<double> a = general_matrix();
  qr::TFactors<double> t(kN, kBlock, kIb);
  RuntimeStats s = on_cuda(a, [&](Runtime& rt, double* d_a) {
    qr::QrCodelets codelets(qr::Precision::Double);  // its own CUDA kernels
    return qr::factorize(rt, codelets, d_a, kN, kLd, kBlock, t, true, MatrixHome::on("cuda:0"))
        .stats;
  });
  EXPECT_EQ(s.h2d_copies, 0u);
  for (int j = 0; j < kN; ++j)
    for (long i = kN; i < kLd; ++i) ASSERT_EQ(a[i + j * kLd], kPadding) << "padding";
  qr::QrCheck c = qr::check_qr(qr::GeneralMatrix(kN), compact(a).data(), kN, t);
  EXPECT_LE(c.residual, qr::residual_bound<double>(kN));
  EXPECT_LE(c.orthogonality, qr::orthogonality_bound<double>(kN));
}

TEST(DeviceResidentQr, OnCudaQIsFormedWhereTheReflectorsLive) {
  if (!cuda_present()) GTEST_SKIP() << "cuda:0 is not present on this machine";
  std::vector<double> a = general_matrix(), q = padded_identity();
  const std::size_t bytes = q.size() * sizeof(double);
  std::unique_ptr<void, void (*)(void*)> d_q(test::cuda::device_alloc(0, bytes),
                                             test::cuda::device_free);
  test::cuda::copy_to_device(d_q.get(), q.data(), bytes);
  qr::TFactors<double> t(kN, kBlock, kIb);
  RuntimeStats s = on_cuda(a, [&](Runtime& rt, double* d_a) {
    qr::factorize(rt, qr::QrCodelets(qr::Precision::Double), d_a, kN, kLd, kBlock, t, true,
                  MatrixHome::on("cuda:0"));
    rt.reset_stats();
    qr::form_q(rt, qr::QFormingCodelets(qr::Precision::Double), d_a, kLd, t, kN,
               static_cast<double*>(d_q.get()), kLd, MatrixHome::on("cuda:0"));
    return rt.stats();
  });
  EXPECT_EQ(s.d2h_copies, 0u);
  test::cuda::copy_from_device(q.data(), d_q.get(), bytes);
  expect_host_q(q, a, t, 1e-12);
}

}  // namespace
}  // namespace conveyor::apps
