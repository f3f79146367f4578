#pragma once
// The seed-004 probes on the host CPU, the way an OpenMP program meets them: the "device" is the
// team of all cores, data is already in host memory (memory model Host), and a kernel launch is a
// fork-join of the team. Transfers are memcpy between two host buffers (d2d only).
//   dispatch   fork-join of the team running an empty function (enqueue and round trip are the
//              same thing here: a fork-join completes before it returns)
//   task       the team reads and writes every float of a buffer, x = x * s + o
//   matmul     blocked single-precision product, rows of C split over the team (cpu_probe_apps.cpp)
//   md5        one MD5 per 64-byte message, messages split over the team (cpu_probe_apps.cpp)
// Buffers are allocated and first touched by the team outside the timed region, and kept.
#include <cstddef>
#include <memory>

#include "conveyor/probe.hpp"
#include "core/thread_team.hpp"

namespace conveyor::backend::cpu {

/// A growable, page-aligned host buffer whose pages are first touched by the team that uses it.
class TeamBuffer {
 public:
  void ensure(core::ThreadTeam& team, std::size_t bytes);
  std::byte* data() { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

/// [begin, end) of `member`'s share of `count` items, split evenly over `members`.
inline std::pair<std::size_t, std::size_t> share(std::size_t count, int member, int members) {
  return {count * member / members, count * (member + 1) / members};
}

class CpuProbeTarget final : public ProbeTarget {
 public:
  CpuProbeTarget();

  std::vector<MemoryModel> memory_models() const override { return {MemoryModel::Host}; }
  std::vector<Direction> directions(MemoryModel model) const override;
  double transfer(Direction direction, MemoryModel model, std::size_t bytes) override;
  double dispatch_enqueue(int count) override;
  double dispatch_roundtrip() override;
  double memory_task(MemoryModel model, std::size_t bytes) override;
  double matmul(int n, const float* a, const float* b, float* c) override;  // cpu_probe_apps.cpp
  double md5(std::size_t count, const std::uint8_t* messages, std::uint8_t* digests) override;  // "

  int threads() const { return team_.size(); }

 private:
  void check_model(MemoryModel model) const;

  core::ThreadTeam team_;
  TeamBuffer source_, target_;
};

}  // namespace conveyor::backend::cpu
