// MPI start-up: the thread level is checked here, once, so that a missing MPI_THREAD_MULTIPLE is a
// clear error at start rather than undefined behaviour when the progress thread first calls MPI.
#include <fmt/format.h>

#include <cstdlib>

#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"

namespace conveyor {
namespace {

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
  }
  return "an unknown thread level";
}

void require_multiple(int provided) {
  if (provided < MPI_THREAD_MULTIPLE)
    throw Error(fmt::format(
        "MPI provides {}, the distributed layer needs MPI_THREAD_MULTIPLE (its progress thread "
        "calls MPI next to the submitting thread); use an MPI built with thread support (Open "
        "MPI: --enable-mpi-thread-multiple, the default since 3.0)",
        level_name(provided)));
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    require_multiple(provided);
    return;
  }
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    throw Error("MPI_Init_thread failed");
  owns_ = true;
  try {
    require_multiple(provided);
  } catch (...) {
    MPI_Finalize();
    owns_ = false;
    throw;
  }
}

MpiSession::~MpiSession() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool MpiSession::launched() {
  // Open MPI's mpirun, MPICH/Hydra (PMI), PMIx launchers (srun --mpi=pmix, prterun).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

}  // namespace conveyor
