#pragma once
// The MPI transport: one progress thread per rank owns every point-to-point request of the layer.
// Send and receive tasks hand it a Message (their buffer and the Completion of their deferred task)
// and return at once; the thread posts MPI_Isend/MPI_Irecv, tests them, and finishes the tasks.
// The collectives are MPI's non-blocking ones, polled without spinning.
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

#include "distributed/transport.hpp"

namespace conveyor::distributed {

class MpiTransport final : public Transport {
 public:
  /// Checks that MPI is initialised with MPI_THREAD_MULTIPLE and duplicates `comm` three times:
  /// messages, abort notices and collectives each have their own communicator, so the layer's
  /// messages never match the user's and the submitting thread's collectives never interleave
  /// with the progress thread's traffic.
  explicit MpiTransport(MPI_Comm comm);
  ~MpiTransport() override;

  std::uint64_t tags() const override { return tags_; }
  void post(Message message) override;
  void abort(const std::string& reason) override;
  void stop() override;
  void barrier() override;
  void allgather(const void* mine, std::size_t bytes, void* all) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  std::vector<std::string> gather(const std::string& mine, int root) override;
  double cpu_seconds() const override;
  double wall_seconds() const override;

  static constexpr int kAbortTag = 1;

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

  // The progress thread's MPI_Testsome arrays, kept between calls.
  std::vector<MPI_Request> requests_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;

  MPI_Comm data_ = MPI_COMM_NULL, control_ = MPI_COMM_NULL, coll_ = MPI_COMM_NULL;
  std::uint64_t tags_ = 32768;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Message> queue_;  // posted, not yet started (guarded by mutex_)
  bool stop_ = false;           // guarded by mutex_
  std::string pending_abort_;   // a local abort for the thread to broadcast (mutex_)
  bool abort_to_send_ = false;  // (mutex_)

  std::atomic<std::int64_t> cpu_ns_{0};
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;
};

}  // namespace conveyor::distributed
