/* Stencil (seed 002): a 130 x 130 byte grid (128 x 128 interior, fixed border) smoothed ITERS
 * times; the interior is split into W x H blocks, one per node, and only the halos move: rows
 * with one PUT each, columns packed first. Every node checks its block against a reference it
 * computes alone from the initial grid (its block plus ITERS cells around it). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mcore.h"

#ifndef ITERS
#define ITERS 8
#endif
#define G 130
#define MAXB 128
#define REF (MAXB + 2 * ITERS + 2)

static uint8_t grid[2][MAXB + 2][MAXB + 2];
static uint8_t pack_w[MAXB], pack_e[MAXB];
static uint8_t from_w[2][MAXB], from_e[2][MAXB]; /* by iteration parity */
static uint8_t ref[2][REF][REF];
static int32_t verdict[2];
static int32_t verdicts[1024][2];

static uint8_t initial(int gy, int gx) { return (uint8_t)((gy * 7 + gx * 13 + (gx * gy) % 11) & 0xff); }
static uint8_t smooth(uint8_t c, uint8_t n, uint8_t s, uint8_t w, uint8_t e) {
  return (uint8_t)((4 * c + n + s + w + e) / 8);
}

int main(void) {
  const int id = MC_node_id(), W = MC_width(), H = MC_height();
  if (128 % W || 128 % H) {
    if (id == 0) printf("stencil: FAIL (128 must divide by the mesh %dx%d)\n", W, H);
    return 1;
  }
  const int bx = 128 / W, by = 128 / H, px = id % W, py = id / W;
  const int gy0 = py * by, gx0 = px * bx; /* global coordinates of local (0,0), the halo corner */
  for (int b = 0; b < 2; ++b)
    for (int y = 0; y < by + 2; ++y)
      for (int x = 0; x < bx + 2; ++x) grid[b][y][x] = initial(gy0 + y, gx0 + x);
  const int north = py > 0 ? id - W : -1, south = py + 1 < H ? id + W : -1;
  const int west = px > 0 ? id - 1 : -1, east = px + 1 < W ? id + 1 : -1;
  MC_barrier();
  MC_roi_begin();
  for (int it = 0; it < ITERS; ++it) {
    const int c = it & 1, n = c ^ 1;
    for (int y = 0; y < by; ++y) {
      pack_w[y] = grid[c][y + 1][1];
      pack_e[y] = grid[c][y + 1][bx];
    }
    if (north >= 0) MC_dma_put(north, &grid[c][by + 1][1], &grid[c][1][1], (uint32_t)bx);
    if (south >= 0) MC_dma_put(south, &grid[c][0][1], &grid[c][by][1], (uint32_t)bx);
    if (west >= 0) MC_dma_put(west, from_e[c], pack_w, (uint32_t)by);
    if (east >= 0) MC_dma_put(east, from_w[c], pack_e, (uint32_t)by);
    MC_barrier();
    for (int y = 0; y < by; ++y) {
      if (west >= 0) grid[c][y + 1][0] = from_w[c][y];
      if (east >= 0) grid[c][y + 1][bx + 1] = from_e[c][y];
    }
    for (int y = 1; y <= by; ++y)
      for (int x = 1; x <= bx; ++x)
        grid[n][y][x] = smooth(grid[c][y][x], grid[c][y - 1][x], grid[c][y + 1][x],
                               grid[c][y][x - 1], grid[c][y][x + 1]);
  }
  MC_roi_end();
  /* Reference: the region [gy0-ITERS, gy0+by+1+ITERS] clipped to the grid, smoothed alone. */
  int ry0 = gy0 - ITERS < 0 ? 0 : gy0 - ITERS, rx0 = gx0 - ITERS < 0 ? 0 : gx0 - ITERS;
  int ry1 = gy0 + by + 1 + ITERS > G - 1 ? G - 1 : gy0 + by + 1 + ITERS;
  int rx1 = gx0 + bx + 1 + ITERS > G - 1 ? G - 1 : gx0 + bx + 1 + ITERS;
  for (int y = ry0; y <= ry1; ++y)
    for (int x = rx0; x <= rx1; ++x) ref[0][y - ry0][x - rx0] = ref[1][y - ry0][x - rx0] = initial(y, x);
  for (int it = 0; it < ITERS; ++it) {
    const int c = it & 1, n = c ^ 1;
    for (int y = ry0 + 1; y < ry1; ++y)
      for (int x = rx0 + 1; x < rx1; ++x) {
        if (y == 0 || x == 0 || y == G - 1 || x == G - 1) continue;
        int ly = y - ry0, lx = x - rx0;
        ref[n][ly][lx] = smooth(ref[c][ly][lx], ref[c][ly - 1][lx], ref[c][ly + 1][lx],
                                ref[c][ly][lx - 1], ref[c][ly][lx + 1]);
      }
  }
  int errors = 0;
  const int last = ITERS & 1;
  for (int y = 1; y <= by; ++y)
    for (int x = 1; x <= bx; ++x)
      errors += grid[last][y][x] != ref[last][gy0 + y - ry0][gx0 + x - rx0];
  verdict[0] = errors;
  verdict[1] = 1;
  MC_dma_put(0, verdicts[id], verdict, sizeof(verdict));
  MC_barrier();
  if (id == 0) {
    int total = 0, seen = 0, p = W * H;
    for (int i = 0; i < p; ++i) total += verdicts[i][0], seen += verdicts[i][1];
    int ok = total == 0 && seen == p;
    printf("stencil: %s (%dx%d grid, %d iterations, %dx%d blocks, %d errors)\n", ok ? "PASS" : "FAIL",
           G, G, ITERS, bx, by, total);
    return !ok;
  }
  return errors != 0;
}
