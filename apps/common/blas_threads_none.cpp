// Built when CMake found no OpenBLAS/LAPACKE: there is no BLAS whose threads could be set.
#include "common/blas_threads.hpp"

namespace conveyor::apps::common {

void use_single_threaded_blas() {}
void use_all_threads_blas() {}
std::string blas_library() { return ""; }

}  // namespace conveyor::apps::common
