// Built when CMake found no OpenBLAS/LAPACKE: there is no BLAS whose threads could be set.
#include "common/blas_threads.hpp"

namespace conveyor::apps::common {

void use_single_threaded_blas() {}
void use_all_threads_blas() {}
std::string blas_library() { return ""; }
std::string better_openblas_core() { return ""; }
void restart_with_the_cpus_blas_kernels(char**) {}

}  // namespace conveyor::apps::common
