// STREAM arrays in device memory. Kernel times come from CUDA events around the launch on the
// arrays' own stream; Dot's time includes its second reduction pass and the 8-byte copy of the sum
// to the host.
#include <fmt/format.h>

#include <limits>

#include "check.hpp"
#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/units.hpp"
#include "cuda_device.hpp"
#include "kernels.hpp"
#include "memory.hpp"

namespace conveyor::backend::cuda {
namespace {

// Standard: 1024 threads, one element each (as BabelStream's CUDA model does). Tuned: fewer threads
// per block so that several blocks share an SM, each moving 16 bytes per load over a grid-stride
// loop.
constexpr int kStandardThreads = 1024;
constexpr int kTunedThreads = 256;

class CudaStreamArrays final : public StreamArrays {
 public:
  CudaStreamArrays(const CudaDevice& device, const StreamConfig& config)
      : ordinal_(device.ordinal()), id_(device.info().id), n_(config.elements) {
    if (n_ == 0) throw UsageError("STREAM needs at least one element");
    if (n_ > std::numeric_limits<std::size_t>::max() / (3 * sizeof(double)))
      throw UsageError(fmt::format("{} elements per array is too many", n_));
    use_device(ordinal_);
    launch_.vectorised = config.variant == StreamVariant::Tuned;
    launch_.threads = launch_.vectorised ? kTunedThreads : kStandardThreads;
    launch_.blocks = stream_resident_blocks(device.info().compute_units, launch_.threads);

    const std::size_t array_bytes = n_ * sizeof(double);
    const std::size_t needed = 3 * array_bytes + (launch_.blocks + 1) * sizeof(double);
    std::size_t free_bytes = 0, total_bytes = 0;
    CONVEYOR_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > free_bytes)
      throw UsageError(
          fmt::format("{}: three arrays of {} doubles need {} ({} each) but only {} of {} is free",
                      id_, n_, format_bytes(needed), format_bytes(array_bytes),
                      format_bytes(free_bytes), format_bytes(total_bytes)));

    a_ = device_alloc(array_bytes);
    b_ = device_alloc(array_bytes);
    c_ = device_alloc(array_bytes);
    partial_ = device_alloc((launch_.blocks + 1) * sizeof(double));
    dot_host_ = pinned_alloc(sizeof(double));
    stream_ = make_stream();
    start_ = make_event();
    stop_ = make_event();
    launch_.stream = stream_.get();
    warm_up();
  }
  // Frees on the device the arrays were made on.
  ~CudaStreamArrays() override { cudaSetDevice(ordinal_); }

  void initialize(double a, double b, double c) override {
    use_device(ordinal_);
    CONVEYOR_CUDA_CHECK(launch_stream_init(ptr(a_), ptr(b_), ptr(c_), a, b, c, n_, launch_));
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  double run(StreamKernel kernel, double scalar, double* dot) override {
    use_device(ordinal_);
    double *a = ptr(a_), *b = ptr(b_), *c = ptr(c_);
    double* sum = ptr(partial_) + launch_.blocks;
    CONVEYOR_CUDA_CHECK(cudaEventRecord(start_.get(), stream_.get()));
    switch (kernel) {
      case StreamKernel::Copy:
        CONVEYOR_CUDA_CHECK(launch_copy(a, c, n_, launch_));
        break;
      case StreamKernel::Scale:
        CONVEYOR_CUDA_CHECK(launch_scale(b, c, scalar, n_, launch_));
        break;
      case StreamKernel::Add:
        CONVEYOR_CUDA_CHECK(launch_add(a, b, c, n_, launch_));
        break;
      case StreamKernel::Triad:
        CONVEYOR_CUDA_CHECK(launch_triad(a, b, c, scalar, n_, launch_));
        break;
      case StreamKernel::Dot:
        CONVEYOR_CUDA_CHECK(launch_dot(a, b, n_, ptr(partial_), sum, launch_));
        CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(dot_host_.get(), sum, sizeof(double),
                                            cudaMemcpyDeviceToHost, stream_.get()));
        break;
    }
    CONVEYOR_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_.get()));
    CONVEYOR_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    CONVEYOR_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    if (kernel == StreamKernel::Dot && dot) *dot = *static_cast<const double*>(dot_host_.get());
    return ms * 1e-3;
  }

  void read_back(std::vector<double>& a, std::vector<double>& b, std::vector<double>& c) override {
    use_device(ordinal_);
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    for (auto [host, device] : {std::pair{&a, &a_}, std::pair{&b, &b_}, std::pair{&c, &c_}}) {
      host->resize(n_);
      CONVEYOR_CUDA_CHECK(
          cudaMemcpy(host->data(), device->get(), n_ * sizeof(double), cudaMemcpyDeviceToHost));
    }
  }

  nlohmann::json placement() const override {
    return {{"device", id_},
            {"memory", "device (cudaMalloc)"},
            {"threads_per_block", launch_.threads},
            {"grid_stride_blocks", launch_.blocks},
            {"vector_width", launch_.vectorised ? 2 : 1},
            {"timer", "cuda events"}};
  }

 private:
  static double* ptr(const DevicePtr& p) { return static_cast<double*>(p.get()); }

  // The runtime loads each kernel on its first launch (lazy module loading): launch every one once
  // on a single element so that no timed run pays for it.
  void warm_up() {
    double *a = ptr(a_), *b = ptr(b_), *c = ptr(c_);
    CONVEYOR_CUDA_CHECK(launch_stream_init(a, b, c, 0, 0, 0, 1, launch_));
    CONVEYOR_CUDA_CHECK(launch_copy(a, c, 1, launch_));
    CONVEYOR_CUDA_CHECK(launch_scale(b, c, 1, 1, launch_));
    CONVEYOR_CUDA_CHECK(launch_add(a, b, c, 1, launch_));
    CONVEYOR_CUDA_CHECK(launch_triad(a, b, c, 1, 1, launch_));
    CONVEYOR_CUDA_CHECK(
        launch_dot(a, b, 1, ptr(partial_), ptr(partial_) + launch_.blocks, launch_));
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  int ordinal_;
  std::string id_;
  std::size_t n_;
  StreamLaunch launch_;
  DevicePtr a_, b_, c_, partial_;  // partial_: one sum per block, then the total
  HostPtr dot_host_;
  Stream stream_;
  Event start_, stop_;
};

}  // namespace

std::unique_ptr<StreamArrays> CudaDevice::make_stream_arrays(const StreamConfig& config) {
  return std::make_unique<CudaStreamArrays>(*this, config);
}

}  // namespace conveyor::backend::cuda
