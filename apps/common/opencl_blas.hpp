#pragma once
/// Which code runs the BLAS-shaped parts of the apps' OpenCL kernels: CLBlast (when Conveyor was
/// built with it, CMake option CONVEYOR_WITH_CLBLAST) or the apps' own OpenCL kernels. Auto, the
/// default, takes for each kernel whichever measured faster on PoCL (docs/results/clblast.md);
/// the environment variable CONVEYOR_OPENCL_BLAS=auto|own|clblast, or set_opencl_blas, forces one.
///
///   if (common::use_clblast(kClblastUpdatesByDefault)) ...   // else the own kernel
#include <string_view>

namespace conveyor::apps::common {

enum class OpenclBlas { Auto, Own, Clblast };

/// True when Conveyor was built with CLBlast.
bool clblast_available();

/// "auto", "own" or "clblast"; throws UsageError otherwise, or for "clblast" without CLBlast.
OpenclBlas parse_opencl_blas(std::string_view text);
/// The choice in force: set_opencl_blas's, else CONVEYOR_OPENCL_BLAS's (read once; a bad value
/// throws UsageError), else Auto.
OpenclBlas opencl_blas();
/// Overrides the choice for the whole process (tests run both); throws UsageError for Clblast in a
/// build without it.
void set_opencl_blas(OpenclBlas choice);

/// Whether a kernel whose measured default is `auto_default` runs through CLBlast now.
inline bool use_clblast(bool auto_default) {
  switch (opencl_blas()) {
    case OpenclBlas::Own:
      return false;
    case OpenclBlas::Clblast:
      return true;
    case OpenclBlas::Auto:
      break;
  }
  return auto_default && clblast_available();
}

}  // namespace conveyor::apps::common
