#include "distributed/simulated_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "conveyor/error.hpp"

namespace conveyor::distributed {
namespace {

// Copies a message's rows x cols elements (column-major, leading dimensions in elements).
void copy_matrix(std::byte* dst, std::size_t dst_ld, const std::byte* src, std::size_t src_ld,
                 const Message& m) {
  const std::size_t column = m.rows * m.elem_size;
  for (std::size_t c = 0; c < m.cols; ++c)
    std::memcpy(dst + c * dst_ld * m.elem_size, src + c * src_ld * m.elem_size, column);
}

std::size_t leading(const Message& m) { return m.cols == 1 ? m.rows : m.ld; }

}  // namespace

// Completions and failures run after the world's lock is released: they enter the runtimes.
struct SimulatedWorld::Actions {
  std::vector<std::function<void()>> later;
};

SimulatedWorld::SimulatedWorld(const ClusterSpec& cluster, int ranks,
                               std::shared_ptr<device::VirtualClock> clock, bool real_data)
    : ranks_(ranks),
      real_data_(real_data),
      clock_(std::move(clock)),
      network_(cluster.network, ranks),
      overhead_s_(cluster.network.overhead_us * 1e-6),
      eager_bytes_(cluster.network.eager_bytes),
      tokens_(static_cast<std::size_t>(ranks)),
      transports_(static_cast<std::size_t>(ranks), nullptr),
      contributions_(static_cast<std::size_t>(ranks)),
      waiting_(static_cast<std::size_t>(ranks), false) {}

void SimulatedWorld::attach(int rank, SimulatedTransport* transport) {
  std::lock_guard lock(mutex_);
  transports_.at(static_cast<std::size_t>(rank)) = transport;
}

void SimulatedWorld::run(Actions& actions) {
  for (auto& fn : actions.later) fn();
  actions.later.clear();
}

void SimulatedWorld::post(int rank, Message m) {
  Actions actions;
  {
    std::lock_guard lock(mutex_);
    const double now = clock_->thread_now_s();
    if (aborted_) {
      auto shared = std::make_shared<Message>(std::move(m));
      actions.later.push_back([shared, why = abort_message_] { shared->completion.fail(why); });
    } else if (m.kind == Message::Kind::Send) {
      Key key{rank, m.peer, m.tag};
      const std::size_t bytes = m.bytes();
      const int peer = m.peer;
      Pending& p = sends_[key];
      p.message = std::move(m);
      p.posted_s = now;
      auto r = receives_.find(key);
      if (bytes <= eager_bytes_)
        start_transfer(key, now + overhead_s_);
      else if (r != receives_.end())
        start_transfer(key, rendezvous_start(now, r->second.posted_s, rank, peer));
    } else {
      Key key{m.peer, rank, m.tag};
      const int peer = m.peer;
      Pending& p = receives_[key];
      p.message = std::move(m);
      p.posted_s = now;
      auto s = sends_.find(key);
      if (s != sends_.end()) {
        if (s->second.delivered)
          complete_receive(key, now + overhead_s_);
        else if (!s->second.started)  // a rendezvous waiting for this receive
          start_transfer(key, rendezvous_start(s->second.posted_s, now, peer, rank));
      }
    }
  }
  run(actions);
}

// A message above eager_bytes: the sender's request (posted at send_s, after its overhead) crosses
// the network; once the receive is posted too (recv_s), the receiver's answer crosses back, and
// the data follow (their own latency is in the transfer).
double SimulatedWorld::rendezvous_start(double send_s, double recv_s, int src, int dst) const {
  return std::max(send_s + overhead_s_ + network_.latency_s(src, dst), recv_s) +
         network_.latency_s(dst, src);
}

void SimulatedWorld::start_transfer(const Key& key, double ready_s) {
  Pending& s = sends_.at(key);
  s.started = true;
  auto [src, dst, tag] = key;
  network_.forget_before(clock_->now_s());
  Network::Times t = network_.transfer(src, dst, s.message.bytes(), ready_s);
  clock_->at(t.end_s, [this, key] { deliver(key); });
}

void SimulatedWorld::deliver(const Key& key) {
  Actions actions;
  {
    std::lock_guard lock(mutex_);
    auto s = sends_.find(key);
    if (s == sends_.end() || s->second.delivered) return;  // failed by an abort meanwhile
    Pending& send = s->second;
    send.delivered = true;
    const Message& m = send.message;
    auto r = receives_.find(key);
    if (r != receives_.end()) {
      if (real_data_)
        copy_matrix(static_cast<std::byte*>(r->second.message.ptr), leading(r->second.message),
                    static_cast<const std::byte*>(m.ptr), leading(m), m);
    } else if (real_data_) {  // early: kept until the receive is posted
      send.staged.resize(m.bytes());
      copy_matrix(send.staged.data(), m.rows, static_cast<const std::byte*>(m.ptr), leading(m), m);
    }
    auto done = std::make_shared<Message>(std::move(send.message));
    SimulatedTransport* sender = transports_[static_cast<std::size_t>(std::get<0>(key))];
    if (sender)  // null once that rank's layer is gone (its sends were failed then)
      actions.later.push_back(
          [sender, done, posted = send.posted_s] { sender->finished(*done, posted); });
    if (r != receives_.end()) complete_receive(key, clock_->now_s() + overhead_s_);
  }
  run(actions);
}

void SimulatedWorld::complete_receive(const Key& key, double at_s) {
  auto s = sends_.find(key);
  auto r = receives_.find(key);
  if (real_data_ && !s->second.staged.empty())
    copy_matrix(static_cast<std::byte*>(r->second.message.ptr), leading(r->second.message),
                s->second.staged.data(), r->second.message.rows, r->second.message);
  auto done = std::make_shared<Message>(std::move(r->second.message));
  SimulatedTransport* receiver = transports_[static_cast<std::size_t>(std::get<1>(key))];
  clock_->at(at_s,
             [receiver, done, posted = r->second.posted_s] { receiver->finished(*done, posted); });
  receives_.erase(r);
  sends_.erase(s);
}

void SimulatedWorld::fail_all(const std::string& why, int only_rank, Actions& out) {
  auto drop = [&](std::map<Key, Pending>& pending, bool sends) {
    for (auto it = pending.begin(); it != pending.end();) {
      auto [src, dst, tag] = it->first;
      const int owner = sends ? src : dst;
      if (only_rank >= 0 && owner != only_rank) {
        ++it;
        continue;
      }
      if (it->second.message.completion.pending()) {
        auto m = std::make_shared<Message>(std::move(it->second.message));
        out.later.push_back([m, why] { m->completion.fail(why); });
      }
      it = pending.erase(it);
    }
  };
  drop(sends_, true);
  drop(receives_, false);
}

void SimulatedWorld::abort(int origin, const std::string& reason) {
  Actions actions;
  {
    std::lock_guard lock(mutex_);
    if (aborted_) return;  // the first failure is the one reported
    aborted_ = true;
    abort_message_ = fmt::format("stopped: rank {} failed: {}", origin, reason);
    for (auto* t : transports_)
      if (t) t->record_abort(origin, reason);
    fail_all(abort_message_, -1, actions);
  }
  run(actions);
}

void SimulatedWorld::depart(int rank, const std::string& reason) {
  abort(rank, reason);  // its messages will never come: the others' runtimes must drain
  std::lock_guard lock(mutex_);
  if (departed_.empty()) departed_ = fmt::format("rank {} failed: {}", rank, reason);
  // Ranks waiting for it in a collective wake up (counted before they run) and throw.
  for (int r = 0; r < ranks_; ++r)
    if (waiting_[static_cast<std::size_t>(r)]) {
      waiting_[static_cast<std::size_t>(r)] = false;
      clock_->wake(token(r));
    }
  released_cv_.notify_all();
}

void SimulatedWorld::stop(int rank) {
  Actions actions;
  {
    std::lock_guard lock(mutex_);
    fail_all("the distributed layer was destroyed first", rank, actions);
    transports_.at(static_cast<std::size_t>(rank)) = nullptr;
  }
  run(actions);
}

std::vector<std::string> SimulatedWorld::exchange(int rank, std::string mine, std::uint64_t bytes) {
  const auto me = static_cast<std::size_t>(rank);
  std::unique_lock lock(mutex_);
  if (!departed_.empty()) throw Error(departed_);
  const std::uint64_t generation = generation_;
  contributions_[me] = std::move(mine);
  waiting_[me] = true;
  if (++arrived_ == ranks_) {
    // The last rank in: everyone leaves together once the collective's modelled time is over.
    results_ = contributions_;
    arrived_ = 0;
    ++generation_;
    clock_->after(network_.collective_s(bytes), [this, generation] {
      std::lock_guard inner(mutex_);
      released_ = generation + 1;
      for (int r = 0; r < ranks_; ++r)  // in rank order: deterministic turns
        if (waiting_[static_cast<std::size_t>(r)]) {
          waiting_[static_cast<std::size_t>(r)] = false;
          clock_->wake(token(r));
        }
      released_cv_.notify_all();
    });
  }
  clock_->running(-1);  // the turn passes on while this rank waits
  released_cv_.wait(lock, [&] { return !waiting_[me]; });
  const bool released = released_ > generation;
  std::vector<std::string> out = released ? results_ : std::vector<std::string>();
  std::string failure = departed_;
  lock.unlock();
  clock_->take_turn(token(rank));
  if (!released) throw Error(failure);
  return out;
}

SimulatedTransport::SimulatedTransport(std::shared_ptr<SimulatedWorld> world, int rank)
    : Transport(rank, world->ranks()), world_(std::move(world)) {
  started_s_ = world_->clock().now_s();
  world_->attach(rank, this);
}

double SimulatedTransport::wall_seconds() const { return world_->clock().now_s() - started_s_; }

void SimulatedTransport::barrier() { world_->exchange(rank(), {}, 0); }

void SimulatedTransport::allgather(const void* mine, std::size_t bytes, void* all) {
  auto texts = world_->exchange(rank(), std::string(static_cast<const char*>(mine), bytes), bytes);
  for (std::size_t r = 0; r < texts.size(); ++r)
    std::memcpy(static_cast<char*>(all) + r * bytes, texts[r].data(), bytes);
}

void SimulatedTransport::broadcast(void* data, std::size_t bytes, int root) {
  std::string mine = rank() == root ? std::string(static_cast<const char*>(data), bytes) : "";
  auto texts = world_->exchange(rank(), std::move(mine), bytes);
  std::memcpy(data, texts[static_cast<std::size_t>(root)].data(), bytes);
}

std::vector<std::string> SimulatedTransport::gather(const std::string& mine, int root) {
  auto texts = world_->exchange(rank(), mine, mine.size());
  if (rank() != root) texts.clear();
  return texts;
}

}  // namespace conveyor::distributed
