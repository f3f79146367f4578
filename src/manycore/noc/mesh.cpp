#include "noc/mesh.hpp"

namespace conveyor::manycore {
namespace {
constexpr int kOpposite[kPorts] = {kLocal, kSouth, kWest, kNorth, kEast, kMemPort};
}

void Mesh::reset(int width, int height, int depth, bool memory_port) {
  width_ = width;
  height_ = height;
  depth_ = depth;
  memory_id_ = memory_port ? width * height : -1;
  routers_.assign(static_cast<size_t>(width * height), Router{});
  for (int r = 0; r < width * height; ++r) {
    Router& router = routers_[r];
    int x = r % width, y = r / width;
    for (int p = 0; p < kPorts; ++p) router.route[p] = router.owner[p] = -1;
    router.neighbour[kLocal] = router.neighbour[kMemPort] = -1;
    router.neighbour[kNorth] = y > 0 ? r - width : -1;
    router.neighbour[kSouth] = y + 1 < height ? r + width : -1;
    router.neighbour[kWest] = x > 0 ? r - 1 : -1;
    router.neighbour[kEast] = x + 1 < width ? r + 1 : -1;
  }
  packets_.clear();
  free_.clear();
  incoming_.assign(static_cast<size_t>(width * height + 1), 0);
  occupied_.assign(static_cast<size_t>((width * height + 63) / 64), 0);
  in_network_ = injected_ = 0;
}

uint32_t Mesh::new_packet(const Packet& p) {
  if (!free_.empty()) {
    uint32_t id = free_.back();
    free_.pop_back();
    packets_[id] = p;
    return id;
  }
  packets_.push_back(p);
  return static_cast<uint32_t>(packets_.size() - 1);
}

int Mesh::route_of(int router, const Packet& p) const {
  int dst = p.dst;
  if (dst == memory_id_) {
    if (router == 0) return kMemPort;
    dst = 0;
  }
  int x = router % width_, y = router / width_;
  int dx = dst % width_, dy = dst / width_;
  if (dx > x) return kEast;
  if (dx < x) return kWest;
  if (dy > y) return kSouth;
  if (dy < y) return kNorth;
  return kLocal;
}

bool Mesh::can_inject(int router, int port) const { return routers_[router].count[port] < depth_; }

void Mesh::inject(int router, int port, Flit flit, uint64_t now) {
  Router& r = routers_[router];
  flit.ready = static_cast<uint32_t>(now + 1);
  r.buf[port][(r.head[port] + r.count[port]) % kMaxDepth] = flit;
  ++r.count[port];
  ++r.flits;
  occupied_[router >> 6] |= 1ull << (router & 63);
  ++in_network_;
  ++injected_;
  // A packet counts for its destination from its header's injection to its tail's ejection,
  // including cycles when none of its flits is in the network.
  const bool opens = flit.index == 0 && !flit.tail, closes = flit.index != 0 && flit.tail;
  incoming_[packets_[flit.packet].dst] += 1u + opens - closes;
}

void Mesh::step(uint64_t now, const Eject& eject) {
  const uint32_t now32 = static_cast<uint32_t>(now);
  // Routers in id order, as if every router were visited: one that receives its first flit
  // during this step has nothing that may move before the next cycle, so skipping it is exact.
  const int words = static_cast<int>(occupied_.size());
  for (int w = 0; w < words; ++w) {
    for (uint64_t bits = occupied_[w]; bits; bits &= bits - 1) {
      const int id = w * 64 + __builtin_ctzll(bits);
      step_router(id, now32, eject);
    }
  }
}

void Mesh::step_router(int id, uint32_t now32, const Eject& eject) {
  {
    Router& r = routers_[id];
    // Which inputs have a flit that may move this cycle, and to which output (routing the
    // headers that just reached the front).
    uint8_t wants[kPorts] = {};
    for (int in = 0; in < kPorts; ++in) {
      if (r.count[in] == 0) continue;
      const Flit& f = r.buf[in][r.head[in]];
      if (f.ready > now32) continue;
      if (r.route[in] < 0) r.route[in] = static_cast<int8_t>(route_of(id, packets_[f.packet]));
      wants[r.route[in]] |= static_cast<uint8_t>(1u << in);
    }
    for (int out = 0; out < kPorts; ++out) {
      if (!wants[out]) continue;
      int in = r.owner[out];
      if (in >= 0) {
        if (!(wants[out] & (1u << in))) continue;  // the packet holding the output stalls
      } else {
        // Round-robin among the headers that want this output.
        in = -1;
        for (int k = 0; k < kPorts; ++k) {
          int cand = (r.rr[out] + k) % kPorts;
          if ((wants[out] & (1u << cand)) && r.buf[cand][r.head[cand]].index == 0) {
            in = cand;
            break;
          }
        }
        if (in < 0) continue;
      }
      Flit& f = r.buf[in][r.head[in]];
      if (out == kLocal || out == kMemPort) {
        --incoming_[packets_[f.packet].dst];
        eject(id, out, f);
        --in_network_;
      } else {
        Router& next = routers_[r.neighbour[out]];
        int port = kOpposite[out];
        if (next.count[port] >= depth_) {
          r.owner[out] = static_cast<int8_t>(in);
          continue;
        }
        Flit moved = f;
        moved.ready = now32 + 1;
        next.buf[port][(next.head[port] + next.count[port]) % kMaxDepth] = moved;
        ++next.count[port];
        ++next.flits;
        occupied_[r.neighbour[out] >> 6] |= 1ull << (r.neighbour[out] & 63);
      }
      ++r.forwarded;
      bool tail = f.tail;
      r.head[in] = static_cast<uint8_t>((r.head[in] + 1) % kMaxDepth);
      --r.count[in];
      if (--r.flits == 0) occupied_[id >> 6] &= ~(1ull << (id & 63));
      if (tail) {
        r.owner[out] = -1;
        r.route[in] = -1;
        r.rr[out] = static_cast<uint8_t>((in + 1) % kPorts);
      } else {
        r.owner[out] = static_cast<int8_t>(in);
      }
    }
  }
}

}  // namespace conveyor::manycore
