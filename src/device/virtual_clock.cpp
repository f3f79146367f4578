#include "device/virtual_clock.hpp"

#include <algorithm>
#include <atomic>

namespace conveyor::device {
namespace {
// What the calling thread owes (owe_until), on which clock.
struct Owed {
  const VirtualClock* clock = nullptr;
  double until_s = 0;
};
thread_local Owed tl_owed;
// The clock whose turn the calling thread holds (VirtualClock::take_turn), if any, by its id: a
// clock made later at the same address (a test's next clock on the stack) is another clock.
thread_local std::uint64_t tl_turn = 0;
std::atomic<std::uint64_t> next_clock_id{0};
// What names a thread that enter()s.
thread_local char tl_entered;
}  // namespace

VirtualClock::VirtualClock() : id_(++next_clock_id), thread_([this] { loop(); }) {}

VirtualClock::~VirtualClock() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

double VirtualClock::now_s() const {
  std::lock_guard lock(mutex_);
  return now_s_;
}

void VirtualClock::at(double time_s, std::function<void()> fn) {
  bool idle = false;
  {
    std::lock_guard lock(mutex_);
    events_.push({std::max(time_s, now_s_), seq_++, std::move(fn)});
    idle = running_ <= 0;
  }
  // While a thread runs the clock cannot move: waking it would only cost a context switch.
  if (idle) cv_.notify_all();
}

void VirtualClock::after(double seconds, std::function<void()> fn) {
  std::unique_lock lock(mutex_);
  double when = now_s_ + std::max(seconds, 0.0);
  lock.unlock();
  at(when, std::move(fn));
}

void VirtualClock::owe_until(double time_s) {
  if (tl_owed.clock != this) tl_owed = {this, 0};
  tl_owed.until_s = std::max(tl_owed.until_s, time_s);
}

double VirtualClock::thread_now_s() const {
  double now = now_s();
  return tl_owed.clock == this ? std::max(now, tl_owed.until_s) : now;
}

void VirtualClock::settle() {
  double owed = thread_now_s() - now_s();
  if (owed > 0) sleep_for(0);
}

void VirtualClock::sleep_for(double seconds) {
  // Time owed is paid first: the modelled duration starts when the thread is free.
  double start = thread_now_s();
  if (tl_owed.clock == this) tl_owed = {};
  std::mutex m;
  std::condition_variable woken;
  bool done = false;
  at(start + std::max(seconds, 0.0), [&] {
    wake(&done);  // counted before it runs again
    std::lock_guard lock(m);
    done = true;
    woken.notify_one();
  });
  running(-1);
  {
    std::unique_lock lock(m);
    woken.wait(lock, [&] { return done; });
  }
  take_turn(&done);
}

void VirtualClock::running(int delta) {
  bool idle = false;
  {
    std::lock_guard lock(mutex_);
    running_ += delta;
    if (delta < 0 && tl_turn == id_) {  // the holder waits: the next one's turn
      tl_turn = 0;
      holder_ = nullptr;
      hand_over();
    }
    idle = running_ == 0;
  }
  if (idle) cv_.notify_all();
}

void VirtualClock::wake(const void* who) {
  std::lock_guard lock(mutex_);
  ++running_;
  queued_.push_back(who);
  hand_over();
}

void VirtualClock::hand_over() {
  if (holder_ || firing_ || queued_.empty()) return;
  holder_ = queued_.front();
  queued_.pop_front();
  for (auto& [who, cv] : turn_waiters_)
    if (who == holder_) cv->notify_one();
}

void VirtualClock::take_turn(const void* who) {
  std::unique_lock lock(mutex_);
  if (holder_ != who) {
    std::condition_variable mine;
    turn_waiters_.emplace_back(who, &mine);
    mine.wait(lock, [&] { return holder_ == who; });
    turn_waiters_.erase(std::find(turn_waiters_.begin(), turn_waiters_.end(),
                                  std::pair<const void*, std::condition_variable*>(who, &mine)));
  }
  tl_turn = id_;
}

void VirtualClock::enter() {
  if (tl_turn == id_) return;  // a simulated cluster's rank thread: on the clock already
  wake(&tl_entered);
  take_turn(&tl_entered);
}

int VirtualClock::running_threads() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::uint64_t VirtualClock::events_fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

void VirtualClock::loop() {
  std::vector<std::function<void()>> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || (running_ <= 0 && !events_.empty()); });
    if (stop_) return;
    // Nothing runs: jump to the earliest event and fire everything due then, in order; the
    // threads they wake run afterwards, one at a time, in the order they were woken.
    now_s_ = events_.top().time_s;
    while (!events_.empty() && events_.top().time_s <= now_s_) {
      batch.push_back(std::move(const_cast<Event&>(events_.top()).fn));
      events_.pop();
    }
    fired_ += batch.size();
    firing_ = true;
    lock.unlock();
    for (auto& fn : batch) fn();
    batch.clear();
    lock.lock();
    firing_ = false;
    hand_over();
  }
}

}  // namespace conveyor::device
