#pragma once
// The simulated transport: every rank of a simulated cluster is a thread of one process with its
// own Runtime on a node platform, and all of them run on one virtual clock. A message costs what
// the network model says (network.hpp): the sender's overhead, then the route's latency and bytes
// over its bandwidth with contention on shared channels, then the receiver's overhead. Messages up
// to eager_bytes leave when the send is posted (an early one waits at the receiver, as MPI's
// unexpected messages do); larger ones need a rendezvous: the sender's request crosses the
// network, and once the receive is posted the receiver's answer crosses back before the data go
// (two latencies more). Collectives cost Network::collective_s and release every rank at
// once. Data are copied (at the modelled end) only when the ranks run their kernels.
//
// The layer above is unchanged: the same owner-computes decisions, message numbering and caching
// as on MPI, so message counts and bytes are those of a real run.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "device/virtual_clock.hpp"
#include "distributed/network.hpp"
#include "distributed/transport.hpp"

namespace conveyor::distributed {

class SimulatedTransport;

/// What the ranks share: the clock, the network, the messages in flight and the collectives.
class SimulatedWorld {
 public:
  SimulatedWorld(const ClusterSpec& cluster, int ranks, std::shared_ptr<device::VirtualClock> clock,
                 bool real_data);
  int ranks() const { return ranks_; }
  bool real_data() const { return real_data_; }
  device::VirtualClock& clock() { return *clock_; }
  const Network& network() const { return network_; }
  /// The address by which rank r's thread takes its turns on the clock while outside its runtime.
  const void* token(int rank) const { return &tokens_[static_cast<std::size_t>(rank)]; }

  void attach(int rank, SimulatedTransport* transport);
  void post(int rank, Message message);
  /// The first failure stops every rank: pending and later messages fail, and ranks waiting in a
  /// collective wake with an error.
  void abort(int origin, const std::string& reason);
  /// Rank r's transport stops: its pending messages fail.
  void stop(int rank);
  /// Rank r's program ended with an error and will reach no collective: the other ranks' pending
  /// messages fail, and their collectives throw instead of waiting for ever.
  void depart(int rank, const std::string& reason);
  /// Every rank's `mine` (indexed by rank), after the modelled time of a collective of `bytes`
  /// per rank. Called by each rank's thread, which holds its turn on the clock.
  std::vector<std::string> exchange(int rank, std::string mine, std::uint64_t bytes);

 private:
  using Key = std::tuple<int, int, int>;  // source, destination, tag
  struct Pending {
    Message message;
    double posted_s = 0;
    bool delivered = false;         // send: the data reached the receiver (eager, early)
    bool started = false;           // send: on the wire
    std::vector<std::byte> staged;  // a delivered send's bytes, until the receive is posted
  };
  struct Actions;  // completions to run once the lock is released

  double rendezvous_start(double send_s, double recv_s, int src, int dst) const;
  void start_transfer(const Key& key, double ready_s);                 // mutex_ held
  void deliver(const Key& key);                                        // a clock event
  void complete_receive(const Key& key, double at_s);                  // mutex_ held
  void fail_all(const std::string& why, int only_rank, Actions& out);  // mutex_ held
  void run(Actions& actions);

  int ranks_;
  bool real_data_;
  std::shared_ptr<device::VirtualClock> clock_;
  Network network_;
  double overhead_s_;
  std::uint64_t eager_bytes_;
  std::vector<char> tokens_;

  std::mutex mutex_;
  std::vector<SimulatedTransport*> transports_;
  std::map<Key, Pending> sends_, receives_;
  bool aborted_ = false;
  std::string abort_message_;
  std::string departed_;  // set when a rank's program failed: collectives throw it
  // The collective in progress: contributions, who waits, and the generation released so far.
  std::condition_variable released_cv_;
  std::vector<bool> waiting_;
  std::vector<std::string> contributions_, results_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0, released_ = 0;
};

class SimulatedTransport final : public Transport {
 public:
  SimulatedTransport(std::shared_ptr<SimulatedWorld> world, int rank);
  std::uint64_t tags() const override { return std::uint64_t{1} << 31; }
  bool real_data() const override { return world_->real_data(); }
  void post(Message message) override { world_->post(rank(), std::move(message)); }
  void abort(const std::string& reason) override { world_->abort(rank(), reason); }
  void stop() override { world_->stop(rank()); }
  void barrier() override;
  void allgather(const void* mine, std::size_t bytes, void* all) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  std::vector<std::string> gather(const std::string& mine, int root) override;
  double wall_seconds() const override;

 private:
  friend class SimulatedWorld;  // records aborts and finished messages
  std::shared_ptr<SimulatedWorld> world_;
  double started_s_;
};

}  // namespace conveyor::distributed
