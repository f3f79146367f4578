#pragma once
/// Simulated clusters (docs/simulated-clusters.md): the MPI layer's real code on modelled nodes
/// and a modelled network, every rank a thread of this process, all on one virtual clock. Each
/// rank has its own Runtime on the cluster file's node platform and a Distributed whose messages
/// the network model times (contention on shared links included); nothing else differs from an
/// mpirun run, so the program is the same:
///
///   conveyor::SimulatedClusterOptions o;
///   o.cluster = "platforms/cluster-64x4xV100.json";
///   o.ranks = 16;                          // one rank per node, nodes 0..15
///   conveyor::run_simulated_cluster(o, [&](conveyor::Distributed& dist) {
///     ... register, submit, wait_all exactly as under mpirun; dist.runtime().seconds() is virtual
///   });
///
/// Runs are deterministic: the same program gives the same virtual times, messages and placement.
#include <functional>
#include <string>

#include "conveyor/distributed.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor {

struct SimulatedClusterOptions {
  std::string cluster;  ///< the cluster file (its "node" names the node platform file)
  int ranks = 0;        ///< ranks, one per node from node 0; 0 = every node of the file
  /// Each rank's runtime options (scheduler, cpus, prefetch, trace...). `platform`,
  /// `platform_clock` and `devices` are set by the cluster; platform_run_kernels runs every task's
  /// CPU implementation and moves message data for real (small cases, for checks).
  RuntimeOptions runtime;
};

/// Reads the cluster file, starts `ranks` rank threads and runs `rank_main` on each with its
/// Distributed; returns when every rank has returned. An exception on any rank is rethrown here
/// (the lowest rank's, with its type): the other ranks' messages fail and their collectives throw,
/// so a failing rank never leaves the others waiting. Throws UsageError for a bad cluster file or
/// more ranks than nodes.
void run_simulated_cluster(const SimulatedClusterOptions& options,
                           const std::function<void(Distributed&)>& rank_main);

/// Whether `path` is a cluster file (rather than a node platform file): a JSON object with a
/// "network" key.
bool is_cluster_file(const std::string& path);

/// The number of nodes of a cluster file, and the path of its node platform file (UsageError
/// when it cannot be read).
int cluster_nodes(const std::string& path);
std::string cluster_node_platform(const std::string& path);

}  // namespace conveyor
