#pragma once
/// Where the matrix of a tile algorithm (the apps' factorize) lives: host memory, or the memory of
/// one of the runtime's devices. On a device each tile is registered as a strided device home
/// (Runtime::register_device_matrix_bytes with the matrix's ld): tasks on that device use the
/// tiles there, tasks elsewhere get copies, and the result is left in the device memory.
///
///   factorize(rt, codelets, d_a, n, n, 256, MatrixHome::on("cuda:0"));  // d_a: cudaMalloc'd
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor::apps::common {

struct MatrixHome {
  std::string device;  ///< empty: host memory; else one of the runtime's devices ("cuda:0")

  static MatrixHome host() { return {}; }
  static MatrixHome on(std::string device) { return {std::move(device)}; }
  bool on_host() const { return device.empty(); }
};

/// Throws UsageError (one line, starting with `what`) when `home` is a device that `rt` does not
/// have.
inline void check_home(const Runtime& rt, const MatrixHome& home, std::string_view what) {
  if (home.on_host()) return;
  std::string devices;
  constexpr std::string_view kSuffix = " worker";
  for (const std::string& w : rt.workers()) {
    if (w.rfind("cpu worker", 0) == 0 || w.size() <= kSuffix.size()) continue;
    std::string id = w.substr(0, w.size() - kSuffix.size());
    if (id == home.device) return;
    devices += (devices.empty() ? "" : ", ") + id;
  }
  throw UsageError(std::string(what) + ": the matrix is on " + home.device +
                   ", which this runtime does not have (its devices: " +
                   (devices.empty() ? std::string("none") : devices) + ")");
}

/// Registers the rows x cols tile at `tile` (the matrix's leading dimension `ld`) where `home`
/// says.
template <typename T>
Data register_tile(Runtime& rt, const MatrixHome& home, T* tile, std::size_t rows, std::size_t cols,
                   std::size_t ld, std::string name) {
  if (home.on_host()) return rt.register_matrix(tile, rows, cols, ld, std::move(name));
  return rt.register_device_matrix(home.device, tile, rows, cols, ld, std::move(name));
}

/// Unregisters every registered data of `sets`. `quiet`: on the way out of a failure, where one
/// refusal must not keep the rest registered (each refusal is swallowed); else the first refusal
/// throws.
inline void unregister_all(Runtime& rt, std::initializer_list<std::vector<Data>*> sets,
                           bool quiet) {
  for (auto* set : sets)
    for (auto& d : *set) try {
        if (d.registered()) rt.unregister(d);
      } catch (...) {
        if (!quiet) throw;
      }
}

}  // namespace conveyor::apps::common
