// Staged streaming through a CUDA device (DeviceStream) for host arrays larger than GPU memory:
// a host-to-device copy engine moves each input block on its own stream into a ring of device
// buffers, the kernel runs on a compute stream, and a device-to-host engine brings the output back
// on a third stream. Events guard every buffer's reuse; `depth` blocks are in flight. The caller's
// arrays are page-locked in place (cudaHostRegister, kept while the mover lives) so the engines
// copy them directly at link speed; where the system refuses, the host copies each block through
// a ring of pinned buffers instead (a memcpy on the host thread each way).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "check.hpp"
#include "conveyor/pipeline.hpp"
#include "cuda_device.hpp"
#include "kernels.hpp"
#include "memory.hpp"

namespace conveyor::backend::cuda {
namespace {

constexpr int kThreads = 256;

class CudaDeviceStream final : public DeviceStream {
 public:
  CudaDeviceStream(int ordinal, const DeviceStreamConfig& config)
      : ordinal_(ordinal), config_(config) {
    use_device(ordinal_);
    int sms = 0;
    CONVEYOR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal_));
    dot_blocks_ = stream_resident_blocks(sms, kThreads);
    h2d_ = make_stream();
    compute_ = make_stream();
    d2h_ = make_stream();
    slots_.resize(static_cast<std::size_t>(config_.depth));
    for (auto& s : slots_) {
      for (int k = 0; k < 2; ++k) {
        s.pinned_in[k] = pinned_alloc(config_.block_bytes);
        s.device_in[k] = device_alloc(config_.block_bytes);
      }
      s.pinned_out = pinned_alloc(config_.block_bytes);
      s.device_out = device_alloc(config_.block_bytes);
      s.partial = device_alloc(sizeof(double) * static_cast<std::size_t>(dot_blocks_));
      s.copied_in = make_event(false);
      s.computed = make_event(false);
      s.copied_out = make_event(false);
    }
  }

  ~CudaDeviceStream() override {
    cudaSetDevice(ordinal_);
    for (const auto& [ptr, bytes] : registered_) cudaHostUnregister(const_cast<void*>(ptr));
  }

  std::string describe() const override {
    return fmt::format(
        "cuda mover: cuda:{}, H2D and D2H copy engines on their own streams, kernels on a "
        "compute stream, {} x 3 device buffers of {} bytes; host arrays {}",
        ordinal_, config_.depth, config_.block_bytes,
        staged_runs_ == 0 ? std::string("page-locked in place and copied directly")
                          : fmt::format("staged through pinned buffers in {} of {} runs "
                                        "(cudaHostRegister refused)",
                                        staged_runs_, runs_));
  }

  double run(StreamKernel kernel, double* a, double* b, double* c, std::size_t n,
             double scalar) override {
    use_device(ordinal_);
    const BlockArrays arrays = stream_block_arrays(kernel, a, b, c, n);
    const int inputs = traits(kernel).words_read;
    const bool dot = kernel == StreamKernel::Dot;
    const std::size_t block = config_.block_bytes / sizeof(double);
    const std::size_t blocks = (n + block - 1) / block;
    double* results =
        dot ? static_cast<double*>(results_.reserve(blocks * sizeof(double))) : nullptr;
    const bool direct = page_lock(arrays, n, inputs);
    ++runs_;
    if (!direct) ++staged_runs_;
    for (auto& s : slots_) s.pending = false;
    try {
      for (std::size_t i = 0; i < blocks; ++i) {
        Slot& s = slots_[i % slots_.size()];
        const std::size_t first = i * block, m = std::min(block, n - first);
        const std::size_t bytes = m * sizeof(double);
        const double* in[2] = {arrays.in0 + first, inputs == 2 ? arrays.in1 + first : nullptr};
        if (!direct) {
          // The slot's pinned inputs are free once its last host-to-device copy finished, and
          // its pinned output holds the result of the block before: deliver that first.
          CONVEYOR_CUDA_CHECK(cudaEventSynchronize(s.copied_in.get()));
          deliver(s, arrays.out);
          for (int k = 0; k < inputs; ++k) {
            std::memcpy(s.pinned_in[k].get(), in[k], bytes);
            in[k] = static_cast<const double*>(s.pinned_in[k].get());
          }
        }
        // Device inputs are free once the slot's previous kernel finished.
        CONVEYOR_CUDA_CHECK(cudaStreamWaitEvent(h2d_.get(), s.computed.get(), 0));
        for (int k = 0; k < inputs; ++k)
          CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(s.device_in[k].get(), in[k], bytes,
                                              cudaMemcpyHostToDevice, h2d_.get()));
        CONVEYOR_CUDA_CHECK(cudaEventRecord(s.copied_in.get(), h2d_.get()));
        // The kernel waits for its inputs and for the slot's output to have left the device.
        CONVEYOR_CUDA_CHECK(cudaStreamWaitEvent(compute_.get(), s.copied_in.get(), 0));
        CONVEYOR_CUDA_CHECK(cudaStreamWaitEvent(compute_.get(), s.copied_out.get(), 0));
        launch(kernel, s, m, scalar);
        CONVEYOR_CUDA_CHECK(cudaEventRecord(s.computed.get(), compute_.get()));
        CONVEYOR_CUDA_CHECK(cudaStreamWaitEvent(d2h_.get(), s.computed.get(), 0));
        if (dot) {
          CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(results + i, s.device_out.get(), sizeof(double),
                                              cudaMemcpyDeviceToHost, d2h_.get()));
        } else {
          void* out = direct ? static_cast<void*>(arrays.out + first) : s.pinned_out.get();
          CONVEYOR_CUDA_CHECK(
              cudaMemcpyAsync(out, s.device_out.get(), bytes, cudaMemcpyDeviceToHost, d2h_.get()));
          s.pending = !direct;
          s.out_first = first;
          s.out_bytes = bytes;
        }
        CONVEYOR_CUDA_CHECK(cudaEventRecord(s.copied_out.get(), d2h_.get()));
      }
      for (auto& s : slots_) deliver(s, arrays.out);
      CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(d2h_.get()));
    } catch (...) {
      // Leave no copy running into pinned buffers that the caller may free.
      cudaStreamSynchronize(h2d_.get());
      cudaStreamSynchronize(compute_.get());
      cudaStreamSynchronize(d2h_.get());
      throw;
    }
    double sum = 0;
    for (std::size_t i = 0; dot && i < blocks; ++i) sum += results[i];
    return sum;
  }

 private:
  struct Slot {
    HostPtr pinned_in[2], pinned_out;
    DevicePtr device_in[2], device_out, partial;
    Event copied_in, computed, copied_out;
    bool pending = false;  // pinned_out holds a block not yet delivered
    std::size_t out_first = 0, out_bytes = 0;
  };

  // Page-locks the arrays of this run (once per array: they stay registered while the mover
  // lives, so repetitions pay nothing); false when the system refuses (a page already registered
  // by someone else, a locked-memory limit): that run is staged.
  bool page_lock(const BlockArrays& arrays, std::size_t n, int inputs) {
    if (n == 0) return true;
    const void* ptrs[3] = {arrays.in0, inputs == 2 ? arrays.in1 : nullptr, arrays.out};
    for (const void* p : ptrs) {
      if (!p) continue;
      const std::size_t bytes = n * sizeof(double);
      auto it = registered_.find(p);
      if (it != registered_.end() && it->second >= bytes) continue;
      if (it != registered_.end()) {
        cudaHostUnregister(const_cast<void*>(p));
        registered_.erase(it);
      }
      if (cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
      registered_[p] = bytes;
    }
    return true;
  }

  // Copies a finished output block from pinned memory to its destination.
  void deliver(Slot& s, double* out) {
    if (!s.pending) return;
    CONVEYOR_CUDA_CHECK(cudaEventSynchronize(s.copied_out.get()));
    std::memcpy(out + s.out_first, s.pinned_out.get(), s.out_bytes);
    s.pending = false;
  }

  void launch(StreamKernel kernel, Slot& s, std::size_t m, double scalar) {
    StreamLaunch l;
    l.threads = kThreads;
    l.blocks = dot_blocks_;
    l.stream = compute_.get();
    auto in0 = static_cast<const double*>(s.device_in[0].get());
    auto in1 = static_cast<const double*>(s.device_in[1].get());
    auto out = static_cast<double*>(s.device_out.get());
    cudaError_t e = cudaSuccess;
    switch (kernel) {
      case StreamKernel::Copy:
        e = launch_copy(in0, out, m, l);
        break;
      case StreamKernel::Scale:
        e = launch_scale(out, in0, scalar, m, l);
        break;
      case StreamKernel::Add:
        e = launch_add(in0, in1, out, m, l);
        break;
      case StreamKernel::Triad:
        e = launch_triad(out, in0, in1, scalar, m, l);
        break;
      case StreamKernel::Dot:
        e = launch_dot(in0, in1, m, static_cast<double*>(s.partial.get()), out, l);
        break;
    }
    CONVEYOR_CUDA_CHECK(e);
  }

  int ordinal_;
  DeviceStreamConfig config_;
  int dot_blocks_ = 1;
  Stream h2d_, compute_, d2h_;
  std::vector<Slot> slots_;
  PinnedBuffer results_;
  std::map<const void*, std::size_t> registered_;  // caller arrays page-locked by page_lock
  long runs_ = 0, staged_runs_ = 0;                // staged: cudaHostRegister was refused
};

}  // namespace

std::unique_ptr<DeviceStream> CudaDevice::make_device_stream(const DeviceStreamConfig& config) {
  return std::make_unique<CudaDeviceStream>(ordinal_, config);
}

}  // namespace conveyor::backend::cuda
