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
void* device_alloc(int, std::size_t) { none(); }
void device_free(void*) { none(); }
void copy_to_device(void*, const void*, std::size_t) { none(); }
void copy_from_device(void*, const void*, std::size_t) { none(); }

}  // namespace conveyor::test::cuda
