#pragma once
// How the layer's ranks talk: the point-to-point data messages that send and receive tasks post
// (completed later, through the tasks' Completions), the abort notices that stop every rank when
// one fails, and the few collectives of wait_all, all_stats, write_trace and the applications.
//
// Two transports: MPI (mpi_transport.hpp: a progress thread over MPI's non-blocking calls, one
// process per rank) and a simulated network (simulated_transport.hpp: every rank a thread of one
// process, on the virtual clock that their simulated platforms share). The layer above is the same
// code for both: owner computes, versions, holders, message numbering, caching.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "conveyor/codelet.hpp"

namespace conveyor::distributed {

struct Message {
  enum class Kind : std::uint8_t { Send, Recv };
  Kind kind = Kind::Send;
  int peer = 0;
  int tag = 0;
  void* ptr = nullptr;
  std::size_t elem_size = 1, rows = 0, cols = 1, ld = 0;
  Completion completion;
  std::size_t bytes() const { return elem_size * rows * cols; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Messages between two ranks are numbered in flow order; the number is taken modulo this to
  /// make the tag (MPI's MPI_TAG_UB + 1).
  virtual std::uint64_t tags() const = 0;
  /// Whether message buffers hold data. A simulated cluster that does not run its kernels moves
  /// none, and the layer then gives ranks address ranges without memory behind them.
  virtual bool real_data() const { return true; }

  /// Any thread: a send or receive task hands its message over and returns; the transport
  /// completes (or fails) the task later. After an abort the task fails at once.
  virtual void post(Message message) = 0;
  /// Any thread: a local failure, told to every other rank. The first abort (local or received)
  /// wins; later ones are ignored.
  virtual void abort(const std::string& reason) = 0;
  /// Fails what is left; later posts fail at once. Called by the layer's destructor (the
  /// transport itself lives on while send/receive codelets refer to it).
  virtual void stop() = 0;

  // Collectives: every rank's submitting thread calls them, in the same order.
  virtual void barrier() = 0;
  /// `all` receives size() blocks of `bytes`, rank r's at r * bytes.
  virtual void allgather(const void* mine, std::size_t bytes, void* all) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  /// Every rank's text on `root` (indexed by rank); an empty vector elsewhere.
  virtual std::vector<std::string> gather(const std::string& mine, int root) = 0;

  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  /// The rank whose failure caused the abort, and its reason (valid once aborted()).
  int abort_origin() const;
  std::string abort_reason() const;

  struct Counters {
    std::uint64_t sent = 0, bytes_sent = 0, received = 0, bytes_received = 0;
  };
  Counters counters() const;
  void reset_counters();
  /// CPU time the transport spent on its own thread (0 where it has none), and the wall time
  /// since it started.
  virtual double cpu_seconds() const { return 0; }
  virtual double wall_seconds() const = 0;

  /// A finished message, for the trace: times in the runtime's seconds (Runtime::seconds).
  struct Event {
    Message::Kind kind;
    int peer;
    std::size_t bytes;
    double start_s, end_s;
  };
  /// Starts recording events with `now` as the clock (before the first message).
  void record_events(std::function<double()> now) { now_ = std::move(now); }
  std::vector<Event> events() const;

  static constexpr std::size_t kReasonBytes = 1024;

 protected:
  Transport(int rank, int size) : rank_(rank), size_(size) {}
  /// Records the first abort; false when one was recorded already.
  bool record_abort(int origin, const std::string& reason);
  /// A message finished well: counted, its event recorded (from `start_s`), its task done.
  void finished(Message& m, double start_s);
  double now() const { return now_ ? now_() : 0; }

 private:
  int rank_, size_;
  mutable std::mutex mutex_;
  int origin_ = -1;     // (mutex_)
  std::string reason_;  // (mutex_)
  std::atomic<bool> aborted_{false};
  std::atomic<std::uint64_t> sent_{0}, bytes_sent_{0}, received_{0}, bytes_received_{0};
  std::function<double()> now_;  // set before the first message; null: no events
  std::vector<Event> events_;    // (mutex_)
};

}  // namespace conveyor::distributed
