#include "common/opencl_blas.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "conveyor/error.hpp"

namespace conveyor::apps::common {
namespace {

// -1: not read yet; otherwise an OpenclBlas.
std::atomic<int> choice{-1};
std::once_flag env_read;

OpenclBlas checked(OpenclBlas c) {
  if (c == OpenclBlas::Clblast && !clblast_available())
    throw UsageError("OpenCL BLAS 'clblast': Conveyor was built without CLBlast");
  return c;
}

}  // namespace

OpenclBlas parse_opencl_blas(std::string_view text) {
  if (text == "auto") return OpenclBlas::Auto;
  if (text == "own") return OpenclBlas::Own;
  if (text == "clblast") return checked(OpenclBlas::Clblast);
  throw UsageError("CONVEYOR_OPENCL_BLAS: '" + std::string(text) +
                   "' is not one of auto, own, clblast");
}

OpenclBlas opencl_blas() {
  std::call_once(env_read, [] {
    const char* env = std::getenv("CONVEYOR_OPENCL_BLAS");
    int expected = -1;
    const OpenclBlas c = env && *env ? parse_opencl_blas(env) : OpenclBlas::Auto;
    choice.compare_exchange_strong(expected, static_cast<int>(c));
  });
  return static_cast<OpenclBlas>(choice.load());
}

void set_opencl_blas(OpenclBlas c) {
  opencl_blas();  // the environment's value, if any, is read before it is overridden
  choice.store(static_cast<int>(checked(c)));
}

}  // namespace conveyor::apps::common
