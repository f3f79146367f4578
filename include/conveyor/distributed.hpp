#pragma once
/// Distributed execution over MPI, as a layer above one Runtime per rank (StarPU-MPI's and PaRSEC
/// DTD's model). Every rank submits the same sequential task flow; each data has an owner rank; a
/// task runs on the rank that owns the first data it writes (or on a rank named at submission);
/// the layer turns each read of data that lives elsewhere into a receive task on the reader and a
/// send task on the owner, which the local runtimes order like any other task. Messages are
/// non-blocking and posted as soon as the data is ready; a progress thread completes them. The
/// core runtime knows nothing of ranks. Built only with MPI (CONVEYOR_WITH_MPI; link
/// conveyor_distributed). docs/distributed.md has the rules and a picture.
///
///   conveyor::MpiSession mpi(argc, argv);              // MPI_Init_thread(MULTIPLE), checked
///   conveyor::Runtime rt;
///   conveyor::Distributed dist(rt);                    // MPI_COMM_WORLD by default
///   conveyor::ProcessGrid grid{2, 2};
///   std::vector<conveyor::DistributedData> a;
///   for (int j = 0; j < t; ++j)
///     for (int i = 0; i < t; ++i) {
///       int owner = grid.owner(i, j);                  // 2D block-cyclic
///       double* mine = owner == dist.rank() ? storage(i, j) : nullptr;   // memory where owned
///       a.push_back(dist.register_matrix(mine, nb, nb, nb, owner));
///     }
///   dist.submit(gemm, {{a[ik], conveyor::Access::Read}, {a[jk], conveyor::Access::Read},
///                      {a[ij], conveyor::Access::ReadWrite}});   // runs on a[ij]'s owner
///   dist.wait_all();                                   // collective; rethrows any rank's failure
///   dist.gather(a[0], 0);  dist.wait_all();            // rank 0's memory for a[0] is current
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/access.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/data.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor {

/// Initialises MPI with MPI_THREAD_MULTIPLE (the progress thread and the submitting thread both
/// call MPI) and finalises it on destruction, unless MPI was initialised already (then it only
/// checks the thread level). Throws Error naming the level MPI gave when it is lower.
class MpiSession {
 public:
  MpiSession(int* argc = nullptr, char*** argv = nullptr);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  /// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx):
  /// read from the environment, without initialising MPI.
  static bool launched();

 private:
  bool owns_ = false;
};

namespace distributed {
struct DataState;  // the layer's bookkeeping (src/distributed/distributed_data_state.hpp)
class Transport;   // how ranks talk: MPI, or a simulated network (src/distributed/transport.hpp)
}  // namespace distributed

/// Handle to distributed data: a global tag (registration order, the same on every rank), an
/// owner rank, and this rank's local copy (the user's memory where given, else a buffer the layer
/// allocates the first time this rank needs one). Cheap to copy.
class DistributedData {
 public:
  DistributedData() = default;
  explicit DistributedData(std::shared_ptr<distributed::DataState> s) : state_(std::move(s)) {}
  bool registered() const;
  int owner() const;
  std::uint64_t tag() const;
  const std::string& name() const;
  /// This rank's copy in the runtime (registered on the owner always; elsewhere once a task or a
  /// gather needed it; else an empty handle). Use it to read results after wait_all.
  Data local() const;
  distributed::DataState* state() const { return state_.get(); }

 private:
  std::shared_ptr<distributed::DataState> state_;
};

struct DistributedAccess {
  DistributedData data;
  Access mode = Access::Read;
};

/// What this rank did since the layer started (or reset_stats). Message counts are point-to-point
/// data messages (not the layer's control messages).
struct DistributedStats {
  int rank = 0;
  std::uint64_t tasks = 0;          ///< user tasks submitted to this rank's runtime
  std::uint64_t tasks_skipped = 0;  ///< user tasks run elsewhere
  std::uint64_t messages_sent = 0, bytes_sent = 0;
  std::uint64_t messages_received = 0, bytes_received = 0;
  double progress_cpu_s = 0;   ///< CPU time of the progress thread
  double progress_wall_s = 0;  ///< wall time it lived
};

/// Every member is called from one thread per rank (the one that submits), in the same order on
/// every rank; the layer's own progress thread does the rest.
class Distributed {
 public:
  /// Wraps `runtime` (which must have at least one CPU worker: sends and receives are CPU tasks)
  /// for the ranks of `comm` (duplicated; MPI must be initialised with MPI_THREAD_MULTIPLE, see
  /// MpiSession). Collective over `comm`. Throws UsageError / Error otherwise.
  explicit Distributed(Runtime& runtime, MPI_Comm comm = MPI_COMM_WORLD);
  /// A rank of a simulated cluster (run_simulated_cluster makes them; not for users).
  Distributed(Runtime& runtime, std::shared_ptr<distributed::Transport> transport);
  /// Waits for this rank's communication to finish (or fails it after an abort); call wait_all
  /// first to see errors.
  ~Distributed();
  Distributed(const Distributed&) = delete;
  Distributed& operator=(const Distributed&) = delete;

  int rank() const;
  int size() const;
  /// The communicator given to the constructor (the layer talks on private duplicates of it);
  /// MPI_COMM_NULL on a simulated cluster (use the collectives below, which work on both).
  MPI_Comm communicator() const;
  Runtime& runtime() const;

  /// Registers data on every rank (call it on every rank, in the same order: the order gives the
  /// global tag). `ptr` is this rank's memory for it; it may be nullptr except where the user
  /// wants the data to land (the owner's memory holds the latest contents after wait_all; a
  /// non-owner's memory, when given, receives the copies this rank reads). An owner without
  /// memory gets a zeroed buffer from the layer.
  DistributedData register_matrix_bytes(void* ptr, std::size_t elem_size, std::size_t rows,
                                        std::size_t cols, std::size_t ld, int owner,
                                        std::string name = {});
  DistributedData register_bytes(void* ptr, std::size_t elem_size, std::size_t count, int owner,
                                 std::string name = {}) {
    return register_matrix_bytes(ptr, elem_size, count, 1, count, owner, std::move(name));
  }
  template <typename T>
  DistributedData register_matrix(T* ptr, std::size_t rows, std::size_t cols, std::size_t ld,
                                  int owner, std::string name = {}) {
    return register_matrix_bytes(ptr, sizeof(T), rows, cols, ld, owner, std::move(name));
  }
  template <typename T>
  DistributedData register_vector(T* ptr, std::size_t count, int owner, std::string name = {}) {
    return register_bytes(ptr, sizeof(T), count, owner, std::move(name));
  }

  /// Moves ownership (every rank, at the same point of the flow): the new owner receives the
  /// latest contents unless it holds them already; later tasks writing the data run there.
  void set_owner(DistributedData& data, int owner);

  /// Submits a task on every rank (call it on every rank, in the same order). It runs on the
  /// owner of its first written data (owner-computes; with no written data, the owner of its first
  /// data); the data it reads from other ranks arrive by messages; data it writes that another
  /// rank owns are sent back to their owners. Returns the runtime's TaskId on the rank that runs
  /// it, 0 on the others (which only update their bookkeeping).
  TaskId submit(const Codelet& codelet, std::span<const DistributedAccess> accesses,
                int priority = 0, std::string_view name = {}, std::span<const std::byte> args = {});
  TaskId submit(const Codelet& codelet, std::initializer_list<DistributedAccess> accesses,
                int priority = 0, std::string_view name = {},
                std::span<const std::byte> args = {}) {
    return submit(codelet, std::span(accesses.begin(), accesses.size()), priority, name, args);
  }
  /// The same with an explicit rank instead of the owner-computes rule.
  TaskId submit_on(int rank, const Codelet& codelet, std::span<const DistributedAccess> accesses,
                   int priority = 0, std::string_view name = {},
                   std::span<const std::byte> args = {});
  TaskId submit_on(int rank, const Codelet& codelet,
                   std::initializer_list<DistributedAccess> accesses, int priority = 0,
                   std::string_view name = {}, std::span<const std::byte> args = {}) {
    return submit_on(rank, codelet, std::span(accesses.begin(), accesses.size()), priority, name,
                     args);
  }

  /// Collective: waits for this rank's tasks and messages, then agrees with the other ranks.
  /// Throws Error on every rank when a task failed on any rank ("rank R: task ... failed ...").
  /// After a failure, the ranks stop exchanging messages (pending ones fail at once), so the
  /// error arrives instead of a hang.
  void wait_all();

  /// Host access to the latest contents, on the owner (call it on every rank, in flow order: a
  /// Write access makes the owner's copy the only current one everywhere). Other ranks get an
  /// empty HostAccess (data() == nullptr) and do not wait.
  HostAccess acquire(const DistributedData& data, Access mode);

  /// Makes `root`'s copy of `data` current (a message from the owner unless root holds the latest
  /// version already). Every rank calls it; the copy is there after the next wait_all.
  void gather(const DistributedData& data, int root);

  /// Unregisters the data on every rank (call it on every rank): waits for this rank's tasks
  /// using it; the owner's memory holds the latest contents; layer buffers are freed.
  void unregister(DistributedData& data);

  DistributedStats stats() const;
  void reset_stats();
  /// Collective: every rank's stats, indexed by rank (on every rank).
  std::vector<DistributedStats> all_stats();

  /// Whether a rank that holds the current version of data may send it on to another reader
  /// (default: yes; every rank must set the same, at the same point of the flow). With it, the
  /// readers of a version get their copies along a binomial-like tree of holders instead of all
  /// from the owner, whose network link would otherwise carry every copy (docs/distributed.md,
  /// "Relayed copies"); message counts and total bytes are the same either way.
  void set_relay(bool relay);

  /// The application's own collectives (every rank, same order), on MPI or a simulated cluster;
  /// a rank that waits in them leaves its cores to ranks still computing on the same node.
  void barrier();
  /// The largest of every rank's `value` (a run's time: the slowest rank's).
  double max_over_ranks(double value);
  /// `root`'s `bytes` at `data` land at `data` on every rank.
  void broadcast(void* data, std::size_t bytes, int root);

  /// Collective: writes one Chrome trace on rank 0 with one process group per rank ("rank R
  /// host", "rank R cuda:0", ...), from each rank's runtime trace (RuntimeOptions::trace). Times
  /// are each rank's time since its runtime started.
  void write_trace(const std::string& path);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace conveyor
