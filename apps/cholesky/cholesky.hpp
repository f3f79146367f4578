#pragma once
/// Tiled right-looking block Cholesky factorisation A = L L^T on the Conveyor runtime (seed 003's
/// evaluation application). Every step k submits
///
///   potrf(A_kk)                         A_kk ReadWrite
///   trsm(A_kk, A_ik)        i > k       A_kk Read,  A_ik ReadWrite
///   syrk(A_ik, A_ii)        i > k       A_ik Read,  A_ii ReadWrite
///   gemm(A_ik, A_jk, A_ij)  i > j > k   A_ik Read,  A_jk Read, A_ij ReadWrite
///
/// in program order; the runtime infers the dependencies, places the tasks (e.g. gemm offloaded),
/// and moves the tiles. The tasks of the panel the next step needs get higher priorities, so the
/// critical path (potrf -> trsm -> syrk/gemm of the next column -> potrf) is not starved by the
/// many gemm tasks of later columns.
///
///   conveyor::RuntimeOptions ro;  ro.devices = {"opencl:0"};  ro.scheduler = "offload";
///   ro.offload = {"gemm"};
///   conveyor::Runtime rt(ro);
///   CholeskyCodelets codelets(Precision::Single);
///   std::vector<float> a(n * n);  SpdMatrix(n).fill(a.data(), n);
///   auto run = factorize(rt, codelets, a.data(), n, n, 256);   // a now holds L (lower)
///   std::cout << run.stats.h2d_copies;
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/matrix_home.hpp"
#include "common/precision.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor::apps::cholesky {

/// Single or double (shared by the apps, common/precision.hpp): to_string gives "single" /
/// "double", parse_precision takes "s", "single", "float" / "d", "double".
using common::MatrixHome;
using common::parse_precision;
using common::Precision;
using common::to_string;

/// The names of the four codelets, as used in RuntimeOptions::offload and the trace.
inline constexpr const char* kCodeletNames[] = {"potrf", "trsm", "syrk", "gemm"};
/// Whether `name` is one of kCodeletNames.
bool is_codelet_name(std::string_view name);

/// The four codelets for one precision: CPU implementations always; CUDA ones (cuBLAS/cuSOLVER)
/// when built with CUDA; an OpenCL one for gemm when built with OpenCL.
struct CholeskyCodelets {
  /// `simulated`: every codelet also gets a CUDA implementation when the build has none, so that
  /// a simulated platform's devices (CUDA kind, docs/simulation.md) can be given any of them; it
  /// is never called there (a simulated device models the task, or runs the CPU implementation).
  explicit CholeskyCodelets(Precision precision, bool simulated = false);
  Precision precision;
  Codelet potrf, trsm, syrk, gemm;
  const Codelet* find(std::string_view name) const;
};

/// What one factorisation did.
struct Factorization {
  double time_s = 0;  ///< from the first submit until wait_all returned (Runtime::seconds: virtual
                      ///< on a simulated platform)
  int tiles = 0;      ///< tiles per side (the last row/column may be narrower)
  std::uint64_t potrf_tasks = 0, trsm_tasks = 0, syrk_tasks = 0, gemm_tasks = 0;
  RuntimeStats stats;  ///< copies and worker counts of this factorisation alone
  std::uint64_t total_tasks() const { return potrf_tasks + trsm_tasks + syrk_tasks + gemm_tasks; }
};

/// Work of each codelet's task from its buffers (potrf n^3/3, trsm m n^2, syrk n^2 k, gemm 2 m n
/// k), set as the codelets' flops functions: simulated platforms and cost models use it.
double potrf_flops(const TaskContext& t);
double trsm_flops(const TaskContext& t);
double syrk_flops(const TaskContext& t);
double gemm_flops(const TaskContext& t);

/// Factorises the n x n column-major matrix at `a` (leading dimension `ld`) in place: L ends in the
/// lower triangle, the strict upper triangle is left as it was. Tiles are `block` x `block` (the
/// last ones narrower when block does not divide n). The tiles are registered with `rt` one by one
/// and unregistered at the end, so `a` holds the result on return. Resets rt's statistics first.
/// T must match codelets.precision (float for Single, double for Double). `home`: where `a` lives,
/// host memory (default) or one of rt's devices (each tile a strided device home there: tasks on
/// that device use it in place, and L is left there). Throws UsageError for a bad size or a home
/// device rt does not have, Error when a task fails (e.g. a tile that is not positive definite).
template <typename T>
Factorization factorize(Runtime& rt, const CholeskyCodelets& codelets, T* a, int n, long ld,
                        int block, const MatrixHome& home = {});

/// Number of tasks of each kind for `tiles` tiles per side: potrf t, trsm and syrk t(t-1)/2, gemm
/// t(t-1)(t-2)/6 (seed 003: t = 32 gives 5984 tasks, 4960 of them gemm).
struct TaskCounts {
  std::uint64_t potrf, trsm, syrk, gemm;
};
TaskCounts task_counts(int tiles);

}  // namespace conveyor::apps::cholesky
