#pragma once
/// The apps' check that a run fits in this host's memory before it allocates: a clear UsageError
/// instead of swapping or an allocation failure half-way.
#include <sys/mman.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "common/cache_line_vector.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::common {

/// Throws UsageError ("APP: SIZE needs X MB of memory, Y MB are available", SIZE such as
/// "n = 4096") when `bytes` exceed the memory available here (when the system says how much that
/// is).
void require_host_memory(std::string_view app, std::string_view size, double bytes);

/// A matrix's memory. A simulated platform that runs no kernels never reads or writes the matrix
/// (the runtime only passes tile addresses around), so a 32768 x 32768 matrix needs no 8 GiB:
/// unless `backed`, its address range is reserved, not backed (PROT_NONE: a stray access faults
/// instead of reading garbage).
template <typename T>
class HostMatrix {
 public:
  HostMatrix(std::size_t elements, bool backed) : bytes_(elements * sizeof(T)) {
    if (backed) {
      storage_.resize(elements);
      data_ = storage_.data();
      return;
    }
    void* p = mmap(nullptr, bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw Error("cannot reserve address space for a matrix");
    data_ = static_cast<T*>(p);
    reserved_ = true;
  }
  ~HostMatrix() {
    if (reserved_) munmap(data_, bytes_);
  }
  HostMatrix(const HostMatrix&) = delete;
  HostMatrix& operator=(const HostMatrix&) = delete;
  T* data() { return data_; }
  bool backed() const { return !reserved_; }

 private:
  std::size_t bytes_;
  CacheLineVector<T> storage_;  // columns on cache lines when the leading dimension allows
  T* data_ = nullptr;
  bool reserved_ = false;
};

}  // namespace conveyor::apps::common
