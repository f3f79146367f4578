#pragma once
#include "conveyor/mover.hpp"

namespace conveyor::movers {

class PrefetchMover final : public Mover {
 public:
  std::string_view name() const override { return "prefetch"; }
  std::string describe() const override {
    return "prefetch mover: software prefetch by the computing threads, no staging";
  }
  bool stages() const override { return false; }
  void open(const MoverSetup&) override {}
  void start_copy(int lane, int slot, void* dst, const void* src, std::size_t bytes) override;
  void wait(int lane, int slot) override;
  void prefetch(const void* p, std::size_t bytes) override;
};

}  // namespace conveyor::movers
