#pragma once
/// How a task uses a piece of registered data. The runtime infers the order of tasks from these
/// modes in submission order (read-after-write, write-after-read, write-after-write), as OpenMP
/// `depend(in/out/inout)` does, and moves the data to where the task runs.
///
///   rt.submit(axpy, {{x, conveyor::Access::Read}, {y, conveyor::Access::ReadWrite}});
#include <cstdint>
#include <string_view>

namespace conveyor {

enum class Access : std::uint8_t {
  Read,      ///< the task reads the data; tasks that only read the same data may run at once
  Write,     ///< the task overwrites all of it; its old contents are not copied to the task
  ReadWrite  ///< the task reads and updates it
};

/// "read", "write", "readwrite".
std::string_view to_string(Access mode);
/// Whether the task needs the current contents (Read, ReadWrite).
constexpr bool reads(Access mode) { return mode != Access::Write; }
/// Whether the task changes the contents (Write, ReadWrite).
constexpr bool writes(Access mode) { return mode != Access::Read; }

}  // namespace conveyor
