// Runs a program on a simulated cluster: one thread per rank, each with its Runtime on the node
// platform and a Distributed over the simulated transport, all on one virtual clock.
#include "conveyor/simulated_cluster.hpp"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "device/simulated/platform.hpp"
#include "device/virtual_clock.hpp"
#include "distributed/network.hpp"
#include "distributed/simulated_transport.hpp"

namespace conveyor {
namespace {

std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace

bool is_cluster_file(const std::string& path) { return distributed::is_cluster_file(path); }

int cluster_nodes(const std::string& path) { return distributed::read_cluster(path).nodes; }

std::string cluster_node_platform(const std::string& path) {
  return distributed::read_cluster(path).node_file;
}

void run_simulated_cluster(const SimulatedClusterOptions& options,
                           const std::function<void(Distributed&)>& rank_main) {
  distributed::ClusterSpec spec = distributed::read_cluster(options.cluster);
  const int ranks = options.ranks == 0 ? spec.nodes : options.ranks;
  if (ranks < 0 || ranks > spec.nodes)
    throw UsageError(fmt::format("cluster {} has {} nodes: cannot run {} ranks (one per node)",
                                 options.cluster, spec.nodes, ranks));
  if (!options.runtime.devices.empty())
    throw UsageError("a simulated cluster's nodes bring their own devices: leave devices empty");

  // One clock for every rank; the CPU tasks' model is the node's host (a platform that shares a
  // clock leaves its CPU model to the clock's owner).
  auto clock = std::make_shared<device::VirtualClock>();
  auto node = std::make_shared<const device::simulated::PlatformSpec>(spec.node);
  clock->cpu_task_seconds = [node](const device::CodeletImpl& c, const TaskContext& ctx) {
    return node->host.seconds(c, ctx, "platform " + node->name + ", host");
  };
  clock->run_cpu_functions = options.runtime.platform_run_kernels;
  auto world = std::make_shared<distributed::SimulatedWorld>(spec, ranks, clock,
                                                             options.runtime.platform_run_kernels);

  RuntimeOptions runtime = options.runtime;
  runtime.platform = spec.node_file;
  runtime.platform_clock = clock;

  // The ranks take their first turns in rank order (queued before any thread starts), so the
  // run is the same every time.
  for (int r = 0; r < ranks; ++r) clock->wake(world->token(r));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::atomic<int> first_failure{-1};  // the rank that failed on its own; the others follow it
  auto failed = [&](int r) {
    errors[static_cast<std::size_t>(r)] = std::current_exception();
    int none = -1;
    first_failure.compare_exchange_strong(none, r);
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      clock->take_turn(world->token(r));
      std::optional<Runtime> rt;
      try {
        rt.emplace(runtime);
      } catch (...) {
        failed(r);
        clock->running(-1);  // no runtime took this thread over: leave the clock
        world->depart(r, describe(errors[static_cast<std::size_t>(r)]));
        return;
      }
      try {
        Distributed dist(*rt, std::make_shared<distributed::SimulatedTransport>(world, r));
        rank_main(dist);
      } catch (...) {
        failed(r);
        world->depart(r, describe(errors[static_cast<std::size_t>(r)]));
      }
      rt.reset();  // the runtime's end takes this thread off the clock
    });
  for (auto& t : threads) t.join();
  if (first_failure >= 0) std::rethrow_exception(errors[static_cast<std::size_t>(first_failure)]);
}

}  // namespace conveyor
