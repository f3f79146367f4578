#include "machine/machine.hpp"

#include <fmt/format.h>
#include <time.h>

#include <chrono>
#include <cstring>
#include <ostream>

namespace conveyor::manycore {

Machine::Machine(const SimConfig& config, const ElfImage& image, std::ostream* console)
    : config_(config), image_(image), console_(console) {
  nodes_count_ = config.nodes();
  mem_size_ = config.local_memory_bytes;
  plain_stores_ = config.store_buffer_entries == 0;
  code_ = image.code.data();
  code_lo_ = image.code_lo;
  code_size_ = image.code_hi - image.code_lo;
  // Node memories are staggered by 4 KiB + 64 B: were they a power of two apart, the same hot
  // address in every node (stack, buffers) would map to the same set of every host cache level and
  // 64 nodes would evict each other from 8-way caches on every access.
  const size_t stride = (static_cast<size_t>(mem_size_) + 4095) / 4096 * 4096 + 4096 + 64;
  memory_.assign(stride * static_cast<size_t>(nodes_count_));
  main_memory_.assign(config.main_memory_bytes);
  nodes_.resize(static_cast<size_t>(nodes_count_));
  const int capacity = config.store_buffer_entries;
  for (int id = 0; id < nodes_count_; ++id) {
    Node& n = nodes_[id];
    n.mem = memory_.data() + stride * static_cast<size_t>(id);
    for (const Segment& s : image.segments)
      std::memcpy(n.mem + s.addr, s.bytes.data(), s.bytes.size());
    n.pc = image.entry;
    n.x[2] = mem_size_;  // sp: the top of local memory (crt0 sets it again)
    n.sb.reset(capacity);
    n.sb_req.reset(capacity);
    n.dma.queue.resize(static_cast<size_t>(config.dma_queue_depth));
    n.pending.reserve(64);
  }
  mesh_.reset(config.mesh_width, config.mesh_height, config.router_buffer_flits, true);
}

void Machine::console_char(Node& n, int id, char c) {
  if (c != '\n') {
    if (n.line.size() < 4096) n.line.push_back(c);
    return;
  }
  if (console_) *console_ << '[' << id << "] " << n.line << '\n';
  n.line.clear();
}

void Machine::barrier_check_deadlock(int id) {
  if (at_barrier_ == 0 || at_barrier_ + halted_ != nodes_count_ || halted_ == 0) return;
  int waiting = -1, exited = -1;
  for (int i = 0; i < nodes_count_; ++i) {
    if (nodes_[i].at_barrier && waiting < 0) waiting = i;
    if (nodes_[i].halted && exited < 0) exited = i;
  }
  (void)id;
  fault(waiting, nodes_[waiting].pc,
        fmt::format("deadlocked barrier: {} node(s) wait but {} node(s) exited (first: node {})",
                    at_barrier_, halted_, exited));
}

SimResult Machine::run() {
  auto start = std::chrono::steady_clock::now();
  timespec cpu0{}, cpu1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  run_cycles();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  SimResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_seconds = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) +
                  1e-9 * static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec);
  r.total_cycles = now_;
  r.passed = true;
  uint64_t begin = ~0ull, end = 0;
  for (Node& n : nodes_) {
    if (!n.line.empty() && console_) *console_ << "[?] " << n.line << '\n';
    if (n.in_roi && roi_used_ && n.stats.roi_end == 0) n.stats.roi_end = now_;
    if (!roi_used_) n.stats.roi_end = now_;
    begin = std::min(begin, n.stats.roi_begin);
    end = std::max(end, n.stats.roi_end);
    r.instructions += n.retired;
    r.passed = r.passed && n.stats.exit_code == 0;
    for (int c = 0; c < static_cast<int>(StallCause::kCount); ++c) r.stalls[c] += n.stats.stalls[c];
    r.stall_cycles += n.stats.stall_cycles();
    r.nodes.push_back(n.stats);
  }
  r.cycles = roi_used_ ? end - begin : now_;
  for (int i = 0; i < nodes_count_; ++i) r.router_flits.push_back(mesh_.forwarded(i));
  r.network_flits = mesh_.injected();
  return r;
}

}  // namespace conveyor::manycore
