// The machine a user describes with `conveyor sim` flags (or conveyor.sim keywords in Python), the
// jobs of a sweep run side by side, and the sweep's result document: one implementation for both.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "conveyor/error.hpp"
#include "conveyor/sim.hpp"
#include "conveyor/units.hpp"

namespace conveyor::sim {
namespace {

SimConfig load_config_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UsageError(fmt::format("sim: cannot read config '{}'", file));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error&) {
    throw UsageError(fmt::format("sim: config '{}' is not JSON", file));
  }
  return config_from_json(j, SimConfig{});
}

void apply_mesh(const std::string& mesh, SimConfig& c) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  std::istringstream in(mesh);
  if (!(in >> w >> x >> h) || (x != 'x' && x != 'X') || (in >> extra))
    throw UsageError(fmt::format("sim: --mesh '{}' is not WxH (e.g. 8x8)", mesh));
  c.mesh_width = w;
  c.mesh_height = h;
}

/// "0,8,16,32" -> {0, 8, 16, 32}; unlike parse_list, 0 is allowed (the baseline).
std::vector<int> parse_counts(const std::string& text, const char* what) {
  std::vector<int> values;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      size_t used = 0;
      int v = std::stoi(item, &used);
      if (used != item.size() || v < 0) throw std::invalid_argument(item);
      values.push_back(v);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("sim: {}: '{}' is not a count", what, item));
    }
  }
  if (values.empty()) throw UsageError(fmt::format("sim: {}: empty list", what));
  return values;
}

/// The run of the same benchmark and node count without a store buffer.
const SimJob& baseline_of(const std::vector<SimJob>& jobs, const SimJob& job) {
  const SimJob* baseline = nullptr;
  for (const SimJob& other : jobs)
    if (other.benchmark == job.benchmark && other.config.nodes() == job.config.nodes() &&
        other.config.store_buffer_entries == 0)
      baseline = &other;
  return *baseline;
}

}  // namespace

SimConfig build_config(const MachineRequest& o) {
  SimConfig c = o.config_file.empty() ? SimConfig{} : load_config_file(o.config_file);
  if (!o.mesh.empty()) apply_mesh(o.mesh, c);
  if (o.nodes) std::tie(c.mesh_width, c.mesh_height) = square_mesh(o.nodes);
  if (o.entries >= 0) c.store_buffer_entries = o.entries;
  if (o.watch_get) c.watch_get = true;
  if (o.split_requests) c.split_requests = true;
  if (o.flit_bytes) c.flit_bytes = o.flit_bytes;
  if (o.packet_bytes) c.packet_payload_bytes = o.packet_bytes;
  if (o.router_buffer) c.router_buffer_flits = o.router_buffer;
  if (o.dma_queue) c.dma_queue_depth = o.dma_queue;
  if (o.dma_setup >= 0) c.dma_setup_cycles = o.dma_setup;
  if (o.barrier_latency != -2) c.barrier_latency_cycles = o.barrier_latency;
  if (o.mem_latency >= 0) c.main_memory_latency_cycles = o.mem_latency;
  if (o.mem_bandwidth) c.main_memory_bytes_per_cycle = o.mem_bandwidth;
  if (!o.local_memory.empty())
    c.local_memory_bytes = static_cast<uint32_t>(parse_bytes(o.local_memory, "--local-memory"));
  if (!o.main_memory.empty())
    c.main_memory_bytes = static_cast<uint32_t>(parse_bytes(o.main_memory, "--main-memory"));
  if (o.max_cycles) c.max_cycles = o.max_cycles;
  validate(c);
  return c;
}

std::pair<int, int> square_mesh(int nodes) {
  int side = static_cast<int>(std::lround(std::sqrt(nodes)));
  if (side * side != nodes)
    throw UsageError(fmt::format("sim: {} nodes is not a square mesh; use --mesh WxH", nodes));
  return {side, side};
}

int default_sweep_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

void run_jobs(std::vector<SimJob>& jobs, int threads, const std::string& programs,
              const ProgressFn& progress) {
  std::vector<std::string> paths;
  for (SimJob& job : jobs) paths.push_back(resolve_program(job.benchmark, programs));
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(jobs.size());
  std::mutex progress_mutex;  // one call at a time, as ProgressFn promises; once per job
  size_t finished = 0;
  auto report = [&] {
    if (!progress) return;
    std::lock_guard lock(progress_mutex);
    progress({"simulations", finished, jobs.size()});
    ++finished;
  };
  report();  // 0 of N: the sweep has started
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      try {
        jobs[i].result = run_elf(jobs[i].config, paths[i], nullptr);
        if (!jobs[i].result.passed)
          throw Error(fmt::format("sim: {} failed its check on {} nodes with {} entries",
                                  jobs[i].benchmark, jobs[i].config.nodes(),
                                  jobs[i].config.store_buffer_entries));
      } catch (...) {
        errors[i] = std::current_exception();
      }
      report();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

SweepPlan plan_sweep(const SweepRequest& o) {
  // The CLI's own option check says the same; this one is for callers without it (Python).
  if (o.threads < 0 || o.threads > 256)
    throw UsageError(fmt::format("sim: --threads: {} is not in 1..256", o.threads));
  SweepPlan plan;
  plan.base = build_config(o.machine);
  plan.nodes = parse_list(o.nodes, "--nodes");
  plan.entries = parse_counts(o.entries, "--entries");
  if (std::find(plan.entries.begin(), plan.entries.end(), 0) == plan.entries.end())
    plan.entries.insert(plan.entries.begin(), 0);  // the baseline every ratio is taken against
  for (const std::string& b : o.benchmarks.empty() ? benchmark_names() : o.benchmarks)
    for (int n : plan.nodes)
      for (int e : plan.entries) {
        SimJob job{b, plan.base, "", {}};
        std::tie(job.config.mesh_width, job.config.mesh_height) = square_mesh(n);
        job.config.store_buffer_entries = e;
        validate(job.config);
        plan.jobs.push_back(job);
      }
  plan.threads = o.threads > 0 ? o.threads : default_sweep_threads();
  plan.programs = o.machine.programs;
  return plan;
}

void run_sweep(SweepPlan& plan) { run_jobs(plan.jobs, plan.threads, plan.programs, plan.progress); }

nlohmann::json sweep_options_record(const SweepPlan& plan) {
  nlohmann::json options = to_json(plan.base);
  // Each job has its own mesh and store buffer: the lists below say which.
  options.erase("mesh_width");
  options.erase("mesh_height");
  options.erase("store_buffer_entries");
  options["nodes"] = plan.nodes;
  options["entries"] = plan.entries;
  options["threads"] = plan.threads;
  return options;
}

nlohmann::json sweep_rows(const SweepPlan& plan) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SimJob& job : plan.jobs) {
    const SimResult& r = job.result;
    const SimResult& b = baseline_of(plan.jobs, job).result;
    nlohmann::json row{{"benchmark", job.benchmark},
                       {"nodes", job.config.nodes()},
                       {"entries", job.config.store_buffer_entries},
                       {"cycles", r.cycles},
                       {"relative_cycles", b.cycles ? double(r.cycles) / double(b.cycles) : 0.0},
                       {"stall_cycles", r.stall_cycles},
                       {"relative_stalls",
                        b.stall_cycles ? double(r.stall_cycles) / double(b.stall_cycles) : 0.0}};
    nlohmann::json full = to_json(r, false);
    for (const char* key : {"sb_put_fraction", "sb_put_data_fraction", "sb_put_request_fraction",
                            "sb_mean_occupancy", "sb_max_occupancy", "instructions", "stalls"})
      row[key] = full[key];
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> sweep_notes(const SweepPlan& plan) {
  double host_seconds = 0;
  uint64_t instructions = 0;
  for (const SimJob& job : plan.jobs) {
    host_seconds += job.result.seconds;
    instructions += job.result.instructions;
  }
  return {fmt::format("{} runs on {} host threads; {:.0f} M simulated instructions in {:.1f} "
                      "s of simulation (sum over threads)",
                      plan.jobs.size(), plan.threads, instructions / 1e6, host_seconds),
          "stall_cycles: cycles a core waited for its own DMA or a full store buffer, "
          "summed over nodes, region of interest; barrier waits excluded"};
}

}  // namespace conveyor::sim
