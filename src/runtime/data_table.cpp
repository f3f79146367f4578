// The runtime's table of registered data, from register_data to unregister: host pinning, the
// checks every use of a Data handle goes through, and partitioning a matrix into tiles (each tile
// registered data of its own). Waiting for a data's tasks goes through acquire (task_graph.cpp).
#include <fmt/format.h>

#include <memory>
#include <utility>

#include "conveyor/error.hpp"
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

using runtime::Task;

namespace {
// The checks every registration makes; `label` names the data in the message.
void check_shape(const std::string& label, const void* ptr, std::size_t elem_size, std::size_t rows,
                 std::size_t cols, std::size_t ld) {
  if (!ptr && rows * cols > 0) throw UsageError(fmt::format("register {}: null pointer", label));
  if (elem_size == 0) throw UsageError(fmt::format("register {}: element size 0", label));
  if (rows == 0 || cols == 0)
    throw UsageError(fmt::format("register {}: empty ({} x {})", label, rows, cols));
  if (ld < rows)
    throw UsageError(fmt::format("register {}: leading dimension {} < rows {}", label, ld, rows));
}

std::string label_of(const std::string& name) {
  return name.empty() ? "data" : fmt::format("'{}'", name);
}

// A registration's state, before its home is set: shape, name, owner.
std::shared_ptr<data::DataState> new_state(const void* owner, std::size_t elem_size,
                                           std::size_t rows, std::size_t cols, std::size_t ld,
                                           std::string name) {
  auto state = std::make_shared<data::DataState>();
  state->owner = owner;
  state->elem_size = elem_size;
  state->rows = rows;
  state->cols = cols;
  state->ld = ld;
  state->name = std::move(name);
  return state;
}
}  // namespace

Data Runtime::Impl::register_data(void* ptr, std::size_t elem_size, std::size_t rows,
                                  std::size_t cols, std::size_t ld, std::string name,
                                  data::DataState* parent) {
  check_shape(label_of(name), ptr, elem_size, rows, cols, ld);
  auto state = new_state(this, elem_size, rows, cols, ld, std::move(name));
  state->host = static_cast<char*>(ptr);
  state->parent = parent;
  coherence_->init(*state);
  return add_to_registry(std::move(state));
}

Data Runtime::Impl::register_device_data(std::string_view device, void* ptr, std::size_t elem_size,
                                         std::size_t rows, std::size_t cols, std::size_t ld,
                                         std::string name) {
  const std::string label = label_of(name);
  check_shape(label, ptr, elem_size, rows, cols, ld);
  int space = -1;
  std::string known;
  for (std::size_t i = 0; i < drivers_.size(); ++i) {
    if (drivers_[i]->id() == device) space = static_cast<int>(i) + 1;
    known += (known.empty() ? "" : ", ") + drivers_[i]->id();
  }
  if (space < 0)
    throw UsageError(fmt::format("register {}: no device '{}' in this runtime (its devices: {})",
                                 label, device, known.empty() ? "none" : known));
  if (options_.coherence == Coherence::Naive)
    throw UsageError(fmt::format(
        "register {} on {}: data whose home is a device needs coherence 'coherent' ('naive' "
        "copies every result to the host)",
        label, device));
  device::DeviceDriver& driver = *drivers_[space - 1];
  void* region = nullptr;
  try {
    region = driver.adopt_external(ptr, ((cols - 1) * ld + rows) * elem_size);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("register {}: {}", label, e.what()));
  }
  // Device replicas are contiguous columns (kernels get ld == rows): a contiguous region is the
  // home replica itself; a strided one (a tile of a larger matrix) gets a block of the runtime's,
  // filled from it now and copied back by fetch_home.
  void* block = region;
  if (ld != rows) {
    const std::size_t width = rows * elem_size;
    block = driver.allocate(width * cols);
    try {
      driver.copy_device_2d(block, width, region, ld * elem_size, width, cols);
    } catch (const UsageError& e) {
      driver.deallocate(block);
      throw UsageError(fmt::format("register {}: leading dimension {} != rows {}: {}", label, ld,
                                   rows, e.what()));
    } catch (...) {
      driver.deallocate(block);
      throw;
    }
  }
  // The host staging copy is contiguous too: ld == rows.
  auto state = new_state(this, elem_size, rows, cols, rows, std::move(name));
  state->home = space;
  state->home_device = std::string(device);
  if (block != region) {
    state->home_region = static_cast<char*>(region);
    state->home_pitch = ld * elem_size;
  }
  coherence_->init(*state, block);
  return add_to_registry(std::move(state));
}

Data Runtime::Impl::add_to_registry(std::shared_ptr<data::DataState> state) {
  {
    std::lock_guard lock(registry_mutex_);
    state->registry_slot = registry_.size();
    registry_.push_back(state);
  }
  return data::DataAccess::make(std::move(state));
}

bool Runtime::Impl::pin_host(void* ptr, std::size_t bytes) {
  if (!ptr || bytes == 0) throw UsageError("pin_host: null pointer or 0 bytes");
  std::lock_guard lock(registry_mutex_);
  if (pinned_.count(ptr)) throw UsageError("pin_host: this memory is pinned already");
  for (auto& driver : drivers_)
    if (driver->pin_host(ptr, bytes)) {
      pinned_[ptr] = driver.get();
      return true;
    }
  return false;
}

void Runtime::Impl::unpin_host(void* ptr) {
  std::lock_guard lock(registry_mutex_);
  auto it = pinned_.find(ptr);
  if (it == pinned_.end()) throw UsageError("unpin_host: this memory was not pinned by pin_host");
  it->second->unpin_host(ptr);
  pinned_.erase(it);
}

std::vector<std::shared_ptr<data::DataState>> Runtime::Impl::registered() const {
  std::lock_guard lock(registry_mutex_);
  return registry_;
}

data::DataState& Runtime::Impl::check_data(const Data& data, std::string_view use,
                                           std::string_view task) const {
  // The message is built only on failure: submit checks every access of every task.
  auto where = [&] { return task.empty() ? std::string(use) : fmt::format("task '{}'", task); };
  data::DataState* d = data::DataAccess::state(data);
  if (!d) throw UsageError(fmt::format("{}: empty Data handle (never registered)", where()));
  if (d->owner != this)
    throw UsageError(fmt::format("{}: {} belongs to another runtime", where(), d->describe()));
  if (!d->registered.load(std::memory_order_acquire))
    throw UsageError(fmt::format("{}: {} used after unregister", where(), d->describe()));
  return *d;
}

TileGrid Runtime::Impl::partition(const Data& matrix, std::size_t tile_rows,
                                  std::size_t tile_cols) {
  data::DataState& m = check_data(matrix, "partition");
  if (m.parent) throw UsageError(fmt::format("partition: {} is itself a tile", m.describe()));
  if (m.device_home())
    throw UsageError(fmt::format(
        "partition: {} has its home on {}, and its tiles would not be contiguous device memory "
        "as device replicas are; register each tile's own device memory instead",
        m.describe(), m.home_device));
  if (tile_rows == 0 || tile_cols == 0 || m.rows % tile_rows != 0 || m.cols % tile_cols != 0)
    throw UsageError(fmt::format("partition: tiles of {}x{} do not divide {} evenly", tile_rows,
                                 tile_cols, m.describe()));
  {
    std::lock_guard lock(mutex_);
    if (m.partitioned)
      throw UsageError(fmt::format("partition: {} is already partitioned", m.describe()));
  }
  {
    Task* access = acquire(matrix, Access::ReadWrite);  // waits for its tasks
    try {
      coherence_->drop_replicas(m);
    } catch (...) {
      release(access);
      throw;
    }
    {
      std::lock_guard lock(mutex_);
      m.partitioned = true;
    }
    release(access);
  }
  TileGrid grid;
  grid.matrix = matrix;
  grid.tile_rows = tile_rows;
  grid.tile_cols = tile_cols;
  grid.grid_rows = m.rows / tile_rows;
  grid.grid_cols = m.cols / tile_cols;
  grid.tiles.reserve(grid.grid_rows * grid.grid_cols);
  for (std::size_t j = 0; j < grid.grid_cols; ++j)
    for (std::size_t i = 0; i < grid.grid_rows; ++i) {
      char* p = m.host + (i * tile_rows + j * tile_cols * m.ld) * m.elem_size;
      std::string name = fmt::format("{}[{},{}]", m.name.empty() ? "tile" : m.name, i, j);
      grid.tiles.push_back(
          register_data(p, m.elem_size, tile_rows, tile_cols, m.ld, std::move(name), &m));
    }
  return grid;
}

void Runtime::Impl::unpartition(TileGrid& grid) {
  data::DataState& m = check_data(grid.matrix, "unpartition");
  for (auto& tile : grid.tiles)
    if (tile.registered()) unregister(tile);
  std::lock_guard lock(mutex_);
  m.partitioned = false;
}

void Runtime::Impl::unregister(Data& data) {
  data::DataState& d = check_data(data, "unregister");
  {
    std::lock_guard lock(mutex_);
    if (d.partitioned)
      throw UsageError(
          fmt::format("unregister: {} is partitioned; unpartition it first", d.describe()));
  }
  // Data whose home is a device goes there (drop_replicas), not through the host.
  Task* access = acquire(data, Access::ReadWrite, /*to_host=*/!d.device_home());
  try {
    coherence_->drop_replicas(d);
    if (clock_) clock_->settle();
  } catch (...) {
    release(access);
    throw;
  }
  d.registered.store(false, std::memory_order_release);
  {
    std::lock_guard lock(registry_mutex_);
    std::size_t slot = d.registry_slot;
    std::swap(registry_[slot], registry_.back());
    registry_[slot]->registry_slot = slot;
    registry_.pop_back();
  }
  release(access);
}

}  // namespace conveyor
