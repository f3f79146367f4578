#pragma once
/// How many threads the BLAS/LAPACK library may use, shared by the apps' CPU tile kernels.
///
/// The runtime runs one task per core; a multithreaded BLAS inside each task would oversubscribe
/// the cores, so every app switches BLAS to one thread before its tasks run, and back to every
/// core for host work outside the task graph (the checks, the whole-matrix peers in bench/).
///
///   use_single_threaded_blas();   // before submitting tile tasks
///   use_all_threads_blas();       // before one big LAPACK call on the host
#include <string>

namespace conveyor::apps::common {

/// Every BLAS call single-threaded. No-op without OpenBLAS.
void use_single_threaded_blas();
/// BLAS may use every core again. No-op without OpenBLAS.
void use_all_threads_blas();
/// "OpenBLAS 0.3.21 ..." (its build configuration), or "" when built without OpenBLAS.
std::string blas_library();

}  // namespace conveyor::apps::common
