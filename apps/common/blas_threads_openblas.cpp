// BLAS thread control through OpenBLAS (built when CMake found OpenBLAS + LAPACKE).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/blas_threads.hpp"

// OpenBLAS extensions, declared here because a cblas.h from another BLAS (the Debian alternatives
// may point to netlib's) does not declare them; the library linked is OpenBLAS itself.
extern "C" {
void openblas_set_num_threads(int num_threads);
char* openblas_get_config(void);
char* openblas_get_corename(void);
}

namespace conveyor::apps::common {

void use_single_threaded_blas() { openblas_set_num_threads(1); }

void use_all_threads_blas() {
  openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

std::string blas_library() { return openblas_get_config(); }

std::string better_openblas_core() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return "";
  // OpenBLAS's DYNAMIC_ARCH takes Prescott when it does not know the CPU's family and model.
  if (std::strcmp(openblas_get_corename(), "Prescott") != 0) return "";
#if defined(__x86_64__) && defined(__GNUC__)
  // __builtin_cpu_supports counts a feature only when the OS saves its registers too (XCR0).
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

void restart_with_the_cpus_blas_kernels(char** argv) {
  const std::string core = better_openblas_core();
  if (core.empty()) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  execv("/proc/self/exe", argv);
}

}  // namespace conveyor::apps::common
