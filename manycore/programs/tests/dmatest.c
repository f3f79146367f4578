/* DMA semantics under every store-buffer configuration: blocking PUT followed by stores to the
 * sent buffer (the data must leave before the stores land), blocking GET followed by loads and
 * stores to the destination, non-blocking transfers with wait, and main memory. Prints PASS or
 * FAIL from node 0 and exits non-zero on any error. */
#include <stdint.h>
#include <stdio.h>

#include "mcore.h"

#define N 64
static int32_t buf[N];
static int32_t inbox[N];
static int32_t got[N];
static int32_t scratch[N];
static int32_t nowait_in[N];
static uint32_t result[2];
static uint32_t results[256][2];

static int32_t value(int node, int round, int k) { return node * 100000 + round * 1000 + k; }

int main(void) {
  int id = MC_node_id(), p = MC_nodes();
  int next = (id + 1) % p, prev = (id + p - 1) % p;
  int errors = 0;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < N; ++k) buf[k] = value(id, round, k);
    MC_dma_put(next, inbox, buf, sizeof(buf));
    /* Overwrite the buffer at once: the receiver must still see this round's values. */
    for (int k = 0; k < N; ++k) buf[k] = -1;
    MC_barrier();
    for (int k = 0; k < N; ++k) errors += inbox[k] != value(prev, round, k);
    /* Read back from the next node what we sent it, then use it at once. Two PUTs first, so that
     * with a store buffer the second one's request stores and the store to got[] behind them
     * still wait when the GET is issued: that older store must land before the GET's data. */
    MC_dma_put(next, scratch, buf, sizeof(buf));
    MC_dma_put(next, scratch, buf, sizeof(buf));
    got[N - 1] = -5;
    MC_dma_get(next, got, inbox, sizeof(got));
    int32_t sum = 0;
    for (int k = 0; k < N; ++k) sum += got[k] - value(id, round, k);
    errors += sum != 0;
    got[0] = 7;
    errors += got[0] != 7;
    MC_barrier();
  }
  /* Non-blocking both ways, then main memory. */
  for (int k = 0; k < N; ++k) buf[k] = value(id, 9, k);
  MC_dma_put_nowait(next, nowait_in, buf, sizeof(buf));
  MC_dma_wait();
  MC_barrier();
  for (int k = 0; k < N; ++k) errors += nowait_in[k] != value(prev, 9, k);
  int mem = MC_mem_node();
  MC_dma_put(mem, (void*)(uintptr_t)(id * sizeof(buf)), buf, sizeof(buf));
  MC_barrier();
  MC_dma_get_nowait(mem, got, (void*)(uintptr_t)(next * sizeof(buf)), sizeof(got));
  MC_dma_wait();
  for (int k = 0; k < N; ++k) errors += got[k] != value(next, 9, k);
  result[0] = (uint32_t)errors;
  result[1] = 1;
  MC_dma_put(0, results[id], result, sizeof(result));
  MC_barrier();
  if (id == 0) {
    int total = 0, seen = 0;
    for (int i = 0; i < p; ++i) {
      total += (int)results[i][0];
      seen += (int)results[i][1];
    }
    printf("dmatest: %s (%d errors, %d/%d nodes)\n", total == 0 && seen == p ? "PASS" : "FAIL",
           total, seen, p);
    return total == 0 && seen == p ? 0 : 1;
  }
  return errors != 0;
}
