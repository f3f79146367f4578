#pragma once
/// Manycore simulator (seed 002): a W x H mesh of DMA-based nodes, each an RV32IM core with a
/// private local memory, a DMA controller and a wormhole router, running one bare-metal ELF (SPMD).
/// The store-buffer proposal (a store buffer plus a violation detector that lets the core run past
/// a blocking DMA PUT) is switched on with store_buffer_entries > 0.
///
///   conveyor::sim::SimConfig config;
///   config.mesh_width = config.mesh_height = 8;
///   config.store_buffer_entries = 32;
///   auto result = conveyor::sim::run_elf(config, "pipeline.elf", &std::cout);
///   std::cout << result.cycles << " cycles, " << result.stall_cycles << " stall cycles\n";
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/progress.hpp"

namespace conveyor::sim {

/// Every parameter of the simulated machine; all can be set from the CLI or a JSON config file and
/// are echoed in the output (to_json).
struct SimConfig {
  int mesh_width = 4;
  int mesh_height = 4;
  uint32_t local_memory_bytes = 512 * 1024;  ///< per node, 1-cycle access on every port
  int store_buffer_entries = 0;              ///< 0 = baseline: no store buffer, no detector
  bool watch_get = false;       ///< extension: core runs past a blocking GET, loads wait per byte
  bool split_requests = false;  ///< extension: DMA-request stores in their own queue
  int flit_bytes = 8;           ///< payload bytes per flit (1, 2, 4 or 8)
  int packet_payload_bytes = 128;  ///< DMA transfers are cut into packets of at most this much
  int router_buffer_flits = 4;     ///< input buffer depth per router port
  int dma_queue_depth = 4;         ///< DMA commands the engine holds before the core stalls
  /// Cycles from a DMA command reaching the controller to its first flit (0: the same cycle). The
  /// seed gives none; a blocking PUT's whole source is watched from the command on.
  int dma_setup_cycles = 0;
  int barrier_latency_cycles = 0;  ///< extra cycles from the last arrival to release; <0: W+H
  uint32_t main_memory_bytes = 16 * 1024 * 1024;
  int main_memory_latency_cycles = 100;
  int main_memory_bytes_per_cycle = 8;
  uint64_t max_cycles = 200'000'000;  ///< the run stops with an error past this
  /// Simulator speed only, not part of the model: idle-DMA cores run a few cycles ahead of the
  /// others where nothing can reach them (docs/sim.md, "The simulation loop"). The results are
  /// identical either way (tests/unit/manycore/test_run_ahead.cpp); false forces plain lockstep.
  bool run_ahead = true;
  int nodes() const { return mesh_width * mesh_height; }
};

nlohmann::json to_json(const SimConfig& config);
/// Applies the keys of `json` (same names as to_json) over `base`; unknown keys or bad values
/// throw UsageError.
SimConfig config_from_json(const nlohmann::json& json, SimConfig base);
/// Throws UsageError naming the first parameter out of range.
void validate(const SimConfig& config);

/// Why a core did not retire an instruction in a cycle.
enum class StallCause : int {
  kDmaWait,  ///< waiting for its own DMA to complete (blocking PUT/GET, wait, fence before barrier)
  kSbFull,   ///< store buffer full
  kDmaQueue,  ///< DMA command queue full
  kGetWait,   ///< (watch_get) a load from a range a blocking GET has not delivered yet
  kBarrier,   ///< waiting for the other nodes at a barrier
  kCount
};
const char* stall_cause_name(StallCause cause);

struct NodeStats {
  uint64_t instructions = 0;
  uint64_t stalls[static_cast<int>(StallCause::kCount)] = {};
  uint64_t sb_occupancy_sum = 0;  ///< sum over cycles of buffered entries (mean = sum / cycles)
  uint32_t sb_max_occupancy = 0;
  uint64_t put_cycles = 0;          ///< cycles with a blocking PUT in flight
  uint64_t sb_put_cycles = 0;       ///< ... with any store buffered (seed figure 6)
  uint64_t sb_put_data_cycles = 0;  ///< ... with a data store buffered (figure 7)
  uint64_t sb_put_req_cycles = 0;   ///< ... with a DMA-request store buffered (figure 8)
  /// Cycles the buffer's head could not leave: a data store held by the violation detector (its
  /// bytes not yet read by the blocking PUT, or not yet arrived for a watched GET) ...
  uint64_t sb_held_data_cycles = 0;
  /// ... or a DMA-request store waiting for the earlier transfer to complete.
  uint64_t sb_held_request_cycles = 0;
  uint64_t dma_puts = 0, dma_gets = 0, dma_bytes = 0;
  uint64_t roi_begin = 0, roi_end = 0;
  int exit_code = -1;
  /// Cycles lost to communication (the seed's figure 5): every cause except kBarrier.
  uint64_t stall_cycles() const;
};

struct SimResult {
  uint64_t cycles = 0;        ///< region of interest (first ROI begin to last ROI end), else all
  uint64_t total_cycles = 0;  ///< until the last node exited and the network drained
  uint64_t instructions = 0;  ///< all nodes, whole run
  uint64_t stall_cycles = 0;  ///< sum over nodes, region of interest
  uint64_t stalls[static_cast<int>(StallCause::kCount)] = {};
  std::vector<NodeStats> nodes;
  std::vector<uint64_t> router_flits;  ///< flits forwarded per router (all output ports)
  uint64_t network_flits = 0;          ///< flits injected
  bool passed = false;                 ///< every node exited with code 0
  double seconds = 0;                  ///< host wall time of the simulation loop
  double cpu_seconds = 0;              ///< host CPU time of the simulating thread (load-proof)
};

/// A program misbehaved (illegal instruction, bad access, bad DMA, deadlock, cycle limit): the
/// message is one line naming node, pc and cause.
class SimFault : public Error {
 public:
  using Error::Error;
};

/// Loads the ELF32 RISC-V file into every node and runs it to completion. Console output of the
/// nodes goes to `console` ("[node] text" per line, null to drop it). Throws UsageError for a bad
/// config or file, SimFault when the program misbehaves.
SimResult run_elf(const SimConfig& config, const std::string& elf_path, std::ostream* console);

/// The same from an ELF image in memory.
SimResult run_elf_image(const SimConfig& config, const std::vector<uint8_t>& image,
                        const std::string& name, std::ostream* console);

/// The seed's five benchmarks, in the order of its figures.
const std::vector<std::string>& benchmark_names();

/// Where the built programs are: `override_dir` when not empty, else $CONVEYOR_SIM_PROGRAMS,
/// else the build tree's manycore/programs folder (baked in at configure time).
std::string programs_dir(const std::string& override_dir);

/// `name_or_path` as a file when it names one, else `DIR/NAME.elf` in programs_dir(); throws
/// UsageError saying how to build the programs when it is missing.
std::string resolve_program(const std::string& name_or_path, const std::string& override_dir);

/// The result as one JSON object (config not included).
nlohmann::json to_json(const SimResult& result, bool per_node);

/// The machine as `conveyor sim` and conveyor.sim take it: a JSON config file (keys as to_json
/// writes them) and the CLI's flags over it. A flag at its "unset" value (0, -1, -2 for
/// barrier_latency, empty text) keeps the file's or the default value.
struct MachineRequest {
  std::string config_file;
  std::string mesh;  ///< "WxH"
  int nodes = 0;     ///< a square mesh
  int entries = -1;
  bool watch_get = false;
  bool split_requests = false;
  int flit_bytes = 0, packet_bytes = 0, router_buffer = 0, dma_queue = 0, dma_setup = -1;
  int barrier_latency = -2, mem_latency = -1, mem_bandwidth = 0;
  std::string local_memory, main_memory;  ///< sizes with suffixes ("512K")
  uint64_t max_cycles = 0;
  std::string programs;  ///< folder of built programs (programs_dir)
};
/// The machine a request describes, validated. Throws UsageError naming the bad option.
SimConfig build_config(const MachineRequest& request);
/// {side, side} for a square node count; throws UsageError otherwise.
std::pair<int, int> square_mesh(int nodes);
/// Host threads a sweep runs on by default: one per hardware thread.
int default_sweep_threads();

/// One simulation of a sweep: a benchmark on one machine, and its result once run.
struct SimJob {
  std::string benchmark;
  SimConfig config;
  std::string variant;  ///< a label (sim extensions), empty in a sweep
  SimResult result;
};
/// Runs the jobs on `threads` host threads, programs resolved in `programs` (resolve_program); the
/// first failure, a run that fails its check included, is rethrown after all stop. `progress`, when
/// given, hears of every finished job ("simulations", done of jobs.size()), one call at a time.
void run_jobs(std::vector<SimJob>& jobs, int threads, const std::string& programs,
              const ProgressFn& progress = {});

/// `conveyor sim sweep` as the CLI and conveyor.sim.sweep() take it: benchmarks x node counts x
/// store-buffer sizes, each against the 0-entry run (the seed's figures 4 and 5).
struct SweepRequest {
  std::vector<std::string> benchmarks;  ///< empty: benchmark_names()
  std::string nodes = "16,64";          ///< square node counts, a list ("16,64")
  std::string entries = "0,8,16,32";    ///< store-buffer sizes; 0 is added when missing
  int threads = 0;                      ///< 0: default_sweep_threads()
  MachineRequest machine;               ///< mesh, nodes, entries and the extensions are not used
};
/// A checked sweep: its jobs (results filled by run_sweep) and what the document records.
struct SweepPlan {
  SimConfig base;
  std::vector<int> nodes, entries;
  int threads = 1;
  std::string programs;
  std::vector<SimJob> jobs;
  ProgressFn progress;  ///< hears of every finished simulation (may be empty)
};
/// Throws UsageError naming the bad option.
SweepPlan plan_sweep(const SweepRequest& request);
/// Runs every job of the plan (run_jobs).
void run_sweep(SweepPlan& plan);
/// The "options" record, result rows and notes of a sweep document (`--json-out`), after run_sweep.
nlohmann::json sweep_options_record(const SweepPlan& plan);
nlohmann::json sweep_rows(const SweepPlan& plan);
std::vector<std::string> sweep_notes(const SweepPlan& plan);

}  // namespace conveyor::sim
