#include <dlfcn.h>

#include <string>

#include "common/cuda/cuda_math.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::common {
namespace {

// Stringizes after expansion: CONVEYOR_SYMBOL(cublasCreate) is "cublasCreate_v2".
#define CONVEYOR_SYMBOL(name) CONVEYOR_SYMBOL_TEXT(name)
#define CONVEYOR_SYMBOL_TEXT(name) #name

// By the soname a linked library would record (LD_LIBRARY_PATH, the loader's cache), else by
// the file CMake found at configure time (CONVEYOR_<LIB>_SONAME / _FILE, cmake/Dependencies.cmake).
void* open_library(const char* soname, const char* configured) {
  if (void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) return library;
  std::string why = dlerror();
  if (void* library = dlopen(configured, RTLD_NOW | RTLD_LOCAL)) return library;
  throw DeviceError(std::string("CUDA: cannot open ") + soname + " (" + why + "), nor " +
                    configured);
}

template <typename F>
void resolve(void* library, const char* symbol, F& call) {
  call = reinterpret_cast<F>(dlsym(library, symbol));
  if (!call) throw DeviceError(std::string("CUDA: ") + symbol + " not found: " + dlerror());
}

CudaMath load() {
  // Opened for the life of the process: handles and kernels outlive any one runtime.
  void* blas = open_library(CONVEYOR_CUBLAS_SONAME, CONVEYOR_CUBLAS_FILE);
  void* solver = open_library(CONVEYOR_CUSOLVER_SONAME, CONVEYOR_CUSOLVER_FILE);
  CudaMath calls;
#define CONVEYOR_FROM_BLAS(name) resolve(blas, CONVEYOR_SYMBOL(name), calls.name);
#define CONVEYOR_FROM_SOLVER(name) resolve(solver, CONVEYOR_SYMBOL(name), calls.name);
  CONVEYOR_CUBLAS_CALLS(CONVEYOR_FROM_BLAS)
  CONVEYOR_CUSOLVER_CALLS(CONVEYOR_FROM_SOLVER)
  return calls;
}

}  // namespace

const CudaMath& cuda_math() {
  static const CudaMath calls = load();  // a failed load throws, and the next caller tries again
  return calls;
}

}  // namespace conveyor::apps::common
