#pragma once
// The `thread` mover: dedicated copy threads, each serving lanes lane % copy_threads. A lane hands
// requests over through a single-producer single-consumer ring of slot numbers; the slot's state
// word carries completion back. Idle copy threads sleep on an atomic counter (no spinning between
// runs, so CPU-only measurements in the same process are not disturbed).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/mover.hpp"

namespace conveyor::movers {

class ThreadMover final : public Mover {
 public:
  explicit ThreadMover(const MoverOptions& options);
  ~ThreadMover() override;

  std::string_view name() const override { return "thread"; }
  std::string describe() const override;
  void open(const MoverSetup& setup) override;
  void start_copy(int lane, int slot, void* dst, const void* src, std::size_t bytes) override;
  void wait(int lane, int slot) override;
  bool wait_or_cancel(int lane, int slot) override;

 private:
  // kQueued -> kCopying (claimed by the copy thread) -> kDone / kFailed; kQueued -> kCancelled
  // (dropped by the lane before the copy started); kRefused (queue full: the lane copies or reads
  // the source itself). The lane sets kIdle after waiting.
  enum State : int { kIdle, kQueued, kCopying, kDone, kFailed, kCancelled, kRefused };
  struct Slot {
    std::atomic<int> state{kIdle};
    void* dst = nullptr;
    const void* src = nullptr;
    std::size_t bytes = 0;
  };
  struct alignas(64) LaneState {
    std::vector<Slot> slots;
    std::vector<int> queue;                        // ring of slot numbers, capacity slots + 1
    alignas(64) std::atomic<std::size_t> head{0};  // written by the lane
    alignas(64) std::atomic<std::size_t> tail{0};  // written by the copy thread
  };

  void stop_threads();
  void copier_loop(int copier, int cpu);
  int finish_wait(Slot& slot);
  bool serve(LaneState& lane);

  int copy_threads_;
  long fail_copy_;
  std::atomic<long> requests_{0};
  std::vector<std::unique_ptr<LaneState>> lanes_;
  std::vector<std::thread> threads_;
  std::vector<int> cpus_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> submitted_{0};
  std::atomic<int> sleeping_{0};
};

}  // namespace conveyor::movers
