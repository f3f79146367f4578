// Staged streaming through an OpenCL device (DeviceStream): host arrays go to the device block by
// block on a write queue, are computed on a compute queue and come back on a read queue; a ring of
// `depth` device buffer sets, with events guarding each buffer's reuse, so arrays of any size pass
// through a fixed amount of device memory.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "conveyor/pipeline.hpp"
#include "opencl_device.hpp"

namespace conveyor::backend::opencl {
namespace {

constexpr const char* kBlockSource = R"CLC(
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
// One kernel for every STREAM operation on a block: out = f(in0, in1). Dot writes one partial sum
// per work-item of DOT_RUN contiguous elements; the host adds them up.
__kernel void block_stream(__global const double* in0, __global const double* in1,
                           __global double* out, double s, ulong n, int op) {
  size_t i = get_global_id(0);
  if (op == 4) {
    size_t first = i * DOT_RUN;
    double sum = 0.0;
    for (size_t j = first; j < first + DOT_RUN && j < n; ++j) sum += in0[j] * in1[j];
    if (first < n) out[i] = sum;
    return;
  }
  if (i >= n) return;
  switch (op) {
    case 0: out[i] = in0[i]; break;
    case 1: out[i] = s * in0[i]; break;
    case 2: out[i] = in0[i] + in1[i]; break;
    case 3: out[i] = in0[i] + s * in1[i]; break;
  }
}
)CLC";
constexpr std::size_t kDotRun = 64;
constexpr std::size_t kLocal = 64;

class OpenCLDeviceStream final : public DeviceStream {
 public:
  OpenCLDeviceStream(std::shared_ptr<DeviceContext> context, const DeviceStreamConfig& config)
      : context_(std::move(context)), config_(config) {
    const auto& facts = context_->facts();
    if (!facts.fp64) throw UsageError(fmt::format("{} has no double precision", facts.id));
    if (config_.block_bytes > facts.max_alloc_bytes)
      throw UsageError(fmt::format("--block {} exceeds {}'s largest buffer ({} bytes)",
                                   config_.block_bytes, facts.id, facts.max_alloc_bytes));
    if (3 * config_.block_bytes * static_cast<std::size_t>(config_.depth) > facts.global_mem_bytes)
      throw UsageError(fmt::format("{} blocks of 3 x {} bytes do not fit in {}'s memory",
                                   config_.depth, config_.block_bytes, facts.id));
    kernel_ = context_->kernel(kBlockSource, "block_stream", fmt::format("-DDOT_RUN={}", kDotRun));
    write_ = context_->make_queue();
    compute_ = context_->make_queue();
    read_ = context_->make_queue();
    slots_.resize(static_cast<std::size_t>(config_.depth));
    for (auto& slot : slots_)
      for (auto& m : slot.mem)
        m = Mem(CONVEYOR_CL_CREATE(clCreateBuffer(context_->get(), CL_MEM_READ_WRITE,
                                                  config_.block_bytes, nullptr, &cl_err)));
  }

  std::string describe() const override {
    return fmt::format(
        "opencl mover: {} ({}), write / compute / read queues, {} x 3 device "
        "buffers of {} bytes",
        context_->facts().id, context_->facts().name, config_.depth, config_.block_bytes);
  }

  double run(StreamKernel kernel, double* a, double* b, double* c, std::size_t n,
             double scalar) override {
    const BlockArrays arrays = stream_block_arrays(kernel, a, b, c, n);
    const int inputs = traits(kernel).words_read;
    const bool dot = kernel == StreamKernel::Dot;
    const int op = static_cast<int>(kernel);
    const std::size_t block = config_.block_bytes / sizeof(double);
    const std::size_t blocks = (n + block - 1) / block;
    std::vector<std::vector<double>> partials(dot ? blocks : 0);
    try {
      for (std::size_t i = 0; i < blocks; ++i) {
        Slot& slot = slots_[i % slots_.size()];
        const std::size_t first = i * block, m = std::min(block, n - first);
        const double* in[2] = {arrays.in0 + first, inputs == 2 ? arrays.in1 + first : nullptr};
        // The inputs of this slot are free once the previous block in it was computed.
        std::vector<cl_event> after_compute;
        if (slot.computed) after_compute.push_back(slot.computed.get());
        for (int k = 0; k < inputs; ++k)
          CONVEYOR_CL_CHECK(clEnqueueWriteBuffer(write_.get(), slot.mem[k].get(), CL_FALSE, 0,
                                                 m * sizeof(double), in[k],
                                                 static_cast<cl_uint>(after_compute.size()),
                                                 after_compute.data(), slot.written[k].out()));
        // The output buffer is free once the previous block's result was read back.
        std::vector<cl_event> ready;
        for (int k = 0; k < inputs; ++k) ready.push_back(slot.written[k].get());
        if (slot.read) ready.push_back(slot.read.get());
        cl_mem in1 = slot.mem[inputs == 2 ? 1 : 0].get();
        const cl_ulong count = m;
        set_arg(kernel_.get(), 0, slot.mem[0].get());
        set_arg(kernel_.get(), 1, in1);
        set_arg(kernel_.get(), 2, slot.mem[2].get());
        set_arg(kernel_.get(), 3, scalar);
        set_arg(kernel_.get(), 4, count);
        set_arg(kernel_.get(), 5, op);
        const std::size_t items = dot ? (m + kDotRun - 1) / kDotRun : m;
        const std::size_t global = round_up(items, kLocal);
        CONVEYOR_CL_CHECK(clEnqueueNDRangeKernel(compute_.get(), kernel_.get(), 1, nullptr, &global,
                                                 &kLocal, static_cast<cl_uint>(ready.size()),
                                                 ready.data(), slot.computed.out()));
        void* target = arrays.out + first;
        std::size_t bytes = m * sizeof(double);
        if (dot) {
          partials[i].resize(items);
          target = partials[i].data();
          bytes = items * sizeof(double);
        }
        cl_event computed = slot.computed.get();
        CONVEYOR_CL_CHECK(clEnqueueReadBuffer(read_.get(), slot.mem[2].get(), CL_FALSE, 0, bytes,
                                              target, 1, &computed, slot.read.out()));
        CONVEYOR_CL_CHECK(clFlush(write_.get()));
        CONVEYOR_CL_CHECK(clFlush(compute_.get()));
        CONVEYOR_CL_CHECK(clFlush(read_.get()));
      }
      finish();
    } catch (...) {
      finish_quietly();  // nothing may still write into the caller's arrays
      throw;
    }
    double sum = 0;
    for (const auto& p : partials)
      for (double v : p) sum += v;
    return sum;
  }

 private:
  struct Slot {
    Mem mem[3];  // in0, in1, out
    Event written[2], computed, read;
  };
  void finish() {
    CONVEYOR_CL_CHECK(clFinish(write_.get()));
    CONVEYOR_CL_CHECK(clFinish(compute_.get()));
    CONVEYOR_CL_CHECK(clFinish(read_.get()));
  }
  void finish_quietly() {
    clFinish(write_.get());
    clFinish(compute_.get());
    clFinish(read_.get());
  }

  std::shared_ptr<DeviceContext> context_;
  DeviceStreamConfig config_;
  Kernel kernel_;
  Queue write_, compute_, read_;
  std::vector<Slot> slots_;
};

}  // namespace

std::unique_ptr<DeviceStream> OpenCLDevice::make_device_stream(const DeviceStreamConfig& config) {
  return std::make_unique<OpenCLDeviceStream>(context(), config);
}

}  // namespace conveyor::backend::opencl
