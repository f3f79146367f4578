// Builds without CUDA: no CUDA device exists, so the runtime never hands a task to these.
#include "conveyor/error.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"

namespace conveyor::test::cuda {
namespace {
[[noreturn]] void none() { throw DeviceError("this build has no CUDA test kernels"); }
}  // namespace

void add_one(int*, std::size_t, void*) { none(); }
void scale(int*, std::size_t, void*) { none(); }
void scale(double*, std::size_t, void*) { none(); }
void accumulate(const int*, int*, std::size_t, void*) { none(); }
void accumulate(const double*, double*, std::size_t, void*) { none(); }
void diff_op(const DiffOp&, void*) { none(); }

}  // namespace conveyor::test::cuda
