#pragma once
// Per-node DMA controller state: a queue of commands from the core (one transfer in flight at a
// time), and the jobs it serves for others (acknowledgements and GET responses).
#include <cstdint>
#include <deque>
#include <vector>

#include "noc/mesh.hpp"

namespace conveyor::manycore {

struct DmaCommand {
  uint32_t kind = 0;  ///< mmio::kCmdPut or kCmdGet
  bool blocking = false;
  uint32_t node = 0, remote = 0, local = 0, size = 0;
  uint32_t pc = 0;
  uint64_t ready = 0;  ///< earliest cycle the controller starts it (dma_setup_cycles)
};

/// One stream of packets leaving a node: a PUT's data, a GET request, an ACK, a GET response.
struct Send {
  PacketType type = PacketType::kPutData;
  uint16_t dst = 0;
  uint32_t read = 0;   ///< where the payload is read here (kGetReq: at the other side)
  uint32_t write = 0;  ///< where it goes at the other side (kGetReq: here)
  uint32_t size = 0, sent = 0;
  uint64_t start = 0;  ///< earliest cycle (main-memory latency)
};

struct Dma {
  int q_count = 0;        ///< commands queued (the front one may be in flight)
  int inject_owner = 0;   ///< 0 between packets, 1 own command, 2 service job
  int service_count = 0;  ///< service.size(), at hand for the per-cycle check
  int q_head = 0;
  std::vector<DmaCommand> queue;  ///< ring of capacity dma_queue_depth
  bool active = false;            ///< queue front is in flight
  bool sending = false;           ///< its flits are still being injected
  Send own;                       ///< the active command's packets; own.sent is the detector's head
  uint32_t received = 0;          ///< bytes of the active GET written into local memory
  uint64_t started = 0, completed = 0;  ///< commands started / completed, in order
  std::deque<Send> service;
  // Injection: a packet's flits must stay contiguous in the local input buffer (wormhole).
  bool prefer_service = false;
  uint32_t packet = 0;
  uint16_t next_index = 0, packet_flits = 0;
  uint32_t packet_bytes = 0, packet_read = 0;
  uint64_t tokens = 0;  ///< main memory: bandwidth budget in bytes

  bool idle() const { return q_count == 0; }
  /// Anything to do this cycle: a command, a packet half injected, a job to serve.
  bool busy() const { return (q_count | inject_owner | service_count) != 0; }
  void push_service(const Send& s) {
    service.push_back(s);
    ++service_count;
  }
  void pop_service() {
    service.pop_front();
    --service_count;
  }
  DmaCommand& front() { return queue[q_head]; }
  const DmaCommand& front() const { return queue[q_head]; }
  /// A blocking PUT at the front, started or still in its setup cycles.
  bool blocking_put_front() const { return q_count && front().kind == 1 && front().blocking; }
};

}  // namespace conveyor::manycore
