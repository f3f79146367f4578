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
void* open_cublas() {
  if (void* library = dlopen(CONVEYOR_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL)) return library;
  std::string why = dlerror();
  if (void* library = dlopen(CONVEYOR_CUBLAS_FILE, RTLD_NOW | RTLD_LOCAL)) return library;
  throw DeviceError("CUDA: cannot open " CONVEYOR_CUBLAS_SONAME " (" + why +
                    "), nor " CONVEYOR_CUBLAS_FILE);
}

template <typename F>
void resolve(void* library, const char* symbol, F& call) {
  call = reinterpret_cast<F>(dlsym(library, symbol));
  if (!call) throw DeviceError(std::string("CUDA: ") + symbol + " not found: " + dlerror());
}

CublasCalls load() {
  void* library = open_cublas();
  CublasCalls calls;
#define CONVEYOR_CUBLAS_RESOLVE(name) resolve(library, CONVEYOR_CUBLAS_SYMBOL(name), calls.name);
  CONVEYOR_BACKEND_CUBLAS_CALLS(CONVEYOR_CUBLAS_RESOLVE)
  return calls;
}

}  // namespace

const CublasCalls& cublas_calls() {
  static const CublasCalls calls = load();  // a failed load throws, and the next caller tries again
  return calls;
}

}  // namespace conveyor::backend::cuda
