// The offload-cost probes of seed 004 on a CUDA device. Times are host wall-clock around work that
// ends synchronised, because the model T = Td + Tm + bytes/BW describes what the host program waits
// for. Buffers grow lazily and are zeroed when allocated, always before the clock starts.
#include <cublas_v2.h>
#include <fmt/format.h>

#include <limits>

#include "check.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "copy_engine.hpp"
#include "core/seconds_of.hpp"
#include "cublas_calls.hpp"
#include "cuda_device.hpp"
#include "kernels.hpp"
#include "memory.hpp"

namespace conveyor::backend::cuda {
namespace {

struct CublasDestroy {
  void operator()(cublasHandle_t h) const noexcept { cublas_calls().cublasDestroy(h); }
};
using Cublas = std::unique_ptr<cublasContext, CublasDestroy>;

class CudaProbeTarget final : public ProbeTarget {
 public:
  explicit CudaProbeTarget(const CudaDevice& device)
      : ordinal_(device.ordinal()),
        id_(device.info().id),
        // Enough 256-thread blocks to fill every SM; the probe kernels loop over the rest.
        max_blocks_(device.info().compute_units * 8),
        engine_(device.ordinal()) {
    warm_up();
  }
  // cuBLAS and the buffers are released on the device they were made on.
  ~CudaProbeTarget() override { cudaSetDevice(ordinal_); }

  std::vector<MemoryModel> memory_models() const override {
    return {MemoryModel::Pageable, MemoryModel::Pinned, MemoryModel::Mapped};
  }

  // Device-to-device involves no host memory, so it is listed once, under the first model.
  std::vector<Direction> directions(MemoryModel model) const override {
    switch (model) {
      case MemoryModel::Pageable:
        return {Direction::HostToDevice, Direction::DeviceToHost, Direction::DeviceToDevice};
      case MemoryModel::Pinned:
      case MemoryModel::Mapped:
        return {Direction::HostToDevice, Direction::DeviceToHost};
      default:
        return {};
    }
  }

  double transfer(Direction direction, MemoryModel model, std::size_t bytes) override {
    use_device(ordinal_);
    void* device = device_.reserve(bytes);
    if (direction == Direction::DeviceToDevice) {
      void* other = device_other_.reserve(bytes);
      return core::seconds_of([&] { engine_.wait(engine_.copy(other, device, bytes)); });
    }
    const bool to_device = direction == Direction::HostToDevice;
    if (model == MemoryModel::Mapped) {
      // No DMA engine is involved: device threads read or write host memory over the link.
      void* host = mapped_device_pointer(mapped_.reserve(bytes));
      void* dst = to_device ? device : host;
      const void* src = to_device ? host : device;
      return core::seconds_of([&] {
        CONVEYOR_CUDA_CHECK(launch_copy_bytes(dst, src, bytes, max_blocks_, stream()));
        CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
      });
    }
    void* host = host_buffer(model, bytes);
    return core::seconds_of([&] {
      engine_.wait(to_device ? engine_.copy(device, host, bytes)
                             : engine_.copy(host, device, bytes));
    });
  }

  double dispatch_enqueue(int count) override {
    if (count < 1) throw UsageError(fmt::format("dispatch count must be positive, not {}", count));
    use_device(ordinal_);
    const double enqueue = core::seconds_of([&] {
      for (int i = 0; i < count; ++i) CONVEYOR_CUDA_CHECK(launch_empty(stream()));
    });
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
    return enqueue / count;
  }

  double dispatch_roundtrip() override {
    use_device(ordinal_);
    return core::seconds_of([&] {
      CONVEYOR_CUDA_CHECK(launch_empty(stream()));
      CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
    });
  }

  double memory_task(MemoryModel model, std::size_t bytes) override {
    use_device(ordinal_);
    const std::size_t floats = bytes / sizeof(float);
    if (model == MemoryModel::Mapped) {
      auto* data = static_cast<float*>(mapped_device_pointer(mapped_.reserve(bytes)));
      return core::seconds_of([&] {
        CONVEYOR_CUDA_CHECK(launch_touch(data, floats, max_blocks_, stream()));
        CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
      });
    }
    void* host = host_buffer(model, bytes);
    void* device = device_.reserve(bytes);
    return core::seconds_of([&] {
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream()));
      CONVEYOR_CUDA_CHECK(launch_touch(static_cast<float*>(device), floats, max_blocks_, stream()));
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream()));
      CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
    });
  }

  double matmul(int n, const float* a, const float* b, float* c) override {
    if (n < 1) throw UsageError(fmt::format("matrix size must be positive, not {}", n));
    use_device(ordinal_);
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    const std::size_t bytes = elements * sizeof(float);
    auto* da = static_cast<float*>(matrices_.reserve(3 * bytes));
    float* db = da + elements;
    float* dc = db + elements;
    if (!cublas_) {
      cublasHandle_t handle = nullptr;
      CONVEYOR_CUDA_CHECK(cublas_calls().cublasCreate(&handle));
      cublas_.reset(handle);
      CONVEYOR_CUDA_CHECK(cublas_calls().cublasSetStream(handle, stream()));
    }
    // Row-major A, B, C read as column-major are A^T, B^T, C^T, and C^T = B^T A^T: swapping the
    // operands computes the row-major product with no transposition.
    const float one = 1.0f, zero = 0.0f;
    auto sgemm = [&] {
      CONVEYOR_CUDA_CHECK(cublas_calls().cublasSgemm(cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n,
                                                     n, &one, db, n, da, n, &zero, dc, n));
    };
    if (n != warm_n_) {
      // cuBLAS loads the kernel it picks for a shape on first use; keep that out of the timing.
      sgemm();
      CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
      warm_n_ = n;
    }
    return core::seconds_of([&] {
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, stream()));
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, stream()));
      sgemm();
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(c, dc, bytes, cudaMemcpyDeviceToHost, stream()));
      CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
    });
  }

  double md5(std::size_t count, const std::uint8_t* messages, std::uint8_t* digests) override {
    constexpr std::size_t kMessage = 64, kDigest = 16;
    if (count == 0) return 0.0;
    if (count > std::numeric_limits<std::size_t>::max() / (kMessage + kDigest))
      throw UsageError(fmt::format("{} messages is too many", count));
    use_device(ordinal_);
    auto* in = static_cast<std::uint8_t*>(hashes_.reserve(count * (kMessage + kDigest)));
    std::uint8_t* out = in + count * kMessage;
    return core::seconds_of([&] {
      CONVEYOR_CUDA_CHECK(
          cudaMemcpyAsync(in, messages, count * kMessage, cudaMemcpyHostToDevice, stream()));
      CONVEYOR_CUDA_CHECK(launch_md5(in, out, count, max_blocks_, stream()));
      CONVEYOR_CUDA_CHECK(
          cudaMemcpyAsync(digests, out, count * kDigest, cudaMemcpyDeviceToHost, stream()));
      CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
    });
  }

 private:
  cudaStream_t stream() const { return engine_.stream(); }

  void* host_buffer(MemoryModel model, std::size_t bytes) {
    switch (model) {
      case MemoryModel::Pageable:
        return pageable_.reserve(bytes);
      case MemoryModel::Pinned:
        return pinned_.reserve(bytes);
      default:
        throw UsageError(fmt::format("{} supports pageable, pinned and mapped host memory, not {}",
                                     id_, to_string(model)));
    }
  }

  // The runtime loads each kernel on its first launch (lazy module loading); do that once, here, so
  // that no probe times it.
  void warm_up() {
    use_device(ordinal_);
    auto* scratch = static_cast<std::uint8_t*>(device_.reserve(4096));
    CONVEYOR_CUDA_CHECK(launch_empty(stream()));
    CONVEYOR_CUDA_CHECK(
        launch_touch(reinterpret_cast<float*>(scratch), 256, max_blocks_, stream()));
    CONVEYOR_CUDA_CHECK(launch_copy_bytes(scratch + 2048, scratch, 1024, max_blocks_, stream()));
    CONVEYOR_CUDA_CHECK(launch_md5(scratch, scratch + 1024, 1, max_blocks_, stream()));
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  int ordinal_;
  std::string id_;
  int max_blocks_;
  CopyEngine engine_;  // its stream orders every probe's work
  DeviceBuffer device_, device_other_, matrices_, hashes_;
  PageableBuffer pageable_;
  PinnedBuffer pinned_;
  MappedBuffer mapped_;
  Cublas cublas_;
  int warm_n_ = 0;
};

}  // namespace

std::unique_ptr<ProbeTarget> CudaDevice::make_probe_target() {
  return std::make_unique<CudaProbeTarget>(*this);
}

}  // namespace conveyor::backend::cuda
