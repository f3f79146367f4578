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

/// What OPENBLAS_CORETYPE should say on this CPU when OpenBLAS's own detection fell back to its
/// generic kernels ("Prescott", for a CPU newer than the library: an Emerald Rapids Xeon under
/// Debian 12's OpenBLAS 0.3.21 runs dgeqrf 3x slower so): "SkylakeX" where the CPU and the OS
/// have AVX-512 (F, CD, BW, DQ, VL), "Haswell" where they have AVX2 and FMA; "" when the detection
/// found the CPU, OPENBLAS_CORETYPE is set already (the user's choice stands), nothing better is
/// there, or the BLAS is not OpenBLAS. OpenBLAS reads the variable once, when it is loaded: a
/// process has to start again with it (restart_with_the_cpus_blas_kernels).
std::string better_openblas_core();

/// First thing in main: where better_openblas_core() names better kernels, sets
/// OPENBLAS_CORETYPE and starts the program again as the same process (execv of /proc/self/exe
/// with argv), so that OpenBLAS loads with them. The variable stays set, so this happens at most
/// once; where the exec fails, the program goes on with the generic kernels (correct, slower).
void restart_with_the_cpus_blas_kernels(char** argv);

}  // namespace conveyor::apps::common
