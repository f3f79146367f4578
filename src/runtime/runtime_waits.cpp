// How the runtime's threads wait: the runtime's time (virtual on a simulated platform), and the
// thread accounting that lets a virtual clock jump only when no thread can run (doze, rouse,
// sleep_on, take_turn; the user threads' wait_user is a template, in runtime_impl_shared.hpp).
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

double Runtime::Impl::now_s() const { return clock_ ? clock_->now_s() : seconds_since(epoch_); }

void Runtime::Impl::doze(bool& asleep) {
  if (asleep) return;
  asleep = true;
  if (clock_) clock_->running(-1);
}

void Runtime::Impl::rouse(bool& asleep) {
  if (!asleep) return;
  asleep = false;
  if (clock_) clock_->wake(&asleep);
}

void Runtime::Impl::sleep_on(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                             bool& asleep) {
  doze(asleep);
  cv.wait(lock);
  // In virtual time only a rouse wakes a thread (a spurious wake-up waits on), and it runs on
  // its turn.
  while (clock_ && asleep) cv.wait(lock);
  rouse(asleep);
  take_turn(lock, asleep);
}

void Runtime::Impl::take_turn(std::unique_lock<std::mutex>& lock, const bool& asleep) {
  if (!clock_) return;
  lock.unlock();  // the thread whose turn it is may need the lock
  clock_->take_turn(&asleep);
  lock.lock();
}

void Runtime::Impl::notify_user() {
  for (bool* asleep : user_sleepers_) rouse(*asleep);
  user_sleepers_.clear();
  done_cv_.notify_all();
}

}  // namespace conveyor
