// A matrix partitioned into tiles without copying: each tile is a view with the matrix's leading
// dimension, and tasks on different tiles run in parallel.
#include <conveyor/conveyor.hpp>
#include <cstdio>
#include <vector>

int main() {
  conveyor::Runtime rt;
  const std::size_t n = 512, tile = 128;
  std::vector<double> a(n * n, 1.0);  // column-major, leading dimension n
  conveyor::Data m = rt.register_matrix(a.data(), n, n, n, "a");
  conveyor::TileGrid tiles = rt.partition(m, tile, tile);

  conveyor::Codelet add_index("add_index");
  add_index.cpu([](const conveyor::TaskContext& t) {
    const conveyor::Buffer& b = t.buffer(0);
    double value = t.args<double>();
    for (std::size_t j = 0; j < b.cols; ++j)
      for (std::size_t i = 0; i < b.rows; ++i) t.data<double>(0)[i + j * b.ld] += value;
  });
  for (std::size_t j = 0; j < tiles.grid_cols; ++j)
    for (std::size_t i = 0; i < tiles.grid_rows; ++i) {
      double value = static_cast<double>(i + 10 * j);
      rt.submit(add_index, {{tiles.at(i, j), conveyor::Access::ReadWrite}}, 0, {},
                std::as_bytes(std::span(&value, 1)));
    }
  rt.unpartition(tiles);  // tiles unregistered; a is whole again
  double corner = a[(n - 1) + (n - 1) * n];
  std::printf("a[n-1][n-1] = %g\n", corner);
  return corner == 1.0 + 3 + 30 ? 0 : 1;
}
