/* Bitonic sort (seed 002): 40 KB of 32-bit keys (10240) spread evenly over the nodes. Each node
 * sorts its keys, then for every step of the bitonic network exchanges its whole block with its
 * partner (blocking PUT into a double buffer), meets the others at a barrier and keeps the lower
 * or upper half of the merge. Node 0 checks the result: each block sorted, blocks in order, and
 * the same sum and xor as the keys generated.
 * Built with -DUSE_GET (bitonic_get.elf) it pulls the partner's block with a blocking GET after
 * the barrier instead: the receiving side the seed leaves to future work (--watch-get). */
#include <stdint.h>
#include <stdio.h>

#include "mcore.h"

#define TOTAL 10240 /* 40 KB */
#ifdef USE_GET
#define NAME "bitonic_get"
#else
#define NAME "bitonic"
#endif
#define MAX_NODES 256

static int32_t keys_a[TOTAL], keys_b[TOTAL];
static int32_t incoming[2][TOTAL];
static int32_t summary[4];
static int32_t summaries[MAX_NODES][4];

static uint32_t key_state;
static int32_t next_key(void) {
  key_state = key_state * 1664525u + 1013904223u;
  return (int32_t)(key_state >> 1) - (1 << 30);
}

static void sort(int32_t* v, int n) { /* shell sort, Ciura gaps */
  static const int gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (int g = 0; g < 8; ++g)
    for (int i = gaps[g]; i < n; ++i) {
      int32_t x = v[i];
      int j = i;
      for (; j >= gaps[g] && v[j - gaps[g]] > x; j -= gaps[g]) v[j] = v[j - gaps[g]];
      v[j] = x;
    }
}

int main(void) {
  const int id = MC_node_id(), p = MC_nodes();
  if (p > MAX_NODES || (p & (p - 1)) || TOTAL % p) {
    if (id == 0) printf("bitonic: FAIL (needs a power-of-two node count up to %d)\n", MAX_NODES);
    return 1;
  }
  const int n = TOTAL / p;
  key_state = 12345u + (uint32_t)id * 7777u;
  int32_t* keys = keys_a;
  int32_t* other = keys_b;
  for (int i = 0; i < n; ++i) keys[i] = next_key();
  MC_barrier();
  MC_roi_begin();
  sort(keys, n);
  int step = 0;
  for (int k = 2; k <= p; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1, ++step) {
      const int partner = id ^ j, parity = step & 1;
      const int ascending = (id & k) == 0;
      const int keep_low = (id < partner) == ascending;
#ifdef USE_GET
      MC_barrier(); /* every block of this step is final; all nodes use the same array */
      MC_dma_get(partner, incoming[parity], keys, (uint32_t)n * 4);
#else
      MC_dma_put(partner, incoming[parity], keys, (uint32_t)n * 4);
      MC_barrier();
#endif
      const int32_t* in = incoming[parity];
      if (keep_low) {
        int x = 0, y = 0;
        for (int o = 0; o < n; ++o) other[o] = (y >= n || keys[x] <= in[y]) ? keys[x++] : in[y++];
      } else {
        int x = n - 1, y = n - 1;
        for (int o = n - 1; o >= 0; --o) other[o] = (y < 0 || keys[x] >= in[y]) ? keys[x--] : in[y--];
      }
      int32_t* t = keys;
      keys = other;
      other = t;
    }
  MC_roi_end();
  int32_t sum = 0, xr = 0, sorted = 1;
  for (int i = 0; i < n; ++i) {
    sum += keys[i];
    xr ^= keys[i];
    if (i && keys[i - 1] > keys[i]) sorted = 0;
  }
  summary[0] = sum;
  summary[1] = xr;
  summary[2] = sorted ? keys[0] : 1;
  summary[3] = sorted ? keys[n - 1] : 0;
  if (!sorted) summary[2] = 1, summary[3] = 0; /* first > last flags an unsorted block */
  MC_dma_put(0, summaries[id], summary, sizeof(summary));
  MC_barrier();
  if (id == 0) {
    int32_t gsum = 0, gxor = 0, rsum = 0, rxor = 0;
    for (int node = 0; node < p; ++node) {
      key_state = 12345u + (uint32_t)node * 7777u;
      for (int i = 0; i < n; ++i) {
        int32_t v = next_key();
        gsum += v;
        gxor ^= v;
      }
    }
    int ok = 1;
    for (int node = 0; node < p; ++node) {
      rsum += summaries[node][0];
      rxor ^= summaries[node][1];
      if (summaries[node][2] > summaries[node][3]) ok = 0;
      if (node && summaries[node - 1][3] > summaries[node][2]) ok = 0;
    }
    ok = ok && rsum == gsum && rxor == gxor;
    printf("%s: %s (%d keys, %d B, %d per node, %d steps)\n", NAME, ok ? "PASS" : "FAIL", TOTAL,
           TOTAL * 4, n, step);
    return !ok;
  }
  return 0;
}
