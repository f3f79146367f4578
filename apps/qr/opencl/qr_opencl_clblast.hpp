#pragma once
/// The QR updates (gemqrt, tpmqrt, transposed) in blocked WY form through CLBlast, for
/// qr_opencl_launch.cpp: per block of ib reflectors V_b with triangular factor T_b,
/// W = V_b^T C, W = T_b^T W, C -= V_b W, as LAPACK's larfb does, so that their flops are CLBlast
/// gemm calls. Built with CLBlast (qr_opencl_clblast.cpp), else stand-ins that throw
/// (qr_opencl_noclblast.cpp). Arguments as opencl_gemqrt_enqueue's and opencl_tpmqrt_enqueue's;
/// `kernel` is the codelet's, whose program holds the element-wise helpers.
#include <cstddef>

namespace conveyor::apps::qr {

/// Whether the updates run through CLBlast by default (CONVEYOR_OPENCL_BLAS=auto): measured
/// faster than the own kernels on PoCL (docs/results/clblast.md).
inline constexpr bool kClblastUpdatesByDefault = true;

void clblast_gemqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int k,
                            int ib, void* v, int ldv, void* t, int ldt, void* c, int ldc);
void clblast_tpmqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int k,
                            int ib, void* v, int ldv, void* t, int ldt, void* a, int lda, void* b,
                            int ldb);

}  // namespace conveyor::apps::qr
