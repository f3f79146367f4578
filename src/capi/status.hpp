#pragma once
// How the C interface reports failures: every entry point runs its body through guard(), which
// turns any exception into a conveyor_status and the calling thread's last-error message, so that
// no C++ exception crosses into C code.
#include <concepts>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "conveyor/conveyor.h"
#include "conveyor/error.hpp"

namespace conveyor::capi {

/// A failure detected by the C layer itself, with the status it maps to.
class CapiError : public std::exception {
 public:
  CapiError(conveyor_status status, std::string message)
      : status_(status), message_(std::move(message)) {}
  conveyor_status status() const { return status_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  conveyor_status status_;
  std::string message_;
};

/// Records `message` as this thread's last error and returns `status`.
conveyor_status fail(conveyor_status status, const std::string& message);

/// Runs `body` (returning void); exceptions become a status. `runtime_error_status` is what a
/// plain conveyor::Error means at this call (a failed tasklet for wait, else internal).
template <typename Body>
conveyor_status guard(const char* function, conveyor_status runtime_error_status, Body&& body) {
  try {
    std::forward<Body>(body)();
    return CONVEYOR_OK;
  } catch (const CapiError& e) {
    return fail(e.status(), std::string(function) + ": " + e.what());
  } catch (const UsageError& e) {
    return fail(CONVEYOR_ERROR_USAGE, std::string(function) + ": " + e.what());
  } catch (const DeviceError& e) {
    return fail(CONVEYOR_ERROR_DEVICE, std::string(function) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return fail(CONVEYOR_ERROR_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return fail(runtime_error_status, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(CONVEYOR_ERROR_INTERNAL, std::string(function) + ": unknown exception");
  }
}

/// Throws CapiError(CONVEYOR_ERROR_INVALID_ARGUMENT) with `message` unless `ok`. Checks run on
/// every submission: the message is a literal, or a callable that builds it only on failure.
inline void require(bool ok, const char* message) {
  if (!ok) throw CapiError(CONVEYOR_ERROR_INVALID_ARGUMENT, message);
}
template <std::invocable MakeMessage>
void require(bool ok, MakeMessage&& make_message) {
  if (!ok) throw CapiError(CONVEYOR_ERROR_INVALID_ARGUMENT, make_message());
}

}  // namespace conveyor::capi
