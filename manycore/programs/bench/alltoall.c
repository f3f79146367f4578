/* All to All (seed 002): every node generates a 128 B array for each other node and sends it
 * with a blocking PUT, reusing one send buffer, ROUNDS times. Generating the next array writes
 * the buffer the previous PUT is still reading: the store buffer holds those stores until the
 * DMA has read past them. Every node checks what it received. */
#include <stdint.h>
#include <stdio.h>

#include "mcore.h"

#ifndef ROUNDS
#define ROUNDS 4
#endif
#define N 32 /* 128 B */
#define MAX_NODES 256

static int32_t sendbuf[N];
static int32_t recvbuf[MAX_NODES][N];
static int32_t verdict[2];
static int32_t verdicts[MAX_NODES][2];

static int32_t gen(int src, int dst, int k, int round) {
  return src * 7919 + dst * 104729 + k * 31 + round * 1000003;
}

int main(void) {
  const int id = MC_node_id(), p = MC_nodes();
  if (p > MAX_NODES) {
    if (id == 0) printf("alltoall: FAIL (at most %d nodes)\n", MAX_NODES);
    return 2;
  }
  MC_barrier();
  MC_roi_begin();
  for (int round = 0; round < ROUNDS; ++round) {
    for (int r = 1; r < p; ++r) {
      int dst = (id + r) % p; /* staggered, so that no node is everyone's first target */
      for (int k = 0; k < N; ++k) sendbuf[k] = gen(id, dst, k, round);
      MC_dma_put(dst, recvbuf[id], sendbuf, sizeof(sendbuf));
    }
    MC_barrier();
  }
  MC_roi_end();
  int errors = 0;
  for (int src = 0; src < p; ++src)
    if (src != id)
      for (int k = 0; k < N; ++k) errors += recvbuf[src][k] != gen(src, id, k, ROUNDS - 1);
  verdict[0] = errors;
  verdict[1] = 1;
  MC_dma_put(0, verdicts[id], verdict, sizeof(verdict));
  MC_barrier();
  if (id == 0) {
    int total = 0, seen = 0;
    for (int i = 0; i < p; ++i) total += verdicts[i][0], seen += verdicts[i][1];
    int ok = total == 0 && seen == p;
    printf("alltoall: %s (%d nodes x %d B x %d rounds, %d errors)\n", ok ? "PASS" : "FAIL", p,
           (int)sizeof(sendbuf), ROUNDS, total);
    return !ok;
  }
  return errors != 0;
}
