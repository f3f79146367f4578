/* Timing probe for the simulator's run-ahead (tests/unit/manycore/test_run_ahead.cpp): the exact cycle
 * at which a polling core first sees a PUT's data, and the exact value a GET reads from memory
 * the remote core is writing, each for 40 different issue phases. Node 1 prints two checksums
 * that change if either moves by one cycle. Needs at least 2 nodes. */
#include <stdint.h>
#include <stdio.h>

#include "mcore.h"

#define ROUNDS 40

static volatile uint32_t box;     /* node 1: where node 0 PUTs the round number */
static volatile uint32_t counter; /* node 0: rewritten every iteration while node 1 GETs it */
static uint32_t word, got;

/* About 2 cycles per step, so that successive rounds issue at every phase of any short period. */
static void delay(uint32_t steps) {
  for (uint32_t d = 0; d < steps; ++d) __asm__ volatile("");
}

int main(void) {
  const int id = MC_node_id();
  uint32_t spins_sum = 0, got_sum = 0;
  if (MC_nodes() < 2) return 1;
  for (uint32_t r = 1; r <= ROUNDS; ++r) {
    MC_barrier();
    if (id == 0) {
      delay(r);
      word = r;
      MC_dma_put(1, (void*)&box, &word, sizeof word);
    } else if (id == 1) {
      uint32_t spins = 0;
      delay(r * 7 % 5); /* and polls at every phase too */
      while (box != r) ++spins;
      spins_sum = spins_sum * 31u + spins;
    }
    MC_barrier();
    if (id == 0) {
      for (uint32_t k = 0; k < 300; ++k) counter = k;
    } else if (id == 1) {
      delay(r);
      MC_dma_get(0, &got, (const void*)&counter, sizeof got);
      got_sum = got_sum * 31u + got;
    }
  }
  MC_barrier();
  if (id == 1) printf("timing: spins %08x got %08x\n", (unsigned)spins_sum, (unsigned)got_sum);
  return 0;
}
