#include "distributed/transport.hpp"

namespace conveyor::distributed {

bool Transport::record_abort(int origin, const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (origin_ >= 0) return false;
    origin_ = origin;
    reason_ = reason;
  }
  aborted_.store(true, std::memory_order_release);
  return true;
}

int Transport::abort_origin() const {
  std::lock_guard lock(mutex_);
  return origin_;
}

std::string Transport::abort_reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

Transport::Counters Transport::counters() const {
  return {sent_.load(), bytes_sent_.load(), received_.load(), bytes_received_.load()};
}

void Transport::reset_counters() { sent_ = bytes_sent_ = received_ = bytes_received_ = 0; }

std::vector<Transport::Event> Transport::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

void Transport::finished(Message& m, double start_s) {
  if (now_) {
    std::lock_guard lock(mutex_);
    events_.push_back({m.kind, m.peer, m.bytes(), start_s, now_()});
  }
  if (m.kind == Message::Kind::Send) {
    ++sent_;
    bytes_sent_ += m.bytes();
  } else {
    ++received_;
    bytes_received_ += m.bytes();
  }
  m.completion.done();
}

}  // namespace conveyor::distributed
