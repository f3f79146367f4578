#pragma once
// The on-chip network: a W x H mesh of wormhole routers, XY routing, no virtual channels, one hop
// per cycle, a fixed-depth input buffer per port. Router 0 has a sixth port for the main-memory
// controller. A flit moves at most once per cycle (its `ready` cycle), so a header travelling h
// hops from injection at cycle t is ejected at t + h + 1 and a packet of f flits (header
// included) is fully delivered at t + h + f.
#include <cstdint>
#include <functional>
#include <vector>

namespace conveyor::manycore {

enum class PacketType : uint8_t { kPutData, kAck, kGetReq, kGetData };

struct Packet {
  PacketType type = PacketType::kPutData;
  bool last = false;  ///< last packet of its transfer
  uint16_t src = 0, dst = 0;
  uint32_t addr = 0;    ///< where the payload goes (kPutData, kGetData) or is read (kGetReq)
  uint32_t addr2 = 0;   ///< kGetReq: where the requester wants it
  uint32_t bytes = 0;   ///< payload bytes (kGetReq: transfer size)
  uint32_t offset = 0;  ///< of this packet's payload within its transfer
};

struct Flit {
  uint32_t packet = 0;  ///< index in the packet pool
  uint32_t ready = 0;   ///< first cycle (low 32 bits) it may move
  uint64_t data = 0;
  uint16_t index = 0;  ///< 0 = header
  bool tail = false;
};

enum Port : int { kLocal = 0, kNorth, kEast, kSouth, kWest, kMemPort, kPorts };

class Mesh {
 public:
  static constexpr int kMaxDepth = 16;
  using Eject = std::function<void(int router, int port, const Flit&)>;

  void reset(int width, int height, int depth, bool memory_port);
  uint32_t new_packet(const Packet& p);
  Packet& packet(uint32_t id) { return packets_[id]; }
  void free_packet(uint32_t id) { free_.push_back(id); }

  /// Room for one more flit at `port` (kLocal or kMemPort) of `router`.
  bool can_inject(int router, int port) const;
  void inject(int router, int port, Flit flit, uint64_t now);
  /// Moves flits one cycle; `eject` receives flits leaving through kLocal / kMemPort.
  void step(uint64_t now, const Eject& eject);
  uint64_t flits_in_network() const { return in_network_; }
  uint64_t forwarded(int router) const { return routers_[router].forwarded; }
  uint64_t injected() const { return injected_; }
  /// 0 when no flit addressed to node `dst` is in the network and no packet to it is half
  /// injected (the simulator's run-ahead: nothing can reach the node but a new packet).
  uint32_t incoming(int dst) const { return incoming_[dst]; }

 private:
  struct Router {
    Flit buf[kPorts][kMaxDepth];
    uint8_t head[kPorts] = {};
    uint8_t count[kPorts] = {};
    int8_t route[kPorts] = {};  ///< output the packet at this input holds (-1 none)
    int8_t owner[kPorts] = {};  ///< input that holds this output (-1 free)
    uint8_t rr[kPorts] = {};    ///< round-robin pointer per output
    int neighbour[kPorts] = {};
    int flits = 0;
    uint64_t forwarded = 0;
  };
  int route_of(int router, const Packet& p) const;
  void step_router(int id, uint32_t now32, const Eject& eject);

  int width_ = 0, height_ = 0, depth_ = 4, memory_id_ = 0;
  std::vector<Router> routers_;
  std::vector<Packet> packets_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t>
      incoming_;  ///< per destination (nodes, then main memory): flits + open packets
  std::vector<uint64_t> occupied_;  ///< bit per router holding flits: step() visits only those
  uint64_t in_network_ = 0, injected_ = 0;
};

}  // namespace conveyor::manycore
