// The RV32IM core: one instruction per cycle, single cycle (seed 002, table 1). Every
// instruction's semantics live in the one switch below. An instruction that cannot complete this
// cycle (store buffer full, waiting for DMA, barrier) does not retire and runs again next cycle,
// which keeps stall accounting exact.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "machine/machine.hpp"
#include "machine/mmio.hpp"

namespace conveyor::manycore {

using isa::Op;

// load() returns the value, or this when the load cannot complete this cycle (a stall): keeping
// the flag out of memory keeps the hot switch free of address-taken locals.
constexpr uint64_t kNotRetired = 1ull << 32;

void Machine::fault(int id, uint32_t pc, const std::string& cause) const {
  throw SimFault(fmt::format("node {} pc 0x{:08x}: {}", id, pc, cause));
}

bool Machine::own_dma_done(const Node& n) const {
  return n.sb.empty() && n.sb_req.empty() && n.dma.idle();
}

uint64_t Machine::load(Node& n, int id, uint32_t addr, uint32_t size) {
  if (addr & (size - 1))
    fault(id, n.pc, fmt::format("misaligned {}-byte load from 0x{:08x}", size, addr));
  if (addr >= mem_size_) {
    uint32_t value = 0;
    if (addr >= mmio::kBase && addr - mmio::kBase < mmio::kEnd) {
      if (size != 4)
        fault(id, n.pc,
              fmt::format("{}-byte load from MMIO register 0x{:08x} (32-bit only)", size, addr));
      return mmio_load(n, id, addr - mmio::kBase, value) ? value : kNotRetired;
    }
    fault(id, n.pc,
          fmt::format("load from 0x{:08x} outside local memory ({} B) and MMIO", addr, mem_size_));
  }
  if (n.watch && n.dma.completed < n.watch_command &&
      overlaps(addr, size, watch_low(n), n.watch_hi)) {
    stall(n, StallCause::kGetWait);
    return kNotRetired;
  }
  uint8_t bytes[4] = {};
  const uint8_t* src = n.mem + addr;
  switch (size) {
    case 1:
      bytes[0] = src[0];
      break;
    case 2:
      std::memcpy(bytes, src, 2);
      break;
    default:
      std::memcpy(bytes, src, 4);
      break;
  }
  if (!n.sb.empty()) n.sb.forward(addr, size, bytes);
  uint32_t value;
  std::memcpy(&value, bytes, 4);
  return size == 4 ? value : size == 2 ? (value & 0xffff) : (value & 0xff);
}

bool Machine::store(Node& n, int id, uint32_t addr, uint32_t size, uint32_t value) {
  if (addr & (size - 1))
    fault(id, n.pc, fmt::format("misaligned {}-byte store to 0x{:08x}", size, addr));
  if (addr >= mem_size_) {
    if (addr >= mmio::kBase && addr - mmio::kBase < mmio::kEnd) {
      if (size != 4)
        fault(id, n.pc,
              fmt::format("{}-byte store to MMIO register 0x{:08x} (32-bit only)", size, addr));
      return mmio_store(n, id, addr - mmio::kBase, value);
    }
    fault(id, n.pc,
          fmt::format("store to 0x{:08x} outside local memory ({} B) and MMIO", addr, mem_size_));
  }
  if (addr - code_lo_ < code_size_)
    fault(id, n.pc, fmt::format("store to 0x{:08x} inside the code", addr));
  if (config_.store_buffer_entries == 0) {
    uint8_t* dst = n.mem + addr;
    if (size == 4)
      std::memcpy(dst, &value, 4);
    else if (size == 2)
      std::memcpy(dst, &value, 2);
    else
      *dst = static_cast<uint8_t>(value);
    return true;
  }
  if (n.sb.full()) {
    stall(n, StallCause::kSbFull);
    return false;
  }
  n.sb.push(SbEntry{addr, value, n.pc, ++n.seq, static_cast<uint8_t>(size), false});
  ++n.sb_data;
  return true;
}

bool Machine::mmio_load(Node& n, int id, uint32_t reg, uint32_t& value) {
  switch (reg) {
    case mmio::kNodeId:
      value = static_cast<uint32_t>(id);
      return true;
    case mmio::kMeshWidth:
      value = static_cast<uint32_t>(config_.mesh_width);
      return true;
    case mmio::kMeshHeight:
      value = static_cast<uint32_t>(config_.mesh_height);
      return true;
    case mmio::kCycle:
      value = static_cast<uint32_t>(now_);
      return true;
    case mmio::kMemNode:
      value = static_cast<uint32_t>(nodes_count_);
      return true;
    case mmio::kDmaWait:
      if (!own_dma_done(n)) {
        stall(n, StallCause::kDmaWait);
        return false;
      }
      value = 0;
      return true;
    case mmio::kBarrier:
      if (!n.at_barrier) {
        if (!own_dma_done(n)) {
          stall(n, StallCause::kDmaWait);
          return false;
        }
        n.at_barrier = true;
        n.barrier_target = barrier_generation_ + 1;
        // The core sleeps until the release (no work per cycle); its stall cycles are added
        // when it wakes, the same count as if it had retried every cycle.
        n.sleep_since = now_;
        n.wake = ~0ull;
        if (++at_barrier_ == nodes_count_) {
          at_barrier_ = 0;
          ++barrier_generation_;
          int latency = config_.barrier_latency_cycles < 0
                            ? config_.mesh_width + config_.mesh_height
                            : config_.barrier_latency_cycles;
          barrier_release_ = now_ + 1 + static_cast<uint64_t>(latency);
          for (Node& other : nodes_)
            if (other.at_barrier) other.wake = barrier_release_;
        } else {
          barrier_check_deadlock(id);
        }
        return false;
      }
      if (barrier_generation_ >= n.barrier_target && now_ >= barrier_release_) {
        n.at_barrier = false;
        value = 0;
        return true;
      }
      stall(n, StallCause::kBarrier);
      return false;
    default:
      fault(id, n.pc,
            fmt::format("load from write-only MMIO register 0x{:08x}", mmio::kBase + reg));
  }
}

bool Machine::mmio_store(Node& n, int id, uint32_t reg, uint32_t value) {
  switch (reg) {
    case mmio::kConsole:
      console_char(n, id, static_cast<char>(value));
      return true;
    case mmio::kExit:
      if (!own_dma_done(n)) {
        stall(n, StallCause::kDmaWait);
        return false;
      }
      if (!n.line.empty()) console_char(n, id, '\n');
      n.halted = true;
      n.stats.exit_code = static_cast<int>(value);
      if (n.in_roi && roi_used_) n.stats.roi_end = now_;
      if (n.in_roi) n.stats.instructions = n.retired + 1 - n.roi_retired;
      ++halted_;
      barrier_check_deadlock(id);
      return true;
    case mmio::kRoi:
      if (value) {
        n.stats = NodeStats{};
        n.stats.roi_begin = now_;
        n.roi_retired = n.retired;
        n.in_roi = true;
        roi_used_ = true;
        return true;
      }
      if (!own_dma_done(n)) {
        stall(n, StallCause::kDmaWait);
        return false;
      }
      n.stats.roi_end = now_;
      n.stats.instructions = n.retired - n.roi_retired;
      n.in_roi = false;
      return true;
    case mmio::kDmaNode:
    case mmio::kDmaRemote:
    case mmio::kDmaLocal:
    case mmio::kDmaSize:
    case mmio::kDmaCmd:
      break;
    default:
      fault(id, n.pc, fmt::format("store to read-only MMIO register 0x{:08x}", mmio::kBase + reg));
  }
  const int index = static_cast<int>((reg - mmio::kDmaNode) / 4);
  const bool is_cmd = reg == mmio::kDmaCmd;
  const bool blocking = is_cmd && (value & mmio::kCmdBlocking);
  const bool is_get = is_cmd && (value & 3) == mmio::kCmdGet;
  if (config_.store_buffer_entries == 0) {
    // Baseline: the register is written at once; a command waits for room in the DMA queue and a
    // blocking one stalls the core until it completes.
    if (is_cmd && n.dma.q_count >= config_.dma_queue_depth) {
      stall(n, StallCause::kDmaQueue);
      return false;
    }
    n.regs[index] = value;
    if (is_cmd) {
      DmaCommand cmd{value & 3, blocking, n.regs[0], n.regs[1], n.regs[2], n.regs[3], n.pc};
      issue(n, id, cmd);
      ++n.commands_issued;
      if (blocking) n.wait_command = n.commands_issued;
    }
    return true;
  }
  // With the store buffer the request store is buffered like data; what the core does next
  // depends on the command.
  if (is_get && blocking && config_.watch_get && n.watch && n.dma.completed < n.watch_command) {
    stall(n, StallCause::kDmaWait);  // one GET watched at a time
    return false;
  }
  SbQueue& q = config_.split_requests ? n.sb_req : n.sb;
  if (q.full()) {
    stall(n, StallCause::kSbFull);
    return false;
  }
  q.push(SbEntry{reg, value, n.pc, ++n.seq, 4, true});
  ++n.sb_requests;
  n.shadow[index] = value;
  if (is_cmd) {
    ++n.commands_issued;
    if (is_get && blocking) {
      if (config_.watch_get) {
        n.watch = true;
        n.watch_command = n.commands_issued;
        n.watch_seq = n.seq;
        n.watch_lo = n.shadow[2];
        n.watch_hi = n.shadow[2] + n.shadow[3];
      } else {
        n.wait_command = n.commands_issued;
      }
    } else if (blocking && config_.split_requests) {
      n.pending.push_back(PendingPut{n.seq, n.shadow[2], n.shadow[2] + n.shadow[3]});
    }
  }
  return true;
}

// A store while running ahead. With a store buffer the entry would be pushed and, the DMA being
// idle and nothing watched, drained in the same cycle (Machine::drain) leaving occupancy 0: the
// same as writing memory at once, apart from the program-order counter.
__attribute__((always_inline)) inline bool Machine::quiet_store(Node& n, uint32_t addr,
                                                                uint32_t size, uint32_t value) {
  if (addr >= mem_size_ || (addr & (size - 1)) || addr - code_lo_ < code_size_) return false;
  uint8_t* dst = n.mem + addr;
  if (size == 4)
    std::memcpy(dst, &value, 4);
  else if (size == 2)
    std::memcpy(dst, &value, 2);
  else
    *dst = static_cast<uint8_t>(value);
  n.seq += !plain_stores_;
  return true;
}

// lb, lh, lbu, lhu: a T (int8_t, int16_t, uint8_t, uint16_t) into `rd`, sign- or zero-extended
// by its type. False when it did not complete: running ahead, an access that would fault (it runs
// again in lockstep, where the fault is raised); in lockstep, a stall.
template <bool kQuiet, typename T>
__attribute__((always_inline)) inline bool Machine::narrow_load(Node& n, int id, uint32_t addr,
                                                                uint32_t& rd) {
  if constexpr (kQuiet) {
    if (addr >= mem_size_ || (addr & (sizeof(T) - 1))) return false;
    T v;
    std::memcpy(&v, n.mem + addr, sizeof(T));
    rd = static_cast<uint32_t>(v);
    return true;
  }
  const uint64_t v = load(n, id, addr, sizeof(T));
  if (v == kNotRetired) return false;
  rd = static_cast<uint32_t>(static_cast<T>(v));
  return true;
}

// One instruction. kQuiet: the node runs ahead (run_quiet) and its store buffer is empty, its DMA
// idle and nothing is watched; an instruction that would touch anything outside the core and its
// memory (MMIO, a stall) or fault is not executed and false is returned, so that it runs again in
// step with the other nodes. Everything executed here has the same effect as in lockstep.
template <bool kQuiet>
__attribute__((always_inline)) inline bool Machine::execute(Node& n, int id) {
  const uint32_t pc = n.pc;
  const uint32_t offset = pc - code_lo_;
  if (offset >= code_size_ || (pc & 3)) {
    if constexpr (kQuiet) return false;
    fault(id, pc, "instruction fetch outside the code");
  }
  const isa::Insn in = code_[offset >> 2];
  uint32_t* x = n.x;
  const uint32_t a = x[in.rs1], b = x[in.rs2];
  const uint32_t imm = static_cast<uint32_t>(in.imm);
  uint32_t next = pc + 4;
  bool retire = true;
  switch (in.op) {
    case Op::kLui:
      x[in.rd] = imm;
      break;
    case Op::kAuipc:
      x[in.rd] = pc + imm;
      break;
    case Op::kJal:
      x[in.rd] = next;
      next = pc + imm;
      break;
    case Op::kJalr: {
      uint32_t target = (a + imm) & ~1u;
      x[in.rd] = next;
      next = target;
      break;
    }
    case Op::kBeq:
      if (a == b) next = pc + imm;
      break;
    case Op::kBne:
      if (a != b) next = pc + imm;
      break;
    case Op::kBlt:
      if (static_cast<int32_t>(a) < static_cast<int32_t>(b)) next = pc + imm;
      break;
    case Op::kBge:
      if (static_cast<int32_t>(a) >= static_cast<int32_t>(b)) next = pc + imm;
      break;
    case Op::kBltu:
      if (a < b) next = pc + imm;
      break;
    case Op::kBgeu:
      if (a >= b) next = pc + imm;
      break;
    case Op::kLb:
      if (!narrow_load<kQuiet, int8_t>(n, id, a + imm, x[in.rd])) {
        if constexpr (kQuiet) return false;
        retire = false;
      }
      break;
    case Op::kLh:
      if (!narrow_load<kQuiet, int16_t>(n, id, a + imm, x[in.rd])) {
        if constexpr (kQuiet) return false;
        retire = false;
      }
      break;
    case Op::kLw: {
      const uint32_t addr = a + imm;
      if (addr < mem_size_ && !(addr & 3) && (kQuiet || (n.sb.empty() && !n.watch))) {  // common
        std::memcpy(&x[in.rd], n.mem + addr, 4);
        break;
      }
      if constexpr (kQuiet) return false;
      const uint64_t v = load(n, id, addr, 4);
      if (v == kNotRetired)
        retire = false;
      else
        x[in.rd] = static_cast<uint32_t>(v);
      break;
    }
    case Op::kLbu:
      if (!narrow_load<kQuiet, uint8_t>(n, id, a + imm, x[in.rd])) {
        if constexpr (kQuiet) return false;
        retire = false;
      }
      break;
    case Op::kLhu:
      if (!narrow_load<kQuiet, uint16_t>(n, id, a + imm, x[in.rd])) {
        if constexpr (kQuiet) return false;
        retire = false;
      }
      break;
    case Op::kSb:
      if constexpr (kQuiet) {
        if (!quiet_store(n, a + imm, 1, b)) return false;
        break;
      }
      retire = store(n, id, a + imm, 1, b & 0xff);
      break;
    case Op::kSh:
      if constexpr (kQuiet) {
        if (!quiet_store(n, a + imm, 2, b)) return false;
        break;
      }
      retire = store(n, id, a + imm, 2, b & 0xffff);
      break;
    case Op::kSw: {
      const uint32_t addr = a + imm;
      if constexpr (kQuiet) {
        if (!quiet_store(n, addr, 4, b)) return false;
        break;
      }
      if (plain_stores_ && addr < mem_size_ && !(addr & 3) &&
          addr - code_lo_ >= code_size_) {  // the common case
        std::memcpy(n.mem + addr, &b, 4);
        break;
      }
      retire = store(n, id, addr, 4, b);
      break;
    }
    case Op::kAddi:
      x[in.rd] = a + imm;
      break;
    case Op::kSlti:
      x[in.rd] = static_cast<int32_t>(a) < in.imm;
      break;
    case Op::kSltiu:
      x[in.rd] = a < imm;
      break;
    case Op::kXori:
      x[in.rd] = a ^ imm;
      break;
    case Op::kOri:
      x[in.rd] = a | imm;
      break;
    case Op::kAndi:
      x[in.rd] = a & imm;
      break;
    case Op::kSlli:
      x[in.rd] = a << (imm & 31);
      break;
    case Op::kSrli:
      x[in.rd] = a >> (imm & 31);
      break;
    case Op::kSrai:
      x[in.rd] = static_cast<uint32_t>(static_cast<int32_t>(a) >> (imm & 31));
      break;
    case Op::kAdd:
      x[in.rd] = a + b;
      break;
    case Op::kSub:
      x[in.rd] = a - b;
      break;
    case Op::kSll:
      x[in.rd] = a << (b & 31);
      break;
    case Op::kSlt:
      x[in.rd] = static_cast<int32_t>(a) < static_cast<int32_t>(b);
      break;
    case Op::kSltu:
      x[in.rd] = a < b;
      break;
    case Op::kXor:
      x[in.rd] = a ^ b;
      break;
    case Op::kSrl:
      x[in.rd] = a >> (b & 31);
      break;
    case Op::kSra:
      x[in.rd] = static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31));
      break;
    case Op::kOr:
      x[in.rd] = a | b;
      break;
    case Op::kAnd:
      x[in.rd] = a & b;
      break;
    case Op::kFence:
      break;
    case Op::kMul:
      x[in.rd] = a * b;
      break;
    case Op::kMulh:
      x[in.rd] = static_cast<uint32_t>(
          (static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b)) >> 32);
      break;
    case Op::kMulhsu:
      x[in.rd] = static_cast<uint32_t>(
          (static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int64_t>(b)) >> 32);
      break;
    case Op::kMulhu:
      x[in.rd] = static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
      break;
    case Op::kDiv:
      if (b == 0)
        x[in.rd] = ~0u;
      else if (a == 0x80000000u && b == ~0u)
        x[in.rd] = a;
      else
        x[in.rd] = static_cast<uint32_t>(static_cast<int32_t>(a) / static_cast<int32_t>(b));
      break;
    case Op::kDivu:
      x[in.rd] = b == 0 ? ~0u : a / b;
      break;
    case Op::kRem:
      if (b == 0)
        x[in.rd] = a;
      else if (a == 0x80000000u && b == ~0u)
        x[in.rd] = 0;
      else
        x[in.rd] = static_cast<uint32_t>(static_cast<int32_t>(a) % static_cast<int32_t>(b));
      break;
    case Op::kRemu:
      x[in.rd] = b == 0 ? a : a % b;
      break;
    case Op::kEcall:
      if constexpr (kQuiet) return false;
      fault(id, pc, "ecall (no operating system; use the mcore runtime)");
    case Op::kEbreak:
      if constexpr (kQuiet) return false;
      fault(id, pc, "ebreak");
    default: {
      if constexpr (kQuiet) return false;
      uint32_t word = 0;
      std::memcpy(&word, n.mem + pc, 4);
      fault(id, pc, fmt::format("illegal instruction 0x{:08x}", word));
    }
  }
  x[0] = 0;
  if (!retire) return false;
  n.pc = next;
  ++n.retired;  // ROI instructions are a difference of this counter (mmio kRoi, Machine::run)
  return true;
}

__attribute__((always_inline)) inline void Machine::step_core(Node& n, int id) {
  if (n.wait_command) {
    if (n.dma.completed < n.wait_command) {
      stall(n, StallCause::kDmaWait);
      return;
    }
    n.wait_command = 0;
  }
  execute<false>(n, id);
}

uint32_t Machine::run_quiet(Node& n, int id, uint32_t cycles) {
  for (uint32_t k = 0; k < cycles; ++k)
    if (!execute<true>(n, id)) return k;
  return cycles;
}

// How far a core may run ahead. Take node i with its DMA idle (no command, nothing to serve), an
// empty store buffer and nothing addressed to it in the network, not even a packet half injected
// (Mesh::incoming) at the start of cycle t. Anything that reaches it must be a new packet whose
// header another node injects at t or later (ready t+1); it crosses at least one link (ready t+2)
// and is ejected at i in the network step of t+2 at the earliest, after i's core ran cycle t+2.
// The first flit that carries data follows one cycle behind, so i's memory changes in the step of
// t+3 at the earliest, after i's core ran cycle t+3. A header alone can only give i's DMA a job
// (a GET request: ACKs and GET data come only for i's own transfers, and there are none): the
// window then steps that DMA from t+3 on (the header it sends reads no memory; its first data
// flit, at t+4, is in the next window). So i's core may run cycles t to t+3 at once. (The main
// memory controller sits on router 0 itself: node 0 runs ahead only while it is idle.)
constexpr uint32_t kLookahead = 4;

bool Machine::may_run_ahead(const Node& n, int id) const {
  return !n.halted && !n.at_barrier && n.wait_command == 0 && (n.sb_data | n.sb_requests) == 0 &&
         !n.watch && !n.dma.busy() && mesh_.incoming(id) == 0 && (id != 0 || !memory_dma_.busy());
}

// An exited node whose DMA has nothing to serve and nothing addressed to it in the network: it
// has nothing to do in this window unless a GET request reaches it, which puts it back (the
// eject callback in run_cycles, by the argument above).
bool Machine::nothing_to_step(const Node& n, int id) const {
  return n.halted && !n.dma.busy() && mesh_.incoming(id) == 0 && (id != 0 || !memory_dma_.busy());
}

void Machine::run_cycles() {
  const int count = nodes_count_;
  const uint64_t limit = config_.max_cycles;
  uint32_t k = 0;  // the cycle of the window being stepped
  const Mesh::Eject eject = [this, &k](int router, int port, const Flit& flit) {
    if (port == kMemPort) {
      memory_receive(flit);
      return;
    }
    receive(router, flit);
    // A node left out of this window whose DMA got a job: step it from the next cycle on (its
    // core stays ahead; see kLookahead).
    if (ahead_[router] > k + 1 && nodes_[router].dma.busy()) {
      auto at = std::lower_bound(stepped_.begin(), stepped_.end(), router);
      if (at == stepped_.end() || *at != router) stepped_.insert(at, router);
    }
  };
  ahead_.assign(static_cast<size_t>(count), 0);
  stepped_.clear();
  stepped_.reserve(static_cast<size_t>(count));
  uint8_t* const ahead = ahead_.data();
  for (;;) {
    if (now_ >= limit) {
      for (int id = 0; id < count; ++id)
        if (!nodes_[id].halted)
          fault(id, nodes_[id].pc,
                fmt::format("cycle limit {} reached (--max-cycles){}", limit,
                            nodes_[id].at_barrier ? ", waiting at a barrier" : ", still running"));
      throw SimFault(fmt::format(
          "cycle limit {} reached (--max-cycles) while DMA traffic was in flight", limit));
    }
    // A window of cycles: first the cores that can run ahead do so (each stops early at an
    // instruction that needs the others: MMIO, a fault), then every cycle of the window is
    // stepped as before for the other nodes, in node order, from the cycle their core reached.
    const uint32_t window =
        config_.run_ahead ? static_cast<uint32_t>(std::min<uint64_t>(kLookahead, limit - now_)) : 1;
    stepped_.clear();
    for (int id = 0; id < count; ++id) {
      Node& n = nodes_[id];
      uint32_t ran = 0;
      if (window > 1) {
        if (may_run_ahead(n, id))
          ran = run_quiet(n, id, window);
        else if (nothing_to_step(n, id))
          ran = window;
      }
      ahead[id] = static_cast<uint8_t>(ran);
      if (ran < window) stepped_.push_back(id);
    }
    for (k = 0; k < window; ++k, ++now_) {
      const int* const list = stepped_.data();  // grows only in the network step (eject)
      const int listed = static_cast<int>(stepped_.size());
      for (int i = 0; i < listed; ++i) {
        const int id = list[i];
        Node& n = nodes_[id];
        if (ahead[id] > k) {  // its core ran this cycle; its buffer is empty, its DMA idle unless
          if (n.dma.busy()) dma_step(n, id);  // a GET request arrived (see kLookahead)
          continue;
        }
        if (n.at_barrier && now_ >= n.wake) {
          n.stats.stalls[static_cast<int>(StallCause::kBarrier)] +=
              n.in_roi ? now_ - n.sleep_since : 0;
        }
        if (!n.halted && !(n.at_barrier && now_ < n.wake)) step_core(n, id);
        if (n.sb_data | n.sb_requests) drain(n, id);
        if (n.dma.busy()) dma_step(n, id);
      }
      if (memory_dma_.busy()) memory_step();
      if (mesh_.flits_in_network()) mesh_.step(now_, eject);
      if (halted_ == count) {
        bool quiet = mesh_.flits_in_network() == 0 && memory_dma_.service.empty() &&
                     !memory_dma_.inject_owner;
        for (int id = 0; quiet && id < count; ++id) {
          const Node& n = nodes_[id];
          quiet = n.dma.idle() && n.dma.service.empty() && !n.dma.inject_owner;
        }
        if (quiet) {
          ++now_;
          return;
        }
      }
    }
  }
}

}  // namespace conveyor::manycore
