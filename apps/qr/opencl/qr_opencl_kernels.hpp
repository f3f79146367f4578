#pragma once
/// OpenCL kernels of the four QR tile kernels (the updates apply Q^T, as the factorisation does,
/// or Q, as forming Q does: q_forming.hpp), one source for both precisions (opencl_qr_options). The
/// updates (gemqrt, tpmqrt) run in blocked WY form whose flops are gemm calls
/// (qr_opencl_blocked.hpp): through CLBlast when Conveyor has it and the device is not a CPU, and
/// through the register-blocked gemm of common/opencl_cpu_gemm.hpp on CPU devices (PoCL); else one
/// work-item per column of the tile they update (common/opencl_blas.hpp, opencl_updates). The
/// panels (geqrt, tpqrt) are blocked by ib as LAPACK's are: each panel of ib columns by one
/// work-group of kOpenclPanelGroup work-items, then the columns right of it by the update, so that
/// only the panels' share of the flops is level-2 code on one work-group. The own kernels'
/// arithmetic is device_kernels.inc's.
///
///   program.source = opencl_qr_source();  program.kernel = kOpenclKernels[0];  // "qr_geqrt"
///   program.options = opencl_qr_options(/*double_precision=*/true);
///   opencl_geqrt_enqueue(queue, kernel, sizeof(double), m, n, ib, a, lda, t, ldt, v, ldv);
///
/// The pointers are cl_mem (passed as void* so that this header needs no OpenCL include); every
/// enqueue returns at once, and throws DeviceError when OpenCL refuses.
#include <cstddef>
#include <string>
#include <string_view>

namespace conveyor::apps::qr {

/// The kernel names, in the order of kCodeletNames (geqrt, gemqrt, tpqrt, tpmqrt).
inline constexpr const char* kOpenclKernels[] = {"qr_geqrt", "qr_gemqrt", "qr_tpqrt", "qr_tpmqrt"};
/// Work-items of a panel kernel's single work-group (a power of two: the sums halve it).
inline constexpr int kOpenclPanelGroup = 64;

/// Which form the updates take. Auto: blocked WY through CLBlast where common::use_clblast says so
/// (devices other than CPUs, kClblastUpdatesByDefault), through the CPU gemm on CPU devices, else
/// one work-item per column. PerColumn forces the last where CLBlast is not asked for (the tests
/// run it on PoCL).
enum class OpenclUpdates { Auto, PerColumn };
void set_opencl_updates(OpenclUpdates updates);
OpenclUpdates opencl_updates();

/// True when Conveyor was built with OpenCL; the enqueue functions throw Error otherwise.
bool opencl_kernels_available();

/// The OpenCL C source (plain text, present in every build), the CPU gemm's appended. Double
/// precision needs cl_khr_fp64; without it the build fails saying so.
std::string_view opencl_qr_source();
/// "-DREAL=float" or "-DREAL=double -DREAL_IS_DOUBLE=1".
std::string opencl_qr_options(bool double_precision);

/// geqrt of the m x n tile a (T: ib x min(m, n)), then a copied to v. Its panels' updates run as
/// opencl_gemqrt_enqueue's.
void opencl_geqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int ib,
                          void* a, int lda, void* t, int ldt, void* v, int ldv);
/// c <- Q^T c (transpose) or Q c for the k reflectors (v, t) of a geqrt; c is m x n. Blocked
/// (qr_opencl_blocked.hpp) or one work-item per column, as opencl_updates says above.
void opencl_gemqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, bool transpose, int m,
                           int n, int k, int ib, void* v, int ldv, void* t, int ldt, void* c,
                           int ldc);
/// tpqrt (l = 0) of the n x n triangle r on the m x n tile b; blocked as geqrt.
void opencl_tpqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int ib,
                          void* r, int ldr, void* b, int ldb, void* t, int ldt);
/// [a; b] <- Q^T [a; b] (transpose) or Q [a; b] for the k reflectors (v, t) of a tpqrt; a is
/// k x n, b m x n. Blocked or per column as opencl_gemqrt_enqueue.
void opencl_tpmqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, bool transpose, int m,
                           int n, int k, int ib, void* v, int ldv, void* t, int ldt, void* a,
                           int lda, void* b, int ldb);

}  // namespace conveyor::apps::qr
