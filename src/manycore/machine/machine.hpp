#pragma once
// The simulated machine: nodes (core + local memory + store buffer + DMA), the mesh, the main
// memory controller and a hardware barrier, advanced together one cycle at a time.
#include <cstdint>
#include <cstdlib>
#include <iosfwd>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "conveyor/sim.hpp"
#include "dma/dma.hpp"
#include "isa/decode.hpp"
#include "machine/elf.hpp"
#include "memory/store_buffer.hpp"
#include "noc/mesh.hpp"

namespace conveyor::manycore {

// The public types of conveyor/sim.hpp that the machine is configured with and fills in.
using sim::NodeStats;
using sim::SimConfig;
using sim::SimFault;
using sim::SimResult;
using sim::StallCause;

struct PendingPut {  ///< split mode: a blocking PUT the core issued that has not started yet
  uint64_t seq;
  uint32_t lo, hi;
};

/// Zero-filled bytes from calloc: large blocks come straight from the kernel as zero pages, so
/// memory a program never touches costs nothing (64 x 512 KiB local memories, 16 MiB main memory).
class ZeroedBytes {
 public:
  void assign(size_t size) {
    bytes_.reset(static_cast<uint8_t*>(std::calloc(size ? size : 1, 1)));
    if (!bytes_) throw std::bad_alloc();
    size_ = size;
  }
  uint8_t* data() { return bytes_.get(); }
  const uint8_t* data() const { return bytes_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> bytes_;
  size_t size_ = 0;
};

struct Node {
  // Read every cycle by the loop and the core: kept together at the front (cache lines).
  uint32_t pc = 0;
  bool halted = false;
  bool in_roi = true;
  bool at_barrier = false;
  bool watch = false;  ///< watch_get: a blocking GET the core ran past is being watched
  int sb_data = 0, sb_requests = 0;  ///< entries of each kind buffered
  uint8_t* mem = nullptr;
  uint64_t wake = 0;          ///< at a barrier: the release cycle
  uint64_t wait_command = 0;  ///< >0: stalled until dma.completed >= this (a blocking transfer)
  uint64_t retired = 0;
  uint32_t x[32] = {};
  SbQueue sb;
  // Touched when something happens.
  uint64_t sleep_since = 0;  ///< at a barrier: the arrival cycle
  uint64_t barrier_target = 0;
  uint64_t commands_issued = 0;  ///< DMA commands the core executed
  uint64_t roi_retired = 0;      ///< `retired` when the region of interest began
  uint64_t seq = 0;              ///< store program order
  uint32_t shadow[5] = {};       ///< DMA registers as the core wrote them (not yet drained)
  uint32_t regs[5] = {};         ///< DMA registers as the controller holds them
  SbQueue sb_req;
  std::vector<PendingPut> pending;  ///< split mode
  uint64_t watch_command = 0;
  uint64_t watch_seq = 0;  ///< program order of the GET's command store
  uint32_t watch_lo = 0, watch_hi = 0;
  Dma dma;
  NodeStats stats;
  std::string line;  ///< console text up to the next newline
};

class Machine {
 public:
  Machine(const SimConfig& config, const ElfImage& image, std::ostream* console);
  SimResult run();

 private:
  // core/core.cpp
  void run_cycles();
  bool may_run_ahead(const Node& n, int id) const;
  bool nothing_to_step(const Node& n, int id) const;
  uint32_t run_quiet(Node& n, int id, uint32_t cycles);
  void step_core(Node& n, int id);
  template <bool kQuiet>
  bool execute(Node& n, int id);
  bool quiet_store(Node& n, uint32_t addr, uint32_t size, uint32_t value);
  template <bool kQuiet, typename T>
  bool narrow_load(Node& n, int id, uint32_t addr, uint32_t& rd);
  uint64_t load(Node& n, int id, uint32_t addr, uint32_t size);
  bool store(Node& n, int id, uint32_t addr, uint32_t size, uint32_t value);
  bool mmio_load(Node& n, int id, uint32_t reg, uint32_t& value);
  bool mmio_store(Node& n, int id, uint32_t reg, uint32_t value);
  bool own_dma_done(const Node& n) const;
  void stall(Node& n, StallCause cause) { n.stats.stalls[static_cast<int>(cause)] += n.in_roi; }
  [[noreturn]] void fault(int id, uint32_t pc, const std::string& cause) const;
  // memory/drain.cpp
  void drain(Node& n, int id);
  void drain_one(Node& n, int id);
  void apply_request(Node& n, int id, const SbEntry& e);
  bool data_hazard(const Node& n, const SbEntry& e) const;
  // dma/engine.cpp
  void issue(Node& n, int id, const DmaCommand& cmd);
  void dma_step(Node& n, int id);
  void receive(int node, const Flit& flit);
  void complete(Node& n);
  void memory_step();
  void memory_receive(const Flit& flit);
  bool send_flit(int router, int port, Dma& dma, Send& send, const uint8_t* base, int src);
  uint32_t watch_low(const Node& n) const;
  // machine/machine.cpp
  void barrier_check_deadlock(int id);
  void console_char(Node& n, int id, char c);

  SimConfig config_;
  const ElfImage& image_;
  std::ostream* console_;
  int nodes_count_ = 0;
  uint32_t mem_size_ = 0;
  ZeroedBytes memory_;  ///< all local memories, node after node (staggered: see the constructor)
  std::vector<Node> nodes_;
  ZeroedBytes main_memory_;
  Dma memory_dma_;  ///< the main-memory controller's service side
  Mesh mesh_;
  uint64_t now_ = 0;
  int halted_ = 0;
  int at_barrier_ = 0;
  uint64_t barrier_generation_ = 0;
  uint64_t barrier_release_ = 0;
  bool roi_used_ = false;
  bool plain_stores_ = false;
  std::vector<uint8_t> ahead_;  ///< per node: cycles of the current window its core already ran
  std::vector<int> stepped_;    ///< the nodes the current window steps cycle by cycle
  const isa::Insn* code_ = nullptr;       ///< image_.code, and its range, at hand for the hot loop
  uint32_t code_lo_ = 0, code_size_ = 0;  ///< no store buffer: stores go straight to memory
};

}  // namespace conveyor::manycore
