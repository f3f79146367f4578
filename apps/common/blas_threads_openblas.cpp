// BLAS thread control through OpenBLAS (built when CMake found OpenBLAS + LAPACKE).
#include <algorithm>
#include <string>
#include <thread>

#include "common/blas_threads.hpp"

// OpenBLAS extensions, declared here because a cblas.h from another BLAS (the Debian alternatives
// may point to netlib's) does not declare them; the library linked is OpenBLAS itself.
extern "C" {
void openblas_set_num_threads(int num_threads);
char* openblas_get_config(void);
}

namespace conveyor::apps::common {

void use_single_threaded_blas() { openblas_set_num_threads(1); }

void use_all_threads_blas() {
  openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

std::string blas_library() { return openblas_get_config(); }

}  // namespace conveyor::apps::common
