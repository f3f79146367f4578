#include "core/thread_team.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"

namespace conveyor::core {
namespace {

// Spinning keeps fork/join latency near a microsecond for back-to-back regions; after this many
// polls a waiter blocks (futex through std::atomic::wait) so idle members burn no core.
constexpr int kSpinPolls = 20000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

template <typename T, typename Pred>
void spin_then_wait(const std::atomic<T>& value, T seen, Pred done) {
  for (int i = 0; i < kSpinPolls; ++i) {
    if (done()) return;
    cpu_relax();
  }
  while (!done()) {
    value.wait(seen, std::memory_order_acquire);
    seen = value.load(std::memory_order_acquire);
  }
}

std::vector<int> current_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

void set_affinity(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

}  // namespace

bool pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

std::vector<int> ThreadTeam::placement(int threads, ThreadBinding binding) {
  const Topology& t = host_topology();
  std::size_t hardware_threads = 0;
  for (const auto& core : t.cores) hardware_threads += core.pus.size();
  if (threads < 1 || static_cast<std::size_t>(threads) > hardware_threads)
    throw UsageError(
        fmt::format("--threads: {} is outside 1..{} (hardware threads of this machine)", threads,
                    hardware_threads));
  if (binding == ThreadBinding::None) return {};

  std::vector<const Core*> order;
  for (const auto& core : t.cores) order.push_back(&core);
  if (binding == ThreadBinding::Scatter) {
    // Round-robin over (package, NUMA node) domains so that threads 0, 1, ... land on different
    // domains.
    std::vector<std::vector<const Core*>> domains;
    std::vector<std::pair<int, int>> keys;
    for (const Core* core : order) {
      std::pair<int, int> key{core->package, core->numa_node};
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) {
        keys.push_back(key);
        domains.emplace_back();
        it = keys.end() - 1;
      }
      domains[it - keys.begin()].push_back(core);
    }
    order.clear();
    for (std::size_t i = 0; order.size() < t.cores.size(); ++i)
      for (const auto& domain : domains)
        if (i < domain.size()) order.push_back(domain[i]);
  }
  std::vector<int> cpus;
  for (std::size_t smt = 0; cpus.size() < static_cast<std::size_t>(threads); ++smt)
    for (const Core* core : order)
      if (smt < core->pus.size() && cpus.size() < static_cast<std::size_t>(threads))
        cpus.push_back(core->pus[smt]);
  return cpus;
}

ThreadTeam::ThreadTeam(int threads, std::vector<int> cpus) : cpus_(std::move(cpus)) {
  if (threads < 1) throw UsageError("a thread team needs at least one thread");
  if (!cpus_.empty() && static_cast<int>(cpus_.size()) != threads)
    throw Error("ThreadTeam: one CPU per thread expected");
  if (!cpus_.empty()) {
    caller_affinity_ = current_affinity();
    pin_current_thread(cpus_[0]);
  }
  workers_.reserve(threads - 1);
  for (int member = 1; member < threads; ++member)
    workers_.emplace_back([this, member] { worker_loop(member); });
}

ThreadTeam::~ThreadTeam() {
  stopping_ = true;
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto& worker : workers_) worker.join();
  if (!caller_affinity_.empty()) set_affinity(caller_affinity_);
}

void ThreadTeam::run_member(int member) {
  try {
    job_(context_, member);
  } catch (...) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

void ThreadTeam::worker_loop(int member) {
  if (!cpus_.empty()) pin_current_thread(cpus_[member]);
  std::uint64_t seen = 0;
  for (;;) {
    spin_then_wait(generation_, seen,
                   [&] { return generation_.load(std::memory_order_acquire) != seen; });
    seen = generation_.load(std::memory_order_acquire);
    if (stopping_) return;
    run_member(member);
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_one();
  }
}

void ThreadTeam::run_erased(Job job, void* context) {
  job_ = job;
  context_ = context;
  error_ = nullptr;
  remaining_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  run_member(0);
  spin_then_wait(remaining_, remaining_.load(std::memory_order_acquire),
                 [&] { return remaining_.load(std::memory_order_acquire) == 0; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace conveyor::core
