#pragma once
/// A buffer's dimensions (std::size_t) as the int that BLAS, LAPACK and the device kernels take,
/// and as the double of the flop counts. Tiles are far below INT_MAX elements a side.
#include <cstddef>

namespace conveyor::apps::common {

inline int as_int(std::size_t v) { return static_cast<int>(v); }
inline double as_double(std::size_t v) { return static_cast<double>(v); }

}  // namespace conveyor::apps::common
