// DMA controllers and the main-memory controller: commands become packets (read from local memory
// one flit per cycle, zero copy), the receiver writes them as they arrive and acknowledges the
// last packet of a PUT; a PUT completes at the acknowledgement, a GET when its last byte arrived.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "machine/machine.hpp"
#include "machine/mmio.hpp"

namespace conveyor::manycore {

void Machine::issue(Node& n, int id, const DmaCommand& cmd) {
  const bool to_memory = cmd.node == static_cast<uint32_t>(nodes_count_);
  if (cmd.kind != mmio::kCmdPut && cmd.kind != mmio::kCmdGet)
    fault(id, cmd.pc, fmt::format("bad DMA command word (kind {})", cmd.kind));
  if (cmd.node > static_cast<uint32_t>(nodes_count_))
    fault(id, cmd.pc,
          fmt::format("DMA to node {} which does not exist ({}x{} mesh: nodes 0-{}, "
                      "main memory {})",
                      cmd.node, config_.mesh_width, config_.mesh_height, nodes_count_ - 1,
                      nodes_count_));
  if (cmd.size == 0) fault(id, cmd.pc, "DMA of 0 bytes");
  auto in_code = [&](uint32_t lo, uint32_t size) {
    return overlaps(lo, size, image_.code_lo, image_.code_hi);
  };
  if (static_cast<uint64_t>(cmd.local) + cmd.size > mem_size_)
    fault(id, cmd.pc,
          fmt::format("DMA local range 0x{:08x}+{} outside local memory", cmd.local, cmd.size));
  uint64_t remote_limit = to_memory ? main_memory_.size() : mem_size_;
  if (static_cast<uint64_t>(cmd.remote) + cmd.size > remote_limit)
    fault(id, cmd.pc,
          fmt::format("DMA remote range 0x{:08x}+{} outside {} ({} B)", cmd.remote, cmd.size,
                      to_memory ? "main memory" : "local memory", remote_limit));
  if (cmd.kind == mmio::kCmdGet && in_code(cmd.local, cmd.size))
    fault(id, cmd.pc, "DMA GET into the code");
  if (cmd.kind == mmio::kCmdPut && !to_memory && in_code(cmd.remote, cmd.size))
    fault(id, cmd.pc, "DMA PUT into the code of the other node");
  Dma& d = n.dma;
  DmaCommand& slot = d.queue[(d.q_head + d.q_count) % d.queue.size()];
  slot = cmd;
  slot.ready = now_ + static_cast<uint64_t>(config_.dma_setup_cycles);
  ++d.q_count;
  if (n.in_roi) {
    (cmd.kind == mmio::kCmdPut ? n.stats.dma_puts : n.stats.dma_gets) += 1;
    n.stats.dma_bytes += cmd.size;
  }
}

void Machine::complete(Node& n) {
  Dma& d = n.dma;
  d.q_head = static_cast<int>((d.q_head + 1) % d.queue.size());
  --d.q_count;
  d.active = false;
  ++d.completed;
  if (n.watch && d.completed >= n.watch_command) n.watch = false;
}

bool Machine::send_flit(int router, int port, Dma& d, Send& s, const uint8_t* base, int src) {
  const uint32_t fb = static_cast<uint32_t>(config_.flit_bytes);
  if (d.next_index == 0) {
    Packet p;
    p.type = s.type;
    p.src = static_cast<uint16_t>(src);
    p.dst = s.dst;
    if (s.type == PacketType::kAck || s.type == PacketType::kGetReq) {
      p.addr = s.read;
      p.addr2 = s.write;
      p.bytes = s.size;
      p.last = true;
      d.packet_flits = 1;
    } else {
      uint32_t bytes =
          std::min<uint32_t>(static_cast<uint32_t>(config_.packet_payload_bytes), s.size - s.sent);
      p.addr = s.write + s.sent;
      p.bytes = bytes;
      p.offset = s.sent;
      p.last = s.sent + bytes == s.size;
      d.packet_flits = static_cast<uint16_t>(1 + (bytes + fb - 1) / fb);
      d.packet_bytes = bytes;
      d.packet_read = 0;
    }
    d.packet = mesh_.new_packet(p);
    Flit f{d.packet, 0, 0, 0, d.packet_flits == 1};
    mesh_.inject(router, port, f, now_);
    if (d.packet_flits == 1) return true;
    d.next_index = 1;
    return false;
  }
  uint32_t bytes = std::min(fb, d.packet_bytes - d.packet_read);
  Flit f{d.packet, 0, 0, d.next_index, d.next_index + 1 == d.packet_flits};
  std::memcpy(&f.data, base + s.read + s.sent, bytes);
  s.sent += bytes;
  d.packet_read += bytes;
  mesh_.inject(router, port, f, now_);
  if (f.tail) {
    d.next_index = 0;
    return s.sent == s.size;
  }
  ++d.next_index;
  return false;
}

void Machine::dma_step(Node& n, int id) {
  Dma& d = n.dma;
  if (d.q_count && !d.active && d.front().ready <= now_) {
    const DmaCommand& c = d.front();
    d.active = d.sending = true;
    d.received = 0;
    ++d.started;
    d.own = Send{};
    d.own.size = c.size;
    d.own.dst = static_cast<uint16_t>(c.node);
    if (c.kind == mmio::kCmdPut) {
      d.own.type = PacketType::kPutData;
      d.own.read = c.local;
      d.own.write = c.remote;
    } else {
      d.own.type = PacketType::kGetReq;
      d.own.read = c.remote;
      d.own.write = c.local;
    }
  }
  if (d.blocking_put_front() && n.in_roi) {
    NodeStats& s = n.stats;
    ++s.put_cycles;
    s.sb_put_cycles += (n.sb_data | n.sb_requests) != 0;
    s.sb_put_data_cycles += n.sb_data != 0;
    s.sb_put_req_cycles += n.sb_requests != 0;
  }
  if (!mesh_.can_inject(id, kLocal)) return;
  if (d.inject_owner == 0) {
    bool own_ready = d.active && d.sending;
    bool service_ready = !d.service.empty() && d.service.front().start <= now_;
    if (own_ready && (!service_ready || !d.prefer_service))
      d.inject_owner = 1;
    else if (service_ready)
      d.inject_owner = 2;
    else
      return;
    d.prefer_service = d.inject_owner == 1;
  }
  if (d.inject_owner == 1) {
    if (send_flit(id, kLocal, d, d.own, n.mem, id)) d.sending = false;
  } else {
    if (send_flit(id, kLocal, d, d.service.front(), n.mem, id)) d.pop_service();
  }
  if (d.next_index == 0) d.inject_owner = 0;
}

void Machine::receive(int id, const Flit& flit) {
  Node& n = nodes_[id];
  Packet& p = mesh_.packet(flit.packet);
  switch (p.type) {
    case PacketType::kAck:
      complete(n);
      break;
    case PacketType::kGetReq:
      n.dma.push_service(Send{PacketType::kGetData, p.src, p.addr, p.addr2, p.bytes, 0, now_});
      break;
    case PacketType::kPutData:
    case PacketType::kGetData:
      if (flit.index > 0) {
        uint32_t off = (flit.index - 1u) * static_cast<uint32_t>(config_.flit_bytes);
        uint32_t bytes =
            std::min<uint32_t>(static_cast<uint32_t>(config_.flit_bytes), p.bytes - off);
        std::memcpy(n.mem + p.addr + off, &flit.data, bytes);
        if (p.type == PacketType::kGetData) {
          n.dma.received += bytes;
          if (n.dma.received == n.dma.front().size) complete(n);
        }
      }
      if (flit.tail && p.type == PacketType::kPutData && p.last)
        n.dma.push_service(Send{PacketType::kAck, p.src, 0, 0, 0, 0, now_});
      break;
  }
  if (flit.tail) mesh_.free_packet(flit.packet);
}

void Machine::memory_receive(const Flit& flit) {
  Packet& p = mesh_.packet(flit.packet);
  const uint64_t ready = now_ + static_cast<uint64_t>(config_.main_memory_latency_cycles);
  if (p.type == PacketType::kGetReq) {
    memory_dma_.push_service(Send{PacketType::kGetData, p.src, p.addr, p.addr2, p.bytes, 0, ready});
  } else if (p.type == PacketType::kPutData) {
    if (flit.index > 0) {
      uint32_t off = (flit.index - 1u) * static_cast<uint32_t>(config_.flit_bytes);
      uint32_t bytes = std::min<uint32_t>(static_cast<uint32_t>(config_.flit_bytes), p.bytes - off);
      std::memcpy(main_memory_.data() + p.addr + off, &flit.data, bytes);
    }
    if (flit.tail && p.last)
      memory_dma_.push_service(Send{PacketType::kAck, p.src, 0, 0, 0, 0, ready});
  }
  if (flit.tail) mesh_.free_packet(flit.packet);
}

void Machine::memory_step() {
  Dma& d = memory_dma_;
  const uint64_t fb = static_cast<uint64_t>(config_.flit_bytes);
  const uint64_t rate = static_cast<uint64_t>(config_.main_memory_bytes_per_cycle);
  d.tokens = std::min(d.tokens + rate, std::max(fb, rate));
  if (!mesh_.can_inject(0, kMemPort)) return;
  if (d.inject_owner == 0) {
    if (d.service.empty() || d.service.front().start > now_) return;
    d.inject_owner = 2;
  }
  if (d.next_index != 0) {  // a data flit spends bandwidth
    if (d.tokens < fb) return;
    d.tokens -= fb;
  }
  if (send_flit(0, kMemPort, d, d.service.front(), main_memory_.data(), nodes_count_))
    d.pop_service();
  if (d.next_index == 0) d.inject_owner = 0;
}

}  // namespace conveyor::manycore
