#include "check.hpp"

#include <fmt/format.h>

#include <string_view>

#include "conveyor/error.hpp"
#include "cublas_calls.hpp"

namespace conveyor::backend::cuda {
namespace {

// __FILE__ is absolute; the part from "src/" on is what a reader needs to find the line.
std::string_view short_path(std::string_view file) {
  auto at = file.rfind("src/");
  return at == std::string_view::npos ? file : file.substr(at);
}

}  // namespace

std::string describe(cudaError_t error) {
  return fmt::format("{}: {}", cudaGetErrorName(error), cudaGetErrorString(error));
}

void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  // Clears a non-sticky error so that it does not resurface in the next unrelated check.
  cudaGetLastError();
  throw DeviceError(
      fmt::format("{} failed: {} ({}:{})", call, describe(error), short_path(file), line));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw DeviceError(
      fmt::format("{} failed: {}: {} ({}:{})", call, cublas_calls().cublasGetStatusName(status),
                  cublas_calls().cublasGetStatusString(status), short_path(file), line));
}

}  // namespace conveyor::backend::cuda
