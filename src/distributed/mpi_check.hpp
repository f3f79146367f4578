#pragma once
// MPI calls in the layer go through CONVEYOR_MPI_CHECK: the layer's communicators return errors
// (MPI_ERRORS_RETURN) instead of aborting the job, and this turns a failing call into an Error that
// names the call, its place and MPI's own message.
#include <mpi.h>

namespace conveyor::distributed {

/// Throws Error("<call> failed at <file>:<line>: <MPI's message>") unless code is MPI_SUCCESS.
void check_mpi(int code, const char* call, const char* file, int line);

}  // namespace conveyor::distributed

#define CONVEYOR_MPI_CHECK(call) \
  ::conveyor::distributed::check_mpi((call), #call, __FILE__, __LINE__)
