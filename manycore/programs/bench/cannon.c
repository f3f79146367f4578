/* Matrix multiply, Cannon's algorithm (seed 002): C = A x B with 128 x 128 byte matrices on a
 * q x q mesh. Each node starts with its pre-skewed blocks, and at every step sends its A block
 * left and its B block up (blocking PUTs into double buffers), multiplies the blocks it holds,
 * and meets the others at a barrier. Every node checks its C block against a direct product. */
#include <stdint.h>
#include <stdio.h>

#include "mcore.h"

#define M 128
#define MAXB 128

static uint8_t a_blk[2][MAXB * MAXB], b_blk[2][MAXB * MAXB];
static uint32_t c_blk[MAXB * MAXB];
static int32_t verdict[2];
static int32_t verdicts[1024][2];

static uint8_t a_at(int i, int k) { return (uint8_t)(i * 3 + k * 7 + 1); }
static uint8_t b_at(int k, int j) { return (uint8_t)(k * 5 + j * 11 + 3); }

int main(void) {
  const int id = MC_node_id(), q = MC_width();
  if (MC_height() != q || M % q) {
    if (id == 0) printf("cannon: FAIL (needs a square mesh whose side divides %d)\n", M);
    return 1;
  }
  const int nb = M / q, row = id / q, col = id % q;
  const int left = row * q + (col + q - 1) % q, up = ((row + q - 1) % q) * q + col;
  const int ak = (col + row) % q, bk = (row + col) % q; /* skewed block columns / rows */
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      a_blk[0][i * nb + j] = a_at(row * nb + i, ak * nb + j);
      b_blk[0][i * nb + j] = b_at(bk * nb + i, col * nb + j);
      c_blk[i * nb + j] = 0;
    }
  const uint32_t bytes = (uint32_t)(nb * nb);
  MC_barrier();
  MC_roi_begin();
  for (int s = 0; s < q; ++s) {
    const int c = s & 1, n = c ^ 1;
    if (s + 1 < q) {
      MC_dma_put(left, a_blk[n], a_blk[c], bytes);
      MC_dma_put(up, b_blk[n], b_blk[c], bytes);
    }
    const uint8_t* a = a_blk[c];
    const uint8_t* b = b_blk[c];
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j) {
        uint32_t sum = c_blk[i * nb + j];
        for (int k = 0; k < nb; ++k) sum += (uint32_t)a[i * nb + k] * b[k * nb + j];
        c_blk[i * nb + j] = sum;
      }
    MC_barrier();
  }
  MC_roi_end();
  int errors = 0;
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      uint32_t sum = 0;
      for (int k = 0; k < M; ++k) sum += (uint32_t)a_at(row * nb + i, k) * b_at(k, col * nb + j);
      errors += c_blk[i * nb + j] != sum;
    }
  verdict[0] = errors;
  verdict[1] = 1;
  MC_dma_put(0, verdicts[id], verdict, sizeof(verdict));
  MC_barrier();
  if (id == 0) {
    int total = 0, seen = 0;
    for (int i = 0; i < q * q; ++i) total += verdicts[i][0], seen += verdicts[i][1];
    int ok = total == 0 && seen == q * q;
    printf("cannon: %s (%dx%d x %dx%d bytes, %dx%d blocks, %d errors)\n", ok ? "PASS" : "FAIL", M, M,
           M, M, nb, nb, total);
    return !ok;
  }
  return errors != 0;
}
