#include "distributed/mpi_transport.hpp"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <thread>

#include "conveyor/error.hpp"
#include "distributed/mpi_check.hpp"

namespace conveyor::distributed {
namespace {

// While requests are outstanding the thread sleeps at most an eighth of the time since it last
// posted or completed one, between 50 us (messages back to back: the latency stays low) and 1 ms
// (long quiet stretches, e.g. receives posted a whole factorisation step ahead: each poll costs a
// few microseconds of CPU plus a context switch on a core that a worker needs). So the delay added
// to a message is at most 50 us or an eighth of the quiet time before it. With no request
// outstanding only the abort notice is pending: 10 ms.
constexpr auto kMinSleepCap = std::chrono::microseconds(50);
constexpr auto kMaxSleepCap = std::chrono::microseconds(1000);
constexpr auto kMaxSleepIdle = std::chrono::microseconds(10000);

std::chrono::microseconds sleep_cap(std::chrono::steady_clock::duration quiet) {
  auto eighth = std::chrono::duration_cast<std::chrono::microseconds>(quiet / 8);
  return std::clamp(eighth, kMinSleepCap, kMaxSleepCap);
}

std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Posts m's request. Contiguous buffers go as bytes; a column-major view with ld > rows goes as a
// vector type (one block per column), so the user's matrix is sent in place, without packing.
MPI_Request post_request(const Message& m, MPI_Comm comm) {
  const std::size_t column = m.rows * m.elem_size;
  const std::size_t total = column * m.cols;
  MPI_Datatype type = MPI_BYTE;
  int count = 0;
  bool derived = false;
  if ((m.ld == m.rows || m.cols == 1) && total <= static_cast<std::size_t>(INT_MAX)) {
    count = static_cast<int>(total);
  } else {
    if (column > static_cast<std::size_t>(INT_MAX) || m.cols > static_cast<std::size_t>(INT_MAX))
      throw Error(fmt::format("message of {} x {} elements: a column above 2 GB", m.rows, m.cols));
    CONVEYOR_MPI_CHECK(MPI_Type_create_hvector(static_cast<int>(m.cols), static_cast<int>(column),
                                               static_cast<MPI_Aint>(m.ld * m.elem_size), MPI_BYTE,
                                               &type));
    CONVEYOR_MPI_CHECK(MPI_Type_commit(&type));
    count = 1;
    derived = true;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = m.kind == Message::Kind::Send
               ? MPI_Isend(m.ptr, count, type, m.peer, m.tag, comm, &request)
               : MPI_Irecv(m.ptr, count, type, m.peer, m.tag, comm, &request);
  // Freeing a type in use is allowed: MPI keeps it until the operations using it complete.
  if (derived) MPI_Type_free(&type);
  CONVEYOR_MPI_CHECK(rc);
  return request;
}

// Waits for a non-blocking collective without spinning: Open MPI's blocking collectives poll, and
// a rank that reaches wait_all early would take a core from a rank still computing on the same
// node.
void wait_quietly(MPI_Request& request) {
  auto sleep = std::chrono::microseconds(1);
  for (;;) {
    int flag = 0;
    CONVEYOR_MPI_CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
    if (flag) return;
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(1000));
  }
}

// The rank in `comm`, after checking that MPI can carry the layer.
int checked_rank(MPI_Comm comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    throw UsageError("Distributed: MPI is not initialised (create a conveyor::MpiSession first)");
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    throw Error(
        "Distributed: MPI was initialised without MPI_THREAD_MULTIPLE; the progress thread calls "
        "MPI next to the submitting thread (use conveyor::MpiSession, or MPI_Init_thread with "
        "MPI_THREAD_MULTIPLE)");
  int rank = 0;
  CONVEYOR_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 1;
  CONVEYOR_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

}  // namespace

void check_mpi(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(fmt::format("{} failed at {}:{}: {}", call, file, line, text));
}

MpiTransport::MpiTransport(MPI_Comm comm) : Transport(checked_rank(comm), size_of(comm)) {
  for (MPI_Comm* c : {&data_, &control_, &coll_}) {
    CONVEYOR_MPI_CHECK(MPI_Comm_dup(comm, c));
    CONVEYOR_MPI_CHECK(MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN));
  }
  int flag = 0;
  int* ub = nullptr;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) tags_ = static_cast<std::uint64_t>(*ub) + 1;
  started_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { loop(); });
}

MpiTransport::~MpiTransport() {
  stop();
  for (MPI_Comm* c : {&data_, &control_, &coll_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

void MpiTransport::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void MpiTransport::post(Message message) {
  {
    std::lock_guard lock(mutex_);
    if (!stop_) {
      queue_.push_back(std::move(message));
      wake_.notify_one();
      return;
    }
  }
  message.completion.fail("the distributed layer is shutting down");
}

void MpiTransport::abort(const std::string& reason) {
  if (!record_abort(rank(), reason)) return;  // the first failure is the one reported
  {
    std::lock_guard lock(mutex_);
    pending_abort_ = reason;
    abort_to_send_ = true;
  }
  wake_.notify_one();
}

double MpiTransport::cpu_seconds() const { return static_cast<double>(cpu_ns_.load()) * 1e-9; }

double MpiTransport::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void MpiTransport::start(Message& m, std::vector<Active>& active) {
  Active a;
  a.start_s = now();
  a.request = post_request(m, data_);
  a.message = std::move(m);
  active.push_back(std::move(a));
}

void MpiTransport::fail_everything(std::vector<Active>& active, std::vector<Message>& queued) {
  std::string why = fmt::format("stopped: rank {} failed: {}", abort_origin(), abort_reason());
  for (auto& m : queued) m.completion.fail(why);
  queued.clear();
  for (auto& a : active) {
    if (a.finished) continue;
    // A receive that has not matched is cancelled; a send cannot be (Open MPI ignores
    // MPI_Cancel on sends), so it is left to finish or to be freed at shutdown. Either way its
    // task fails now: the rank that would match it is giving up too.
    if (a.message.kind == Message::Kind::Recv) MPI_Cancel(&a.request);
    a.message.completion.fail(why);
    a.finished = true;
  }
}

void MpiTransport::loop() {
  std::vector<Active> active;
  std::vector<Message> incoming;
  std::vector<MPI_Request> notices;  // abort notices we sent
  std::string notice_text;
  char notice_in[kReasonBytes] = {};
  MPI_Request notice_recv = MPI_REQUEST_NULL;
  auto post_notice_recv = [&] {
    MPI_Irecv(notice_in, static_cast<int>(kReasonBytes), MPI_CHAR, MPI_ANY_SOURCE, kAbortTag,
              control_, &notice_recv);
  };
  post_notice_recv();
  auto sleep = std::chrono::microseconds(0);
  auto last_progress = std::chrono::steady_clock::now();

  for (;;) {
    bool progressed = false;
    bool stopping = false;
    bool broadcast = false;
    {
      std::lock_guard lock(mutex_);
      incoming.swap(queue_);
      stopping = stop_;
      if (abort_to_send_) {
        broadcast = true;
        abort_to_send_ = false;
        notice_text = pending_abort_.substr(0, kReasonBytes - 1);
      }
    }
    if (broadcast) {
      // Small and sent once per peer: eager messages that complete without the peer's help.
      for (int r = 0; r < size(); ++r) {
        if (r == rank()) continue;
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Isend(notice_text.c_str(), static_cast<int>(notice_text.size() + 1), MPI_CHAR, r,
                  kAbortTag, control_, &req);
        notices.push_back(req);
      }
      fail_everything(active, incoming);
      progressed = true;
    }
    if (!incoming.empty()) {
      progressed = true;
      if (aborted()) {
        fail_everything(active, incoming);
      } else {
        for (auto& m : incoming) {
          try {
            start(m, active);
          } catch (const std::exception& e) {
            // An MPI error on this rank is a failure like any task's: the others must stop too.
            m.completion.fail(e.what());
            abort(e.what());
          }
        }
        incoming.clear();
      }
    }
    if (notice_recv != MPI_REQUEST_NULL) {
      int flag = 0;
      MPI_Status status;
      MPI_Test(&notice_recv, &flag, &status);
      if (flag && !stopping) {
        notice_in[kReasonBytes - 1] = '\0';
        record_abort(status.MPI_SOURCE, notice_in);
        fail_everything(active, incoming);
        post_notice_recv();  // later notices are drained and ignored
        progressed = true;
      }
    }
    if (!active.empty()) {
      Tested t = test_active(active);
      if (t == Tested::Broken) continue;
      progressed |= t == Tested::Progressed;
    }
    if (stopping) break;
    if (progressed) {
      sleep = std::chrono::microseconds(0);
      last_progress = std::chrono::steady_clock::now();
      continue;
    }
    auto cap = active.empty() ? kMaxSleepIdle
                              : sleep_cap(std::chrono::steady_clock::now() - last_progress);
    sleep = std::min<std::chrono::microseconds>(
        cap, std::max<std::chrono::microseconds>(std::chrono::microseconds(1), sleep * 2));
    cpu_ns_.store(thread_cpu_ns(), std::memory_order_relaxed);
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, sleep, [&] { return !queue_.empty() || stop_ || abort_to_send_; });
  }

  shut_down(active, notice_recv, notices);
}

MpiTransport::Tested MpiTransport::test_active(std::vector<Active>& active) {
  requests_.resize(active.size());
  for (std::size_t i = 0; i < active.size(); ++i) requests_[i] = active[i].request;
  indices_.resize(active.size());
  statuses_.resize(active.size());
  int done = 0;
  int rc = MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &done,
                        indices_.data(), statuses_.data());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // No request can be trusted any more: fail them all and tell the other ranks.
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    abort(fmt::format("MPI_Testsome failed: {}", text));
    return Tested::Broken;
  }
  if (done <= 0 || done == MPI_UNDEFINED) return Tested::Nothing;
  for (int k = 0; k < done; ++k) {
    Active& a = active[static_cast<std::size_t>(indices_[k])];
    a.request = MPI_REQUEST_NULL;
    if (a.finished) continue;
    a.finished = true;
    complete(a, statuses_[static_cast<std::size_t>(k)], rc == MPI_ERR_IN_STATUS);
  }
  // Drop finished entries (order does not matter to MPI_Testsome).
  active.erase(
      std::remove_if(active.begin(), active.end(),
                     [](const Active& a) { return a.finished && a.request == MPI_REQUEST_NULL; }),
      active.end());
  return Tested::Progressed;
}

void MpiTransport::complete(Active& a, const MPI_Status& st, bool error_in_status) {
  if (error_in_status && st.MPI_ERROR != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(st.MPI_ERROR, text, &length);
    std::string why = fmt::format("MPI {} with rank {} failed: {}",
                                  a.message.kind == Message::Kind::Send ? "send" : "receive",
                                  a.message.peer, text);
    a.message.completion.fail(why);
    abort(why);
    return;
  }
  finished(a.message, a.start_s);
}

void MpiTransport::shut_down(std::vector<Active>& active, MPI_Request& notice_recv,
                             std::vector<MPI_Request>& notices) {
  // Whatever is left belongs to tasks that never completed (no wait_all before the layer went
  // away, or an abort).
  std::vector<Message> incoming;
  {
    std::lock_guard lock(mutex_);
    incoming.swap(queue_);
  }
  for (auto& m : incoming) m.completion.fail("the distributed layer was destroyed first");
  for (auto& a : active) {
    if (!a.finished) a.message.completion.fail("the distributed layer was destroyed first");
    if (a.request == MPI_REQUEST_NULL) continue;
    if (a.message.kind == Message::Kind::Recv) {
      MPI_Cancel(&a.request);
      MPI_Wait(&a.request, MPI_STATUS_IGNORE);
    } else {
      MPI_Request_free(&a.request);
    }
  }
  if (notice_recv != MPI_REQUEST_NULL) {
    MPI_Cancel(&notice_recv);
    MPI_Wait(&notice_recv, MPI_STATUS_IGNORE);
  }
  for (auto& req : notices)
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
  cpu_ns_.store(thread_cpu_ns(), std::memory_order_relaxed);
}

// ---- collectives, on their own communicator, polled by the calling thread --------------------

void MpiTransport::barrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  CONVEYOR_MPI_CHECK(MPI_Ibarrier(coll_, &request));
  wait_quietly(request);
}

void MpiTransport::allgather(const void* mine, std::size_t bytes, void* all) {
  MPI_Request request = MPI_REQUEST_NULL;
  CONVEYOR_MPI_CHECK(MPI_Iallgather(mine, static_cast<int>(bytes), MPI_BYTE, all,
                                    static_cast<int>(bytes), MPI_BYTE, coll_, &request));
  wait_quietly(request);
}

void MpiTransport::broadcast(void* data, std::size_t bytes, int root) {
  MPI_Request request = MPI_REQUEST_NULL;
  CONVEYOR_MPI_CHECK(MPI_Ibcast(data, static_cast<int>(bytes), MPI_BYTE, root, coll_, &request));
  wait_quietly(request);
}

std::vector<std::string> MpiTransport::gather(const std::string& mine, int root) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size()));
  MPI_Request request = MPI_REQUEST_NULL;
  CONVEYOR_MPI_CHECK(
      MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, coll_, &request));
  wait_quietly(request);
  std::vector<int> offsets(lengths.size(), 0);
  std::string all;
  if (rank() == root) {
    long total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    if (total > INT_MAX) throw Error("gather: the ranks' texts exceed 2 GB together");
    all.resize(static_cast<std::size_t>(total));
  }
  CONVEYOR_MPI_CHECK(MPI_Igatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                                  offsets.data(), MPI_CHAR, root, coll_, &request));
  wait_quietly(request);
  std::vector<std::string> texts;
  if (rank() != root) return texts;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    texts.push_back(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return texts;
}

}  // namespace conveyor::distributed
