// The small value constructors of the C interface. They only pack: the tasklet that uses a
// descriptor checks it, so that a bad one is reported with the call that has a status to return.
#include "conveyor/conveyor.h"

extern "C" {

conveyor_map_desc conveyor_make_map_desc(void* host_ptr, size_t offset, size_t size,
                                         int direction) {
  return conveyor_map_desc{host_ptr, offset, size, direction};
}

conveyor_arg conveyor_arg_map(int map_index) { return conveyor_arg{map_index, nullptr, 0}; }

conveyor_arg conveyor_arg_value(const void* value, size_t size) {
  return conveyor_arg{-1, value, size};
}

}  // extern "C"
