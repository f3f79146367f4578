// The last-error message per thread, and the names of the statuses.
#include "capi/status.hpp"

#include <cstring>

namespace conveyor::capi {
namespace {
// Per thread: a message set by one thread must not be read or overwritten by another.
thread_local std::string t_last_error;
}  // namespace

conveyor_status fail(conveyor_status status, const std::string& message) {
  try {
    t_last_error = message;
  } catch (...) {
    t_last_error.clear();  // out of memory while reporting: the status still says what happened
  }
  return status;
}

}  // namespace conveyor::capi

extern "C" const char* conveyor_last_error(void) { return conveyor::capi::t_last_error.c_str(); }

extern "C" const char* conveyor_status_string(conveyor_status status) {
  // A C caller may pass any int (a status of a newer version, say): C enums are ints. In C++,
  // reading a conveyor_status that holds no enumerator's bits is undefined, so the switch reads
  // the argument's bytes as the int they are.
  static_assert(sizeof(conveyor_status) == sizeof(int));
  int value;
  std::memcpy(&value, &status, sizeof value);
  switch (value) {
    case CONVEYOR_OK:
      return "ok";
    case CONVEYOR_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case CONVEYOR_ERROR_USAGE:
      return "refused by the runtime";
    case CONVEYOR_ERROR_OVERLAP:
      return "overlapping range";
    case CONVEYOR_ERROR_UNKNOWN_ADDRESS:
      return "address in no registered range";
    case CONVEYOR_ERROR_UNKNOWN_KERNEL:
      return "unknown kernel";
    case CONVEYOR_ERROR_TASK_FAILED:
      return "tasklet failed";
    case CONVEYOR_ERROR_DEVICE:
      return "device error";
    case CONVEYOR_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case CONVEYOR_ERROR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}
