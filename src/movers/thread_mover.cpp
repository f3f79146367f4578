#include "movers/thread_mover.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "core/thread_team.hpp"
#include "movers/spin_wait.hpp"

namespace conveyor::movers {

ThreadMover::ThreadMover(const MoverOptions& options)
    : copy_threads_(options.copy_threads), fail_copy_(options.fail_copy) {
  if (copy_threads_ < 1 || copy_threads_ > 64)
    throw UsageError(
        fmt::format("thread mover: copy threads must be 1..64, not {}", copy_threads_));
}

ThreadMover::~ThreadMover() { stop_threads(); }

std::string ThreadMover::describe() const {
  std::string cpus = cpus_.empty() ? "unpinned" : "on CPU";
  for (std::size_t i = 0; i < cpus_.size(); ++i)
    cpus += (i ? "," : " ") + (cpus_[i] < 0 ? std::string("-") : std::to_string(cpus_[i]));
  return fmt::format("thread mover: {} copy thread(s) {}, memcpy", copy_threads_, cpus);
}

void ThreadMover::stop_threads() {
  stopping_.store(true);
  submitted_.fetch_add(1);
  submitted_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  stopping_.store(false);
}

void ThreadMover::open(const MoverSetup& setup) {
  if (setup.lanes < 1 || setup.slots < 1) throw UsageError("thread mover: no lanes or slots");
  stop_threads();
  lanes_.clear();
  for (int l = 0; l < setup.lanes; ++l) {
    auto lane = std::make_unique<LaneState>();
    lane->slots = std::vector<Slot>(static_cast<std::size_t>(setup.slots));
    // Room for the live requests and as many stale (cancelled, not yet popped) entries.
    lane->queue.assign(8 * static_cast<std::size_t>(setup.slots) + 1, 0);
    lanes_.push_back(std::move(lane));
  }
  cpus_.clear();
  for (int c = 0; c < copy_threads_; ++c) {
    int cpu = c < static_cast<int>(setup.spare_cpus.size()) ? setup.spare_cpus[c] : -1;
    cpus_.push_back(cpu);
    threads_.emplace_back([this, c, cpu] { copier_loop(c, cpu); });
  }
}

void ThreadMover::start_copy(int lane_id, int slot_id, void* dst, const void* src,
                             std::size_t bytes) {
  LaneState& lane = *lanes_[static_cast<std::size_t>(lane_id)];
  Slot& slot = lane.slots[static_cast<std::size_t>(slot_id)];
  slot.dst = dst;
  slot.src = src;
  slot.bytes = bytes;
  // Injected failures hit the Nth request, whoever would have served it (deterministic for tests).
  const long n = requests_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (fail_copy_ > 0 && n == fail_copy_) {
    slot.state.store(kFailed, std::memory_order_relaxed);
    return;
  }
  std::size_t head = lane.head.load(std::memory_order_relaxed);
  if (head - lane.tail.load(std::memory_order_acquire) >= lane.queue.size()) {
    // The copy thread has not run for a long while (its queue is full of requests the lane
    // dropped): leave this one to the lane.
    slot.state.store(kRefused, std::memory_order_relaxed);
    return;
  }
  slot.state.store(kQueued, std::memory_order_release);
  lane.queue[head % lane.queue.size()] = slot_id;
  lane.head.store(head + 1, std::memory_order_release);
  submitted_.fetch_add(1, std::memory_order_seq_cst);
  if (sleeping_.load(std::memory_order_seq_cst) != 0) submitted_.notify_all();
}

int ThreadMover::finish_wait(Slot& slot) {
  int state = kIdle;
  spin_until([&] {
    state = slot.state.load(std::memory_order_acquire);
    return state != kQueued && state != kCopying;
  });
  slot.state.store(kIdle, std::memory_order_relaxed);
  if (state == kRefused) {
    std::memcpy(slot.dst, slot.src, slot.bytes);  // wait() promises a copy: do it here
    state = kDone;
  }
  if (state == kFailed)
    throw MoverError(
        fmt::format("thread mover: copy of {} bytes failed (injected failure)", slot.bytes));
  return state;
}

void ThreadMover::wait(int lane_id, int slot_id) {
  Slot& slot = lanes_[static_cast<std::size_t>(lane_id)]->slots[static_cast<std::size_t>(slot_id)];
  finish_wait(slot);
}

bool ThreadMover::wait_or_cancel(int lane_id, int slot_id) {
  Slot& slot = lanes_[static_cast<std::size_t>(lane_id)]->slots[static_cast<std::size_t>(slot_id)];
  int expected = kQueued;
  if (slot.state.compare_exchange_strong(expected, kCancelled, std::memory_order_acq_rel) ||
      expected == kRefused) {
    slot.state.store(kIdle, std::memory_order_relaxed);
    return false;
  }
  finish_wait(slot);
  return true;
}

// Serves one request of the lane, if it has one; returns whether it did.
bool ThreadMover::serve(LaneState& lane) {
  std::size_t tail = lane.tail.load(std::memory_order_relaxed);
  if (tail == lane.head.load(std::memory_order_acquire)) return false;
  Slot& slot = lane.slots[static_cast<std::size_t>(lane.queue[tail % lane.queue.size()])];
  lane.tail.store(tail + 1, std::memory_order_release);
  // Claim the request; a stale entry (cancelled, or already served through a newer entry of the
  // same slot) is skipped.
  int expected = kQueued;
  if (!slot.state.compare_exchange_strong(expected, kCopying, std::memory_order_acq_rel))
    return true;
  std::memcpy(slot.dst, slot.src, slot.bytes);
  slot.state.store(kDone, std::memory_order_release);
  return true;
}

void ThreadMover::copier_loop(int copier, int cpu) {
  if (cpu >= 0) core::pin_current_thread(cpu);
  const auto lanes = lanes_.size();
  int idle = 0;
  while (!stopping_.load(std::memory_order_relaxed)) {
    std::uint64_t seen = submitted_.load(std::memory_order_seq_cst);
    bool worked = false;
    for (std::size_t l = static_cast<std::size_t>(copier); l < lanes;
         l += static_cast<std::size_t>(copy_threads_))
      worked |= serve(*lanes_[l]);
    if (worked) {
      idle = 0;
    } else if (++idle < 20000) {
      cpu_relax();
    } else {
      // Nothing for a while: sleep until the next submission (or stop).
      sleeping_.fetch_add(1, std::memory_order_seq_cst);
      submitted_.wait(seen, std::memory_order_seq_cst);
      sleeping_.fetch_sub(1, std::memory_order_seq_cst);
      idle = 0;
    }
  }
}

}  // namespace conveyor::movers
