#pragma once
// A simulated cluster (issue 27): identical nodes, each a simulated node platform
// (device/simulated/platform.hpp), joined by a network model, read from a JSON cluster file. The
// network is a set of channels on the virtual timeline, with the discipline of the node platform's
// links, so that one clock and one kind of contention cover both; the simulated MPI transport asks
// it when each message starts and ends.
// Units: GB/s = 1e9 B/s, latencies and overheads in microseconds in the file, seconds in the API.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "device/simulated/platform.hpp"

namespace conveyor::distributed {

struct NetworkSpec {
  enum class Topology { Crossbar, FatTree, Torus };
  Topology topology = Topology::Crossbar;
  /// Each node's injection and ejection rate, GB/s, per direction.
  double nic_gbs = 0;
  /// Fat tree: each leaf<->spine cable; torus: each neighbour link; per direction.
  double link_gbs = 0;
  /// Fat tree: nodes under one leaf switch, and its cables to the spine (1 to nodes_per_switch;
  /// nodes_per_switch / uplinks is the taper).
  int nodes_per_switch = 0;
  int uplinks = 0;
  /// Torus: the extent of each dimension, x first; the product is the node count.
  std::vector<int> dims;
  /// One message, NIC to NIC through one switch (or one torus hop).
  double latency_us = 0;
  /// Each further switch (fat tree across leaves: 2 more) or torus hop.
  double hop_latency_us = 0;
  /// Software cost per message on each side (posting a send, completing a receive).
  double overhead_us = 0;
  /// Messages up to this size go without a rendezvous.
  std::uint64_t eager_bytes = 65536;
};

struct ClusterSpec {
  std::string path, name, description;
  int nodes = 0;
  std::string node_file;                 ///< resolved relative to the cluster file's directory
  device::simulated::PlatformSpec node;  ///< read_platform(node_file)
  NetworkSpec network;
};

/// Reads and checks a cluster file: unknown keys, wrong types, missing or non-positive values, a
/// bad topology and an invalid node file throw UsageError naming the file and the key.
ClusterSpec read_cluster(const std::string& path);
/// The same from JSON text (`origin` names it in messages; the node file is relative to base_dir).
ClusterSpec parse_cluster(const std::string& text, const std::string& origin,
                          const std::string& base_dir);
/// Whether `path` holds a cluster file (a JSON object with a "network" key) rather than a node
/// platform file; false for unreadable/non-JSON files (the platform reader reports those).
bool is_cluster_file(const std::string& path);

/// The network as resources on the virtual timeline. Each direction of each cable (and of each NIC)
/// is a channel that one message holds at a time: a transfer lasts the route's latency + bytes /
/// the route's smallest bandwidth and holds every channel of its route meanwhile, in the earliest
/// window from its ready time in which all of them are free. Transfers are reserved when they are
/// posted, often for later (a channel already carries others); a later reservation may take a
/// gap left before an earlier one (first fit), as a real NIC interleaves messages instead of
/// queueing each behind every message posted before it. (Append-only reservations made every
/// message wait for the last reservation of each of its channels, which chained delays across the
/// whole machine: on 64 simulated nodes, 1-2 messages were in flight at a time.) Parallel cables
/// (a fat tree leaf's uplinks) are separate channels: a message takes the one whose last
/// reservation ends first (ties: lowest index), so a leaf's uplink capacity is shared as `uplinks`
/// whole messages, not fluidly.
///
/// Routes. Crossbar: [nic out(from), nic in(to)], one switch, full bisection. Fat tree: node n is
/// under leaf n / nodes_per_switch; within a leaf as the crossbar; across leaves [nic out, an up
/// cable of from's leaf, a down cable of to's leaf, nic in], 3 switches. Torus: node n at
/// coordinates (n % dims[0], n / dims[0] % dims[1], ...); dimension-order routing, x first, each
/// dimension the shorter way round (ties: +), one channel per (position, dimension, direction),
/// with the NIC channels at both ends; hops = the distance on the torus.
/// Route latency = latency_us + (hops - 1) * hop_latency_us.
///
/// Not in transfer(): the software overhead (overhead_us on each side) and the rendezvous of
/// messages over eager_bytes, which the transport adds. Thread-safe; deterministic (the times
/// depend only on the order of the calls).
class Network {
 public:
  /// `nodes`: the nodes in use, from 0 (a torus keeps its full shape: it needs at most
  /// product(dims) nodes, and routes may cross unused positions).
  Network(const NetworkSpec& spec, int nodes);
  int nodes() const { return nodes_; }
  const NetworkSpec& spec() const { return spec_; }

  struct Times {
    double start_s, end_s;
  };
  /// Reserves the route from -> to (from != to) for `bytes` starting no earlier than ready_s
  /// (virtual seconds).
  Times transfer(int from, int to, std::uint64_t bytes, double ready_s);
  /// No transfer will be asked to start before `time_s` any more (the virtual clock's now):
  /// reservations that end by then are forgotten.
  void forget_before(double time_s);
  /// The route's latency (seconds) and its number of switch/torus hops (0 for from == to).
  double latency_s(int from, int to) const;
  int hops(int from, int to) const;
  /// The names of the channels a transfer from -> to would use now ("nic 3 out", "leaf 0 up 1",
  /// "leaf 2 down 0", "torus (1,2) +x", "nic 5 in"), in route order.
  std::vector<std::string> route(int from, int to) const;
  /// A model of a collective over all nodes (barrier, allgather, broadcast, gather) with `bytes`
  /// per node, nothing reserved: ceil(log2(nodes)) rounds (a binomial tree / recursive doubling),
  /// each the network's largest latency + 2 overheads + bytes / the NIC rate. It ignores
  /// contention and, for allgather and gather, that the data a node forwards grows each round:
  /// an optimistic estimate for large payloads.
  double collective_s(std::uint64_t bytes) const;

 private:
  struct Channel {
    std::string name;
    double bytes_per_s = 0;
    double free_s = 0;  ///< virtual time at which the last reserved message ends
    std::vector<std::pair<double, double>> busy;  ///< reserved [start, end), in time order
  };
  void check_ends(int from, int to) const;
  std::vector<int> coordinates(int node) const;
  int torus_distance(const std::vector<int>& a, const std::vector<int>& b) const;
  /// Channel indices of the route; parallel cables chosen by their current free_s (mutex_ held).
  std::vector<int> path(int from, int to) const;
  int earliest(int first, int count) const;

  NetworkSpec spec_;
  int nodes_;
  int leaves_ = 0, positions_ = 0;                    // fat tree leaves; torus positions
  int up_base_ = 0, down_base_ = 0, torus_base_ = 0;  // first channel of each kind
  double max_latency_s_ = 0;
  mutable std::mutex mutex_;
  double horizon_s_ = 0;           ///< forget_before's time (mutex_)
  std::vector<Channel> channels_;  ///< nic n out = 2n, nic n in = 2n + 1, then cables
};

}  // namespace conveyor::distributed
