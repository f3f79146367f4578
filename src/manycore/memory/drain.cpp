// The store buffer's drain side and the violation detector (seed 002, section 3): one entry
// leaves the head per cycle (and, in split mode, one request entry too). A data store is held
// while its address lies in the not-yet-read range [head, tail) of the blocking PUT in flight; a
// DMA-request store is held while any earlier DMA is in flight.
#include <cstring>

#include "machine/machine.hpp"
#include "machine/mmio.hpp"

namespace conveyor::manycore {

uint32_t Machine::watch_low(const Node& n) const {
  // The watched GET's bytes arrive in order; before it starts nothing of it has arrived.
  bool started = n.dma.started >= n.watch_command;
  return n.watch_lo + (started ? n.dma.received : 0);
}

bool Machine::data_hazard(const Node& n, const SbEntry& e) const {
  const Dma& d = n.dma;
  if (d.blocking_put_front()) {
    // Before the controller starts (dma_setup_cycles) nothing of the source has been read.
    const DmaCommand& c = d.front();
    uint32_t head = d.active ? d.own.read + d.own.sent : c.local, tail = c.local + c.size;
    if (overlaps(e.addr, e.size, head, tail)) return true;
  }
  // Only stores younger than the GET wait for its data: older ones must land before it starts.
  if (n.watch && e.seq > n.watch_seq && d.completed < n.watch_command &&
      overlaps(e.addr, e.size, watch_low(n), n.watch_hi))
    return true;
  for (const PendingPut& p : n.pending)
    if (p.seq < e.seq && overlaps(e.addr, e.size, p.lo, p.hi)) return true;
  return false;
}

void Machine::apply_request(Node& n, int id, const SbEntry& e) {
  const int index = static_cast<int>((e.addr - mmio::kDmaNode) / 4);
  n.regs[index] = e.value;
  if (e.addr != mmio::kDmaCmd) return;
  DmaCommand cmd{
      e.value & 3, (e.value & mmio::kCmdBlocking) != 0, n.regs[0], n.regs[1], n.regs[2], n.regs[3],
      e.pc};
  issue(n, id, cmd);
  if (!n.pending.empty() && cmd.kind == mmio::kCmdPut && cmd.blocking)
    n.pending.erase(n.pending.begin());  // now covered by the detector
}

void Machine::drain(Node& n, int id) {
  drain_one(n, id);
  // Occupancy is sampled after the drain, as the PUT statistics are (dma_step): a store that
  // leaves in the cycle it arrived was never held.
  const uint32_t occupancy = static_cast<uint32_t>(n.sb_data + n.sb_requests);
  if (n.in_roi) {
    n.stats.sb_occupancy_sum += occupancy;
    if (occupancy > n.stats.sb_max_occupancy) n.stats.sb_max_occupancy = occupancy;
  }
}

void Machine::drain_one(Node& n, int id) {
  if (config_.split_requests) {
    if (!n.sb.empty()) {
      if (!data_hazard(n, n.sb.front())) {
        const SbEntry& e = n.sb.front();
        std::memcpy(n.mem + e.addr, &e.value, e.size);
        n.sb.pop();
        --n.sb_data;
      } else {
        n.stats.sb_held_data_cycles += n.in_roi;
      }
    }
    if (!n.sb_req.empty()) {
      if (!n.dma.idle()) {
        n.stats.sb_held_request_cycles += n.in_roi;
      } else if (n.sb.empty() || n.sb.front().seq > n.sb_req.front().seq) {
        SbEntry e = n.sb_req.front();
        n.sb_req.pop();
        --n.sb_requests;
        apply_request(n, id, e);
      }
    }
    return;
  }
  const SbEntry& e = n.sb.front();
  if (e.request) {
    if (!n.dma.idle()) {
      n.stats.sb_held_request_cycles += n.in_roi;
      return;
    }
    SbEntry copy = e;
    n.sb.pop();
    --n.sb_requests;
    apply_request(n, id, copy);
  } else if (!data_hazard(n, e)) {
    std::memcpy(n.mem + e.addr, &e.value, e.size);
    n.sb.pop();
    --n.sb_data;
  } else {
    n.stats.sb_held_data_cycles += n.in_roi;
  }
}

}  // namespace conveyor::manycore
