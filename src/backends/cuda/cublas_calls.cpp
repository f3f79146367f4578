#include "cublas_calls.hpp"

#include <dlfcn.h>

#include <string>

#include "conveyor/error.hpp"

namespace conveyor::backend::cuda {
namespace {

// Stringizes after expansion: CONVEYOR_CUBLAS_SYMBOL(cublasCreate) is "cublasCreate_v2".
#define CONVEYOR_CUBLAS_SYMBOL(name) CONVEYOR_CUBLAS_SYMBOL_TEXT(name)
#define CONVEYOR_CUBLAS_SYMBOL_TEXT(name) #name

// By the soname a linked library would record (LD_LIBRARY_PATH, the loader's cache), else by the
// file CMake found at configure time (CONVEYOR_CUBLAS_SONAME / _FILE, cmake/Dependencies.cmake).
// Opened for the life of the process: handles outlive any one runtime.
CublasCalls load() {
  void* library = dlopen(CONVEYOR_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::string why = dlerror();
    library = dlopen(CONVEYOR_CUBLAS_FILE, RTLD_NOW | RTLD_LOCAL);
    if (!library)
      throw DeviceError("CUDA: cannot open " CONVEYOR_CUBLAS_SONAME " (" + why +
                        "), nor " CONVEYOR_CUBLAS_FILE);
  }
  CublasCalls calls;
#define CONVEYOR_CUBLAS_RESOLVE(name)                                                       \
  calls.name =                                                                              \
      reinterpret_cast<decltype(calls.name)>(dlsym(library, CONVEYOR_CUBLAS_SYMBOL(name))); \
  if (!calls.name)                                                                          \
    throw DeviceError(std::string("CUDA: " CONVEYOR_CUBLAS_SYMBOL(name) " not found: ") +   \
                      dlerror());
  CONVEYOR_BACKEND_CUBLAS_CALLS(CONVEYOR_CUBLAS_RESOLVE)
  return calls;
}

}  // namespace

const CublasCalls& cublas_calls() {
  static const CublasCalls calls = load();  // a failed load throws, and the next caller tries again
  return calls;
}

}  // namespace conveyor::backend::cuda
