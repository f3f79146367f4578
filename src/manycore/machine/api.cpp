// The public entry points: configuration to and from JSON, running an ELF, the result as JSON.
#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "conveyor/sim.hpp"
#include "machine/elf.hpp"
#include "machine/machine.hpp"

namespace conveyor::sim {

const char* stall_cause_name(StallCause cause) {
  switch (cause) {
    case StallCause::kDmaWait:
      return "dma_wait";
    case StallCause::kSbFull:
      return "sb_full";
    case StallCause::kDmaQueue:
      return "dma_queue";
    case StallCause::kGetWait:
      return "get_wait";
    case StallCause::kBarrier:
      return "barrier";
    default:
      return "?";
  }
}

uint64_t NodeStats::stall_cycles() const {
  uint64_t sum = 0;
  for (int c = 0; c < static_cast<int>(StallCause::kCount); ++c)
    if (c != static_cast<int>(StallCause::kBarrier)) sum += stalls[c];
  return sum;
}

nlohmann::json to_json(const SimConfig& c) {
  return {{"mesh_width", c.mesh_width},
          {"mesh_height", c.mesh_height},
          {"local_memory_bytes", c.local_memory_bytes},
          {"store_buffer_entries", c.store_buffer_entries},
          {"watch_get", c.watch_get},
          {"split_requests", c.split_requests},
          {"flit_bytes", c.flit_bytes},
          {"packet_payload_bytes", c.packet_payload_bytes},
          {"router_buffer_flits", c.router_buffer_flits},
          {"dma_queue_depth", c.dma_queue_depth},
          {"dma_setup_cycles", c.dma_setup_cycles},
          {"barrier_latency_cycles", c.barrier_latency_cycles},
          {"main_memory_bytes", c.main_memory_bytes},
          {"main_memory_latency_cycles", c.main_memory_latency_cycles},
          {"main_memory_bytes_per_cycle", c.main_memory_bytes_per_cycle},
          {"max_cycles", c.max_cycles}};
}

SimConfig config_from_json(const nlohmann::json& json, SimConfig c) {
  if (!json.is_object()) throw UsageError("sim config: expected a JSON object");
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    auto number = [&]() -> int64_t {
      if (!v.is_number_integer())
        throw UsageError(fmt::format("sim config: {} must be an integer", key));
      return v.get<int64_t>();
    };
    auto flag = [&]() -> bool {
      if (!v.is_boolean())
        throw UsageError(fmt::format("sim config: {} must be true or false", key));
      return v.get<bool>();
    };
    if (key == "mesh_width")
      c.mesh_width = static_cast<int>(number());
    else if (key == "mesh_height")
      c.mesh_height = static_cast<int>(number());
    else if (key == "local_memory_bytes")
      c.local_memory_bytes = static_cast<uint32_t>(number());
    else if (key == "store_buffer_entries")
      c.store_buffer_entries = static_cast<int>(number());
    else if (key == "watch_get")
      c.watch_get = flag();
    else if (key == "split_requests")
      c.split_requests = flag();
    else if (key == "flit_bytes")
      c.flit_bytes = static_cast<int>(number());
    else if (key == "packet_payload_bytes")
      c.packet_payload_bytes = static_cast<int>(number());
    else if (key == "router_buffer_flits")
      c.router_buffer_flits = static_cast<int>(number());
    else if (key == "dma_queue_depth")
      c.dma_queue_depth = static_cast<int>(number());
    else if (key == "dma_setup_cycles")
      c.dma_setup_cycles = static_cast<int>(number());
    else if (key == "barrier_latency_cycles")
      c.barrier_latency_cycles = static_cast<int>(number());
    else if (key == "main_memory_bytes")
      c.main_memory_bytes = static_cast<uint32_t>(number());
    else if (key == "main_memory_latency_cycles")
      c.main_memory_latency_cycles = static_cast<int>(number());
    else if (key == "main_memory_bytes_per_cycle")
      c.main_memory_bytes_per_cycle = static_cast<int>(number());
    else if (key == "max_cycles")
      c.max_cycles = static_cast<uint64_t>(number());
    else
      throw UsageError(fmt::format("sim config: unknown key '{}'", key));
  }
  return c;
}

void validate(const SimConfig& c) {
  auto check = [](bool ok, const std::string& what) {
    if (!ok) throw UsageError("sim: " + what);
  };
  check(c.mesh_width >= 1 && c.mesh_height >= 1 && c.nodes() <= 1024,
        fmt::format("mesh {}x{} out of range (1 to 1024 nodes)", c.mesh_width, c.mesh_height));
  check(c.local_memory_bytes >= 4096 && c.local_memory_bytes <= (256u << 20) &&
            c.local_memory_bytes % 4 == 0,
        "local_memory_bytes must be a multiple of 4 from 4096 to 256 MiB");
  check(c.store_buffer_entries >= 0 && c.store_buffer_entries <= 1024,
        "store_buffer_entries must be 0 to 1024");
  check(!(c.watch_get || c.split_requests) || c.store_buffer_entries > 0,
        "--watch-get and --split-requests need a store buffer (entries > 0)");
  check(c.flit_bytes == 1 || c.flit_bytes == 2 || c.flit_bytes == 4 || c.flit_bytes == 8,
        "flit_bytes must be 1, 2, 4 or 8");
  check(c.packet_payload_bytes >= c.flit_bytes && c.packet_payload_bytes <= 4096,
        "packet_payload_bytes must be from flit_bytes to 4096");
  check(c.router_buffer_flits >= 1 && c.router_buffer_flits <= 16,
        "router_buffer_flits must be 1 to 16");
  check(c.dma_queue_depth >= 1 && c.dma_queue_depth <= 64, "dma_queue_depth must be 1 to 64");
  check(c.dma_setup_cycles >= 0 && c.dma_setup_cycles <= 100000,
        "dma_setup_cycles must be 0 to 100000");
  check(c.barrier_latency_cycles >= -1 && c.barrier_latency_cycles <= 100000,
        "barrier_latency_cycles must be -1 (W+H) to 100000");
  check(c.main_memory_bytes >= 4096, "main_memory_bytes must be at least 4096");
  check(c.main_memory_latency_cycles >= 0 && c.main_memory_latency_cycles <= 1000000,
        "main_memory_latency_cycles must be 0 to 1e6");
  check(c.main_memory_bytes_per_cycle >= 1 && c.main_memory_bytes_per_cycle <= 4096,
        "main_memory_bytes_per_cycle must be 1 to 4096");
  // Flits carry the low 32 bits of their ready cycle.
  check(c.max_cycles >= 1 && c.max_cycles <= 4'000'000'000ull, "max_cycles must be 1 to 4e9");
}

SimResult run_elf_image(const SimConfig& config, const std::vector<uint8_t>& file,
                        const std::string& name, std::ostream* console) {
  validate(config);
  manycore::ElfImage image = manycore::load_elf(file, name, config.local_memory_bytes);
  manycore::Machine machine(config, image, console);
  return machine.run();
}

SimResult run_elf(const SimConfig& config, const std::string& path, std::ostream* console) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read program '{}'", path));
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return run_elf_image(config, file, path, console);
}

nlohmann::json to_json(const SimResult& r, bool per_node) {
  nlohmann::json j;
  j["cycles"] = r.cycles;
  j["total_cycles"] = r.total_cycles;
  j["instructions"] = r.instructions;
  j["stall_cycles"] = r.stall_cycles;
  nlohmann::json stalls;
  for (int c = 0; c < static_cast<int>(StallCause::kCount); ++c)
    stalls[std::string(stall_cause_name(static_cast<StallCause>(c))) + "_cycles"] = r.stalls[c];
  j["stalls"] = stalls;
  uint64_t occ = 0, put = 0, sb_put = 0, data = 0, req = 0, maxocc = 0, held_data = 0, held_req = 0;
  for (const NodeStats& n : r.nodes) {
    occ += n.sb_occupancy_sum;
    put += n.put_cycles;
    sb_put += n.sb_put_cycles;
    data += n.sb_put_data_cycles;
    req += n.sb_put_req_cycles;
    held_data += n.sb_held_data_cycles;
    held_req += n.sb_held_request_cycles;
    maxocc = std::max<uint64_t>(maxocc, n.sb_max_occupancy);
  }
  const double node_cycles = static_cast<double>(r.cycles) * static_cast<double>(r.nodes.size());
  auto share = [&](uint64_t v) {
    return node_cycles > 0 ? static_cast<double>(v) / node_cycles : 0.0;
  };
  j["sb_mean_occupancy"] = share(occ);
  j["sb_max_occupancy"] = maxocc;
  j["put_cycles"] = put;
  j["sb_put_cycles"] = sb_put;
  j["sb_put_data_cycles"] = data;
  j["sb_put_request_cycles"] = req;
  j["sb_put_fraction"] = share(sb_put);
  j["sb_put_data_fraction"] = share(data);
  j["sb_put_request_fraction"] = share(req);
  j["sb_held_data_cycles"] = held_data;
  j["sb_held_request_cycles"] = held_req;
  j["network_flits"] = r.network_flits;
  j["router_flits"] = r.router_flits;
  j["passed"] = r.passed;
  j["sim_seconds"] = r.seconds;
  j["sim_cpu_seconds"] = r.cpu_seconds;
  j["instructions_per_cpu_second"] =
      r.cpu_seconds > 0 ? static_cast<double>(r.instructions) / r.cpu_seconds : 0.0;
  j["instructions_per_second"] =
      r.seconds > 0 ? static_cast<double>(r.instructions) / r.seconds : 0.0;
  j["cycles_per_second"] = r.seconds > 0 ? static_cast<double>(r.total_cycles) / r.seconds : 0.0;
  if (per_node) {
    nlohmann::json nodes = nlohmann::json::array();
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      const NodeStats& n = r.nodes[i];
      nlohmann::json row{{"node", i},
                         {"instructions", n.instructions},
                         {"exit_code", n.exit_code},
                         {"stall_cycles", n.stall_cycles()},
                         {"put_cycles", n.put_cycles},
                         {"sb_put_data_cycles", n.sb_put_data_cycles},
                         {"sb_put_request_cycles", n.sb_put_req_cycles},
                         {"sb_held_data_cycles", n.sb_held_data_cycles},
                         {"sb_held_request_cycles", n.sb_held_request_cycles},
                         {"dma_puts", n.dma_puts},
                         {"dma_gets", n.dma_gets},
                         {"dma_bytes", n.dma_bytes}};
      for (int c = 0; c < static_cast<int>(StallCause::kCount); ++c)
        row[std::string(stall_cause_name(static_cast<StallCause>(c))) + "_cycles"] = n.stalls[c];
      nodes.push_back(row);
    }
    j["per_node"] = nodes;
  }
  return j;
}

}  // namespace conveyor::sim
