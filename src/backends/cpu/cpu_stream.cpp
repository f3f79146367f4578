// STREAM on the host CPU: three page-backed arrays, a pinned team of threads that each own one
// contiguous, cache-line aligned slice of every array, and the kernels of stream/cpu_kernels.hpp.
// Initialisation runs on the same team and slices as the kernels, so that first touch places each
// page on the NUMA node of the thread that will stream it.
#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <memory>

#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/units.hpp"
#include "core/thread_team.hpp"
#include "cpu_device.hpp"
#include "host_memory.hpp"
#include "stream/cpu_kernels.hpp"

namespace conveyor::backend::cpu {
namespace {

// Slices start on 64-byte boundaries (8 doubles) so that no cache line is written by two threads;
// streaming stores of a shared line would otherwise bounce it between cores.
constexpr std::size_t kLineElements = 8;

struct alignas(64) PaddedSum {
  double value = 0;
};

class CpuStreamArrays final : public StreamArrays {
 public:
  CpuStreamArrays(const StreamConfig& config, const HostPlacement& placement)
      : n_(config.elements),
        placement_(placement),
        team_(config.threads, core::ThreadTeam::placement(config.threads, config.binding)),
        kernels_(stream::cpu_kernels(config.variant)),
        a_(n_ * sizeof(double), placement),
        b_(n_ * sizeof(double), placement),
        c_(n_ * sizeof(double), placement),
        partial_(static_cast<std::size_t>(team_.size())) {}

  void initialize(double a, double b, double c) override {
    double *pa = a_.data(), *pb = b_.data(), *pc = c_.data();
    team_.run([&](int member) {
      auto [begin, end] = slice(member);
      for (std::size_t i = begin; i < end; ++i) {
        pa[i] = a;
        pb[i] = b;
        pc[i] = c;
      }
    });
  }

  double run(StreamKernel kernel, double scalar, double* dot) override {
    double *a = a_.data(), *b = b_.data(), *c = c_.data();
    const stream::CpuKernels& k = kernels_;
    auto start = std::chrono::steady_clock::now();
    switch (kernel) {
      case StreamKernel::Copy:
        team_.run([&](int m) {
          auto [begin, end] = slice(m);
          k.copy(c + begin, a + begin, end - begin);
        });
        break;
      case StreamKernel::Scale:
        team_.run([&](int m) {
          auto [begin, end] = slice(m);
          k.scale(b + begin, c + begin, scalar, end - begin);
        });
        break;
      case StreamKernel::Add:
        team_.run([&](int m) {
          auto [begin, end] = slice(m);
          k.add(c + begin, a + begin, b + begin, end - begin);
        });
        break;
      case StreamKernel::Triad:
        team_.run([&](int m) {
          auto [begin, end] = slice(m);
          k.triad(a + begin, b + begin, c + begin, scalar, end - begin);
        });
        break;
      case StreamKernel::Dot: {
        team_.run([&](int m) {
          auto [begin, end] = slice(m);
          partial_[m].value = k.dot(a + begin, b + begin, end - begin);
        });
        double sum = 0;
        for (const auto& p : partial_) sum += p.value;
        if (dot) *dot = sum;
        break;
      }
    }
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return elapsed.count();
  }

  void read_back(std::vector<double>& a, std::vector<double>& b, std::vector<double>& c) override {
    a.assign(a_.data(), a_.data() + n_);
    b.assign(b_.data(), b_.data() + n_);
    c.assign(c_.data(), c_.data() + n_);
  }

  HostView host_view() const override { return {a_.data(), b_.data(), c_.data()}; }

  nlohmann::json placement() const override {
    nlohmann::json record = placement_record(placement_);
    record["cpus"] = team_.cpus();
    record["first_touch"] = "parallel";
    record["isa"] = stream::to_string(kernels_.isa);
    record["streaming_stores"] = kernels_.streaming_stores;
    return record;
  }

 private:
  std::pair<std::size_t, std::size_t> slice(int member) const {
    const std::size_t lines = (n_ + kLineElements - 1) / kLineElements;
    const std::size_t members = static_cast<std::size_t>(team_.size());
    std::size_t begin = lines * member / members * kLineElements;
    std::size_t end = lines * (member + 1) / members * kLineElements;
    return {std::min(begin, n_), std::min(end, n_)};
  }

  std::size_t n_;
  HostPlacement placement_;
  core::ThreadTeam team_;
  const stream::CpuKernels& kernels_;
  HostBuffer a_, b_, c_;
  std::vector<PaddedSum> partial_;
};

}  // namespace

std::unique_ptr<StreamArrays> CpuDevice::make_stream_arrays(const StreamConfig& config) {
  if (config.elements == 0) throw UsageError("stream arrays need at least one element");
  HostPlacement placement = resolve_placement(config);
  constexpr std::uint64_t kMaxElements = std::numeric_limits<std::uint64_t>::max() / 24;
  const std::uint64_t free_bytes = placement_free_bytes(placement);
  if (config.elements > kMaxElements || 3 * config.elements * sizeof(double) > free_bytes)
    throw UsageError(fmt::format(
        "stream arrays of 3 x {} elements ({} each) do not fit in the {} of memory available{}",
        config.elements,
        config.elements > kMaxElements ? "too many bytes"
                                       : format_bytes(config.elements * sizeof(double)),
        format_bytes(free_bytes),
        placement.numa_nodes.empty() ? "" : " on the chosen NUMA node(s)"));
  return std::make_unique<CpuStreamArrays>(config, placement);
}

}  // namespace conveyor::backend::cpu
