#pragma once
// Learns of a failed task at the moment it fails, so that the other ranks stop waiting for its
// messages now instead of hanging: the runtime reports failures only from wait_all, and a rank
// whose task failed never reaches the end of its wait_all while it still expects messages from
// ranks that wait for its own (cancelled) sends. The guard submits, for each user codelet, a
// twin with the same name and implementations that reports an exception to the transport
// before rethrowing it to the runtime.
//
// Reading a codelet's implementations needs the library's internal view of Codelet
// (device/codelet_impl.hpp): the only place where the layer goes below the public API.
//
// Limit: a device error that surfaces only when the device finishes (an asynchronous kernel
// failure) is not seen here; it reaches the others when this rank's wait_all returns. A runtime
// hook (a failure callback in RuntimeOptions) would cover it; see docs/distributed.md.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "conveyor/codelet.hpp"

namespace conveyor::distributed {

class Transport;

class FailureGuard {
 public:
  FailureGuard(std::shared_ptr<Transport> transport, std::vector<std::string> workers);
  /// The guarded twin of `codelet` (made once per codelet, then reused).
  const Codelet& guarded(const Codelet& codelet);

 private:
  struct Entry {
    Codelet original;  // keeps the original alive, so its address is not reused by another
    Codelet twin;
  };
  std::shared_ptr<Transport> transport_;
  std::shared_ptr<const std::vector<std::string>> workers_;
  std::unordered_map<const void*, Entry> twins_;
};

}  // namespace conveyor::distributed
