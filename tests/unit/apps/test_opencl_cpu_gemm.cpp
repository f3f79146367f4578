// The CPU devices' OpenCL gemm (common/opencl_cpu_gemm.hpp) against a plain loop, for each form
// (A B, A B^T, A^T B) and every vector the source can choose, forced through CPU_GEMM_VBYTES so
// that a machine without AVX-512 still checks that block's code: 2, 4 and 8 lanes in double (16-,
// 32- and 64-byte vectors), 16 in single (64 bytes; single's 4 and 8 lanes are the same code, and
// the QR and Cholesky device tests run the machine's own width in both precisions). Ragged sizes,
// k longer than one chunk of the kernel, k = 0, offsets into the buffers, and beta = 0 over a C
// full of NaN (which must not be read).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/opencl_cpu_gemm.hpp"
#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::apps::common {
namespace {

constexpr const char* kPrelude = R"CLC(
#ifdef REAL_IS_DOUBLE
#  pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
)CLC";

struct Form {
  bool trans_a, trans_b;
  const char* name;
};
const Form kForms[] = {{false, false, "A B"}, {false, true, "A B^T"}, {true, false, "A^T B"}};

struct Case {
  int m, n, k;
  double alpha, beta;
};
// 300: longer than the kernel's chunk of k (256); 100 columns: a strip of full blocks and a ragged
// one whatever NR is; 37 x 29: rows past the last full block.
const Case kCases[] = {{37, 29, 17, -1.0, 1.0},
                       {64, 100, 300, 1.5, 0.5},
                       {24, 7, 0, 2.0, -1.0},
                       {33, 61, 40, -0.5, 0.0}};

class OpenclCpuGemm : public test::PerDevice {
 protected:
  void SetUp() override {
    test::PerDevice::SetUp();
    if (IsSkipped()) return;
    if (device().info().kind != DeviceKind::OpenCL) GTEST_SKIP() << "OpenCL only";
  }

  template <typename T>
  void check(int vbytes) {
    const bool dp = std::is_same_v<T, double>;
    if (dp && !device_details(device().info()).value("fp64", false)) GTEST_SKIP() << "no fp64";
    RuntimeOptions options;
    options.cpus = 0;
    options.devices = {GetParam()};
    options.scheduler = "eager";
    Runtime rt(options);
    std::string build = dp ? "-DREAL=double -DREAL_IS_DOUBLE=1" : "-DREAL=float";
    build += " -DCPU_GEMM_VBYTES=" + std::to_string(vbytes);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (const Form& form : kForms) {
      for (const Case& c : kCases) {
        SCOPED_TRACE(::testing::Message() << form.name << " " << c.m << "x" << c.n << "x" << c.k
                                          << " beta " << c.beta << " vbytes " << vbytes);
        // Each operand at an offset inside its buffer, with a leading dimension past its rows.
        const int a_rows = form.trans_a ? c.k : c.m, a_cols = form.trans_a ? c.m : c.k;
        const int b_rows = form.trans_b ? c.n : c.k, b_cols = form.trans_b ? c.k : c.n;
        const int lda = a_rows + 3, ldb = b_rows + 5, ldc = c.m + 2;
        const std::size_t a_off = 7, b_off = 2, c_off = 11;
        std::vector<T> a(a_off + std::size_t(lda) * a_cols + 1),
            b(b_off + std::size_t(ldb) * b_cols + 1), cm(c_off + std::size_t(ldc) * c.n + 1);
        for (T& x : a) x = T(dist(rng));
        for (T& x : b) x = T(dist(rng));
        for (T& x : cm) x = c.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : T(dist(rng));
        std::vector<T> want = cm;
        for (int j = 0; j < c.n; ++j)
          for (int i = 0; i < c.m; ++i) {
            double s = 0;
            for (int p = 0; p < c.k; ++p) {
              const double av = form.trans_a ? a[a_off + p + std::size_t(i) * lda]
                                             : a[a_off + i + std::size_t(p) * lda];
              const double bv = form.trans_b ? b[b_off + j + std::size_t(p) * ldb]
                                             : b[b_off + p + std::size_t(j) * ldb];
              s += av * bv;
            }
            T& w = want[c_off + i + std::size_t(j) * ldc];
            w = T(c.alpha * s + (c.beta == 0 ? 0.0 : c.beta * double(w)));
          }
        run(rt, build, sizeof(T), form, c, a, a_off, lda, b, b_off, ldb, cm, c_off, ldc);
        const double tol = 4.0 * (c.k + 2) * std::numeric_limits<T>::epsilon();
        for (std::size_t idx = 0; idx < cm.size(); ++idx) {
          const std::size_t rel = idx - c_off;
          const bool inside = idx >= c_off && int(rel % ldc) < c.m && int(rel / ldc) < c.n;
          if (inside)
            ASSERT_NEAR(double(cm[idx]), double(want[idx]), tol) << "entry " << idx;
          else if (std::isnan(double(want[idx])))
            ASSERT_TRUE(std::isnan(double(cm[idx]))) << "entry " << idx << " outside C changed";
          else
            ASSERT_EQ(cm[idx], want[idx]) << "entry " << idx << " outside C changed";
        }
      }
    }
  }

  template <typename T>
  void run(Runtime& rt, const std::string& build, std::size_t elem_size, const Form& form,
           const Case& c, std::vector<T>& a, std::size_t a_off, int lda, std::vector<T>& b,
           std::size_t b_off, int ldb, std::vector<T>& cm, std::size_t c_off, int ldc) {
    Codelet gemm("gemm");
    OpenclProgram program;
    program.source = std::string(kPrelude) + std::string(opencl_cpu_gemm_source());
    program.kernel = form.trans_a ? "cpu_gemm_tn" : "cpu_gemm_n";
    program.options = build;
    gemm.opencl(program, [&](const TaskContext& t) {
      opencl_cpu_gemm_enqueue(t.opencl_queue(), t.opencl_kernel(), elem_size, form.trans_a,
                              form.trans_b, c.m, c.n, c.k, c.alpha, t.opencl_mem(0), a_off, lda,
                              t.opencl_mem(1), b_off, ldb, c.beta, t.opencl_mem(2), c_off, ldc);
    });
    Data da = rt.register_vector(a.data(), a.size());
    Data db = rt.register_vector(b.data(), b.size());
    Data dc = rt.register_vector(cm.data(), cm.size());
    rt.submit(gemm, {{da, Access::Read}, {db, Access::Read}, {dc, Access::ReadWrite}});
    rt.wait_all();
    rt.unregister(da);
    rt.unregister(db);
    rt.unregister(dc);
  }
};

TEST_P(OpenclCpuGemm, EveryFormAndRegisterBlockMatchesALoopInSingle) { check<float>(64); }
TEST_P(OpenclCpuGemm, EveryFormAndRegisterBlockMatchesALoopInDouble) {
  for (int vbytes : {16, 32, 64}) check<double>(vbytes);
}

CONVEYOR_INSTANTIATE_PER_ACCELERATOR(OpenclCpuGemm);

}  // namespace
}  // namespace conveyor::apps::common
