#pragma once
// The progress engine: one thread that owns every point-to-point request of the layer. Send and
// receive tasks hand it a Message (their buffer and the Completion of their deferred task) and
// return at once; the thread posts MPI_Isend/MPI_Irecv, tests them, and finishes the tasks.
//
// Why a polling thread with back-off and not a thread blocked in MPI_Waitany: Open MPI's blocking
// waits spin inside the library (its progress engine polls the transports), so a blocked waiter
// burns a core just like a busy loop; and a blocked wait cannot take new requests without a
// self-message to wake it. Here the thread tests with MPI_Testsome, and when a round completes
// nothing it sleeps on a condition variable for a time that doubles from 1 us up to 50 us while
// requests are outstanding (10 ms when none: only the abort receive is pending); a new message
// wakes it at once. The cost is at most ~50 us of added latency per message and a few percent of
// one core while messages are in flight (measured: docs/distributed.md).
//
// Failures: abort() (a local task failed) sends the reason to every other rank on a separate
// communicator; a rank that receives one (or aborts itself) fails every outstanding and future
// message at once, so that no rank waits for a message that will never come.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
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

class ProgressEngine {
 public:
  /// `data` carries the messages, `control` the abort notices (both private to the layer).
  ProgressEngine(MPI_Comm data, MPI_Comm control, int rank, int size);
  ~ProgressEngine();
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  /// Fails what is left and joins the thread; later posts fail at once. Called by the layer's
  /// destructor (the engine itself lives on while send/receive codelets refer to it).
  void stop();
  /// Any thread. After an abort the message's task fails at once.
  void post(Message message);
  /// Any thread: a local failure. The first abort (local or received) wins; later ones are
  /// ignored.
  void abort(const std::string& reason);

  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  /// The rank whose failure caused the abort, and its reason (valid once aborted()).
  int abort_origin() const;
  std::string abort_reason() const;

  struct Counters {
    std::uint64_t sent = 0, bytes_sent = 0, received = 0, bytes_received = 0;
  };
  Counters counters() const;
  void reset_counters();
  /// CPU time of the progress thread so far, and the wall time since it started.
  double cpu_seconds() const;
  double wall_seconds() const;

  /// A finished message, for the trace: times in the runtime's seconds (Runtime::seconds).
  struct Event {
    Message::Kind kind;
    int peer;
    std::size_t bytes;
    double start_s, end_s;
  };
  /// Starts recording events with `now` as the clock (before the first message).
  void record_events(std::function<double()> now);
  std::vector<Event> events() const;

  static constexpr int kAbortTag = 1;
  static constexpr std::size_t kReasonBytes = 1024;

 private:
  struct Active {
    MPI_Request request = MPI_REQUEST_NULL;
    Message message;
    bool finished = false;  // the task was failed already (abort); only MPI's side is left
    double start_s = 0;
  };

  void loop();
  void start(Message& m, std::vector<Active>& active);
  enum class Tested { Nothing, Progressed, Broken };
  /// MPI_Testsome over `active`: completes the messages that finished and drops them. Broken:
  /// MPI_Testsome itself failed, and the layer is aborting.
  Tested test_active(std::vector<Active>& active);
  /// One message that MPI finished: its task completes (or fails with MPI's error).
  void complete(Active& a, const MPI_Status& status, bool error_in_status);
  /// The loop's end: what is left belongs to tasks that never completed.
  void shut_down(std::vector<Active>& active, MPI_Request& notice_recv,
                 std::vector<MPI_Request>& notices);
  void fail_everything(std::vector<Active>& active, std::vector<Message>& queued);
  void record_abort(int origin, const std::string& reason);

  // The progress thread's MPI_Testsome arrays, kept between calls.
  std::vector<MPI_Request> requests_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;

  MPI_Comm data_, control_;
  int rank_, size_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Message> queue_;  // posted, not yet started (guarded by mutex_)
  bool stop_ = false;           // guarded by mutex_
  std::string pending_abort_;   // a local abort for the thread to broadcast (mutex_)
  bool abort_to_send_ = false;  // (mutex_)
  int origin_ = -1;             // (mutex_)
  std::string reason_;          // (mutex_)
  std::atomic<bool> aborted_{false};

  std::atomic<std::uint64_t> sent_{0}, bytes_sent_{0}, received_{0}, bytes_received_{0};
  std::atomic<std::int64_t> cpu_ns_{0};
  std::function<double()> now_;  // set before the thread sees a message; null: no events
  std::vector<Event> events_;    // guarded by mutex_
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;
};

}  // namespace conveyor::distributed
