// The distributed layer: turns one sequential task flow, submitted on every rank, into local tasks
// plus the send and receive tasks that move data between ranks. Each rank decides alone which
// messages a task needs, from the bookkeeping in DataState that every rank updates identically
// (version, holders); so no negotiation happens at run time, and a message may arrive long before
// its receiver has submitted the task that reads it (MPI keeps it as unexpected until the receive
// is posted).
#include "conveyor/distributed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "conveyor/error.hpp"
#include "device/codelet_impl.hpp"
#include "distributed/distributed_data_state.hpp"
#include "distributed/failure_guard.hpp"
#include "distributed/mpi_transport.hpp"
#include "distributed/reserved_memory.hpp"

namespace conveyor {

using distributed::DataState;
using distributed::Message;
using distributed::Transport;

namespace {

// What a send or receive task needs besides its buffer. data_tag and version are for messages and
// the trace; matching uses `tag` only.
struct CommArgs {
  int peer;
  int tag;
  std::uint64_t data_tag;
  std::uint64_t version;
};

// Sends and receives are posted as soon as their dependencies allow, ahead of compute tasks that
// are ready at the same time: a message posted late delays a whole other rank.
constexpr int kCommPriority = 1 << 30;

// The trace's process for the messages of a rank (the runtime's own pids are 1, 2, ...).
constexpr int kMessagesPid = 900;

Codelet comm_codelet(const char* name, Message::Kind kind,
                     const std::shared_ptr<Transport>& transport) {
  Codelet c(name);
  // On a simulated platform too the function runs (it only hands the message over), and the
  // transport, not the host's model, says how long the message takes.
  device::CodeletAccess::impl(c)->control = true;
  c.cpu([transport, kind](const TaskContext& t) {
    auto a = t.args<CommArgs>();
    const Buffer& b = t.buffer(0);
    Message m;
    m.kind = kind;
    m.peer = a.peer;
    m.tag = a.tag;
    m.ptr = b.ptr;
    m.elem_size = b.elem_size;
    m.rows = b.rows;
    m.cols = b.cols;
    m.ld = b.ld;
    m.completion = t.defer();  // the worker is free at once; the transport finishes the task
    transport->post(std::move(m));
  });
  return c;
}

}  // namespace

class Distributed::Impl {
 public:
  Impl(Runtime& rt, std::shared_ptr<Transport> transport, MPI_Comm comm);
  ~Impl();

  DataState& check(const DistributedData& d, std::string_view use) const;
  Data& local_copy(DataState& d);
  void transfer(DataState& d, int from, int to);
  TaskId submit(int exec, const Codelet& codelet, std::span<const DistributedAccess> accesses,
                int priority, std::string_view name, std::span<const std::byte> args);
  void wait_all();
  void throw_if_failed() const {
    if (failed_) throw Error(failed_message_ + " (reported by an earlier wait_all)");
  }

  Runtime& rt_;
  MPI_Comm user_comm_;  // MPI_COMM_NULL on a simulated cluster
  std::shared_ptr<Transport> transport_;
  int rank_ = 0, size_ = 1;
  Codelet send_, recv_;
  std::unique_ptr<distributed::FailureGuard> guard_;
  std::uint64_t next_data_tag_ = 0;
  std::vector<std::uint64_t> sent_to_, received_from_;  // messages per peer so far: the MPI tag
  std::uint64_t tasks_ = 0, skipped_ = 0;
  bool failed_ = false;
  std::string failed_message_;
  bool relay_ = true;  // holders other than the owner forward copies (DataState::source)
};

Distributed::Impl::Impl(Runtime& rt, std::shared_ptr<Transport> transport, MPI_Comm comm)
    : rt_(rt),
      user_comm_(comm),
      transport_(std::move(transport)),
      rank_(transport_->rank()),
      size_(transport_->size()),
      send_("mpi_send"),
      recv_("mpi_recv") {
  if (rt.options().cpus == 0)
    throw UsageError(
        "Distributed: the runtime needs a CPU worker (sends and receives are CPU tasks)");
  sent_to_.assign(static_cast<std::size_t>(size_), 0);
  received_from_.assign(static_cast<std::size_t>(size_), 0);
  if (rt.options().trace) transport_->record_events([&rt] { return rt.seconds(); });
  send_ = comm_codelet("mpi_send", Message::Kind::Send, transport_);
  recv_ = comm_codelet("mpi_recv", Message::Kind::Recv, transport_);
  guard_ = std::make_unique<distributed::FailureGuard>(transport_, rt.workers());
}

Distributed::Impl::~Impl() { transport_->stop(); }

DataState& Distributed::Impl::check(const DistributedData& d, std::string_view use) const {
  DataState* s = d.state();
  if (!s) throw UsageError(fmt::format("{}: empty DistributedData handle", use));
  if (s->layer != this)
    throw UsageError(fmt::format("{}: {} belongs to another Distributed", use, s->describe()));
  if (!s->registered)
    throw UsageError(fmt::format("{}: {} used after unregister", use, s->describe()));
  return *s;
}

Data& Distributed::Impl::local_copy(DataState& d) {
  if (!d.local.registered()) {
    if (d.user_ptr) {
      d.local =
          rt_.register_matrix_bytes(d.user_ptr, d.elem_size, d.rows, d.cols, d.user_ld, d.name);
    } else if (!transport_->real_data()) {
      // A simulated cluster that runs no kernels: addresses only, as the simulated devices have.
      d.buffer = distributed::reserve_address_range(d.bytes());
      d.local =
          rt_.register_matrix_bytes(d.buffer.get(), d.elem_size, d.rows, d.cols, d.rows, d.name);
    } else {
      // Zeroed so that a rank never computes on stale heap contents, even in a failing run.
      d.buffer = distributed::zeroed_buffer(d.bytes());
      d.local =
          rt_.register_matrix_bytes(d.buffer.get(), d.elem_size, d.rows, d.cols, d.rows, d.name);
    }
  }
  return d.local;
}

// One message of d's current version from `from` to `to`: a send task on `from` (reads its copy)
// and a receive task on `to` (writes its copy); the k-th message between two ranks has tag k on
// both sides, because both number them in flow order.
void Distributed::Impl::transfer(DataState& d, int from, int to) {
  if (rank_ != from && rank_ != to) return;
  const bool sending = rank_ == from;
  const int peer = sending ? to : from;
  std::uint64_t& seq = sending ? sent_to_[static_cast<std::size_t>(peer)]
                               : received_from_[static_cast<std::size_t>(peer)];
  CommArgs args{peer, static_cast<int>(seq % transport_->tags()), d.tag, d.version};
  ++seq;
  Data& local = local_copy(d);
  std::string name = fmt::format("{} {} v{} {} rank {}", sending ? "send" : "recv", d.describe(),
                                 d.version, sending ? "to" : "from", peer);
  rt_.submit(sending ? send_ : recv_, {{local, sending ? Access::Read : Access::Write}},
             kCommPriority, name, std::as_bytes(std::span(&args, 1)));
}

TaskId Distributed::Impl::submit(int exec, const Codelet& codelet,
                                 std::span<const DistributedAccess> accesses, int priority,
                                 std::string_view name, std::span<const std::byte> args) {
  throw_if_failed();
  std::string_view label = name.empty() ? std::string_view(codelet.name()) : name;
  std::vector<DataState*> states;
  states.reserve(accesses.size());
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    DataState& d = check(accesses[i].data, fmt::format("task '{}'", label));
    if (std::find(states.begin(), states.end(), &d) != states.end())
      throw UsageError(fmt::format("task '{}': {} given twice", label, d.describe()));
    states.push_back(&d);
  }
  if (exec < 0) {  // owner computes: the first written data's owner, else the first data's
    for (std::size_t i = 0; i < accesses.size() && exec < 0; ++i)
      if (writes(accesses[i].mode)) exec = states[i]->owner;
    if (exec < 0) exec = states.empty() ? 0 : states.front()->owner;
  }
  if (exec >= size_)
    throw UsageError(
        fmt::format("task '{}': rank {} does not exist ({} ranks)", label, exec, size_));

  // Inputs: every datum the task reads must be current on `exec`.
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    DataState& d = *states[i];
    if (reads(accesses[i].mode) && !d.holders[static_cast<std::size_t>(exec)]) {
      const int from = d.source(relay_);
      transfer(d, from, exec);
      d.add_holder(from, exec);
    }
  }
  TaskId id = 0;
  if (rank_ == exec) {
    std::vector<DataAccess> local;
    local.reserve(accesses.size());
    for (std::size_t i = 0; i < accesses.size(); ++i)
      local.push_back({local_copy(*states[i]), accesses[i].mode});
    id = rt_.submit(guard_->guarded(codelet), local, priority, name, args);
    ++tasks_;
  } else {
    ++skipped_;
  }
  // Outputs: a new version lives on `exec` only; data owned elsewhere go back to their owner.
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    if (!writes(accesses[i].mode)) continue;
    DataState& d = *states[i];
    ++d.version;
    d.only_holder(exec);
    if (exec != d.owner) {
      transfer(d, exec, d.owner);
      d.add_holder(exec, d.owner);
    }
  }
  return id;
}

void Distributed::Impl::wait_all() {
  throw_if_failed();
  std::string local_error;
  try {
    rt_.wait_all();
  } catch (const Error& e) {
    local_error = e.what();
  }
  // A failure the guard did not see (a device's asynchronous error): tell the others now.
  if (!local_error.empty()) transport_->abort(local_error);

  // Agreement: the lowest rank that failed first on its own (its reason is its own) tells all.
  int origin = transport_->aborted() ? transport_->abort_origin() : INT_MAX;
  std::vector<int> origins(static_cast<std::size_t>(size_));
  transport_->allgather(&origin, sizeof origin, origins.data());
  int agreed = *std::min_element(origins.begin(), origins.end());
  if (agreed == INT_MAX) return;
  char reason[Transport::kReasonBytes] = {};
  if (rank_ == agreed) {
    std::string text = transport_->abort_reason();
    std::strncpy(reason, text.c_str(), sizeof reason - 1);
  }
  transport_->broadcast(reason, sizeof reason, agreed);
  reason[sizeof reason - 1] = '\0';
  failed_ = true;
  failed_message_ = fmt::format("distributed run failed: rank {}: {}", agreed, reason);
  throw Error(failed_message_);
}

// ---- public forwarding ------------------------------------------------------------------------

bool DistributedData::registered() const { return state_ && state_->registered; }
int DistributedData::owner() const { return state_ ? state_->owner : -1; }
std::uint64_t DistributedData::tag() const { return state_ ? state_->tag : 0; }
const std::string& DistributedData::name() const {
  static const std::string kNone;
  return state_ ? state_->name : kNone;
}
Data DistributedData::local() const { return state_ ? state_->local : Data(); }

Distributed::Distributed(Runtime& runtime, MPI_Comm comm)
    : impl_(std::make_unique<Impl>(runtime, std::make_shared<distributed::MpiTransport>(comm),
                                   comm)) {}
Distributed::Distributed(Runtime& runtime, std::shared_ptr<distributed::Transport> transport)
    : impl_(std::make_unique<Impl>(runtime, std::move(transport), MPI_COMM_NULL)) {}
Distributed::~Distributed() = default;

int Distributed::rank() const { return impl_->rank_; }
int Distributed::size() const { return impl_->size_; }
MPI_Comm Distributed::communicator() const { return impl_->user_comm_; }
Runtime& Distributed::runtime() const { return impl_->rt_; }

DistributedData Distributed::register_matrix_bytes(void* ptr, std::size_t elem_size,
                                                   std::size_t rows, std::size_t cols,
                                                   std::size_t ld, int owner, std::string name) {
  impl_->throw_if_failed();
  std::string label = name.empty() ? "data" : fmt::format("'{}'", name);
  if (owner < 0 || owner >= impl_->size_)
    throw UsageError(fmt::format("register {}: owner rank {} does not exist ({} ranks)", label,
                                 owner, impl_->size_));
  if (elem_size == 0 || rows == 0 || cols == 0)
    throw UsageError(
        fmt::format("register {}: empty ({} x {} of {} bytes)", label, rows, cols, elem_size));
  if (ptr && ld < rows)
    throw UsageError(fmt::format("register {}: leading dimension {} < rows {}", label, ld, rows));
  auto s = std::make_shared<DataState>();
  s->layer = impl_.get();
  s->tag = impl_->next_data_tag_++;
  s->owner = owner;
  s->elem_size = elem_size;
  s->rows = rows;
  s->cols = cols;
  s->user_ptr = ptr;
  s->user_ld = ld;
  s->name = std::move(name);
  s->holders.assign(static_cast<std::size_t>(impl_->size_), false);
  s->only_holder(owner);
  if (owner == impl_->rank_) impl_->local_copy(*s);
  return DistributedData(std::move(s));
}

void Distributed::set_owner(DistributedData& data, int owner) {
  impl_->throw_if_failed();
  DataState& d = impl_->check(data, "set_owner");
  if (owner < 0 || owner >= impl_->size_)
    throw UsageError(fmt::format("set_owner {}: rank {} does not exist ({} ranks)", d.describe(),
                                 owner, impl_->size_));
  if (owner == d.owner) return;
  if (!d.holders[static_cast<std::size_t>(owner)]) {
    const int from = d.source(impl_->relay_);
    impl_->transfer(d, from, owner);
    d.add_holder(from, owner);
  }
  d.owner = owner;
  if (owner == impl_->rank_) impl_->local_copy(d);
}

TaskId Distributed::submit(const Codelet& codelet, std::span<const DistributedAccess> accesses,
                           int priority, std::string_view name, std::span<const std::byte> args) {
  return impl_->submit(-1, codelet, accesses, priority, name, args);
}

TaskId Distributed::submit_on(int rank, const Codelet& codelet,
                              std::span<const DistributedAccess> accesses, int priority,
                              std::string_view name, std::span<const std::byte> args) {
  if (rank < 0) throw UsageError(fmt::format("submit_on: rank {} does not exist", rank));
  return impl_->submit(rank, codelet, accesses, priority, name, args);
}

void Distributed::wait_all() { impl_->wait_all(); }

HostAccess Distributed::acquire(const DistributedData& data, Access mode) {
  impl_->throw_if_failed();
  DataState& d = impl_->check(data, "acquire");
  HostAccess access;
  if (impl_->rank_ == d.owner) access = impl_->rt_.acquire(impl_->local_copy(d), mode);
  if (writes(mode)) {
    ++d.version;
    d.only_holder(d.owner);
  }
  return access;
}

void Distributed::gather(const DistributedData& data, int root) {
  impl_->throw_if_failed();
  DataState& d = impl_->check(data, "gather");
  if (root < 0 || root >= impl_->size_)
    throw UsageError(fmt::format("gather {}: rank {} does not exist", d.describe(), root));
  if (d.holders[static_cast<std::size_t>(root)]) return;
  const int from = d.source(impl_->relay_);
  impl_->transfer(d, from, root);
  d.add_holder(from, root);
}

void Distributed::unregister(DistributedData& data) {
  DataState& d = impl_->check(data, "unregister");
  if (d.local.registered()) impl_->rt_.unregister(d.local);
  d.buffer.reset();
  d.registered = false;
}

DistributedStats Distributed::stats() const {
  DistributedStats s;
  auto c = impl_->transport_->counters();
  s.rank = impl_->rank_;
  s.tasks = impl_->tasks_;
  s.tasks_skipped = impl_->skipped_;
  s.messages_sent = c.sent;
  s.bytes_sent = c.bytes_sent;
  s.messages_received = c.received;
  s.bytes_received = c.bytes_received;
  s.progress_cpu_s = impl_->transport_->cpu_seconds();
  s.progress_wall_s = impl_->transport_->wall_seconds();
  return s;
}

void Distributed::reset_stats() {
  impl_->transport_->reset_counters();
  impl_->tasks_ = impl_->skipped_ = 0;
}

std::vector<DistributedStats> Distributed::all_stats() {
  DistributedStats mine = stats();
  std::vector<DistributedStats> all(static_cast<std::size_t>(impl_->size_));
  impl_->transport_->allgather(&mine, sizeof mine, all.data());
  return all;
}

void Distributed::set_relay(bool relay) { impl_->relay_ = relay; }

void Distributed::barrier() { impl_->transport_->barrier(); }

double Distributed::max_over_ranks(double value) {
  std::vector<double> all(static_cast<std::size_t>(impl_->size_));
  impl_->transport_->allgather(&value, sizeof value, all.data());
  return *std::max_element(all.begin(), all.end());
}

void Distributed::broadcast(void* data, std::size_t bytes, int root) {
  if (root < 0 || root >= impl_->size_)
    throw UsageError(fmt::format("broadcast: rank {} does not exist", root));
  impl_->transport_->broadcast(data, bytes, root);
}

void Distributed::write_trace(const std::string& path) {
  // Each rank's runtime writes its own trace; rank 0 collects the texts (ranks may be on other
  // nodes, so through MPI, not the file system) and renumbers the processes per rank.
  std::string mine;
  {
    std::string tmp = fmt::format("{}.rank{}.tmp", path, impl_->rank_);
    impl_->rt_.write_trace(tmp);
    std::ifstream in(tmp);
    std::stringstream ss;
    ss << in.rdbuf();
    in.close();
    std::remove(tmp.c_str());
    // The messages, on a process of their own: one track for sends, one for receives.
    auto doc = nlohmann::json::parse(ss.str());
    auto& events = doc["traceEvents"];
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", kMessagesPid},
                      {"tid", 0},
                      {"args", {{"name", "messages"}}}});
    for (int tid : {1, 2})
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", kMessagesPid},
                        {"tid", tid},
                        {"args", {{"name", tid == 1 ? "sends" : "receives"}}}});
    for (const auto& e : impl_->transport_->events()) {
      bool send = e.kind == Message::Kind::Send;
      events.push_back({{"ph", "X"},
                        {"name", fmt::format("{} {}", send ? "to" : "from", e.peer)},
                        {"cat", "transfer"},
                        {"pid", kMessagesPid},
                        {"tid", send ? 1 : 2},
                        {"ts", e.start_s * 1e6},
                        {"dur", std::max(0.0, e.end_s - e.start_s) * 1e6},
                        {"args", {{"bytes", e.bytes}}}});
    }
    mine = doc.dump();
  }
  std::vector<std::string> texts = impl_->transport_->gather(mine, 0);
  if (impl_->rank_ != 0) return;

  nlohmann::json events = nlohmann::json::array();
  for (std::size_t r = 0; r < texts.size(); ++r) {
    auto doc = nlohmann::json::parse(texts[r]);
    for (auto& e : doc["traceEvents"]) {
      // Pids stay small per rank (host 1, devices 2..): rank r's go to 1000 r + pid.
      e["pid"] = static_cast<int>(1000 * r) + e["pid"].get<int>();
      // Track names carry the rank too: a Gantt chart labels rows by track.
      if (e.value("name", "") == "process_name" || e.value("name", "") == "thread_name")
        e["args"]["name"] = fmt::format("rank {} {}", r, e["args"]["name"].get<std::string>());
      events.push_back(std::move(e));
    }
  }
  nlohmann::json doc = {{"command", "distributed"},
                        {"ranks", impl_->size_},
                        {"displayTimeUnit", "ms"},
                        {"traceEvents", std::move(events)}};
  std::ofstream out(path);
  out << doc.dump() << "\n";
  if (!out) throw Error(fmt::format("cannot write the trace to '{}'", path));
}

}  // namespace conveyor
