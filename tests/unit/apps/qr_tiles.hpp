#pragma once
// Column-major test tiles for the QR kernel tests (test_qr_kernels.cpp,
// test_qr_device_kernels.cpp): a leading dimension larger than the rows, so that a kernel that
// ignores it reads the padding.
#include <cstddef>
#include <random>
#include <vector>

namespace conveyor::apps::qr {

template <typename T>
struct Tile {
  int rows, cols, ld;
  std::vector<T> v;
  Tile(int r, int c, int pad = 3) : rows(r), cols(c), ld(r + pad), v(std::size_t(ld) * c, T(0)) {}
  T& operator()(int i, int j) { return v[std::size_t(i) + std::size_t(j) * ld]; }
  T* data() { return v.data(); }
};

/// Entries uniform in [-1, 1); the padding stays zero.
template <typename T>
Tile<T> random_tile(int r, int c, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Tile<T> t(r, c);
  for (int j = 0; j < c; ++j)
    for (int i = 0; i < r; ++i) t(i, j) = T(u(rng));
  return t;
}

}  // namespace conveyor::apps::qr
