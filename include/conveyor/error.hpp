#pragma once
/// Errors thrown by Conveyor. Library code throws; only the CLI turns an exception into an exit
/// code: UsageError -> 2 (bad usage or input), any other Error -> 1 (runtime failure).
///
///   try { conveyor::parse_bytes("12Q"); } catch (const conveyor::UsageError& e) { std::cerr <<
///   e.what(); }
#include <stdexcept>
#include <string>

namespace conveyor {

/// Base of every Conveyor error: a runtime failure (exit 1 in the CLI).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad usage or input: an option out of range, an unknown device or kernel, a malformed file (exit
/// 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

/// A result failed its check against gold values (exit 1).
class ValidationError : public Error {
 public:
  using Error::Error;
};

/// A device API call failed; the message names the call, the file and the line.
class DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace conveyor
