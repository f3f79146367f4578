/* Pipeline (seed 002): node i receives a 128 B array from node i-1, processes it and sends it to
 * node i+1 with a blocking PUT, for ITEMS arrays in a row. As in the seed the processing is one
 * light pass over the array, done straight from the inbox into the send buffer `work`, so that
 * the transfer is a sizeable part of each stage. Arrays land in a ring of SLOTS inbox slots; the
 * receiver acknowledges each array (a 4-byte PUT back) once it has read it, so that the sender
 * never overwrites a slot that is still in use.
 *
 * With the store buffer both kinds of stores the seed names wait there during a blocking PUT:
 * the processing of array t+1 writes `work`, which the PUT of array t may still be reading (data
 * stores), and the PUT of array t+1 is requested right behind the acknowledgement PUT (request
 * stores, which wait for the earlier transfer). The last node checks every array. */
#include <stdint.h>
#include <stdio.h>

#include "mcore.h"

#ifndef ITEMS
#define ITEMS 64
#endif
#ifndef SLOTS
#define SLOTS 4
#endif
#define N 32 /* 32 x 4 B = 128 B */

typedef struct {
  int32_t data[N];
  uint32_t seq; /* last word: arrives last, so it says the data is complete */
} Message;

static Message work;
static volatile Message inbox[SLOTS];
static volatile uint32_t acked; /* written by the next node: last item it took */
static uint32_t ack_word;
static int32_t results[ITEMS][N];

static int32_t stage(int32_t x, int node) { return (int32_t)((uint32_t)x * 3u + (uint32_t)node); }

int main(void) {
  const int id = MC_node_id(), p = MC_nodes();
  MC_barrier();
  MC_roi_begin();
  for (uint32_t t = 1; t <= ITEMS; ++t) {
    if (id == 0) {
      for (int k = 0; k < N; ++k) work.data[k] = stage((int32_t)(t * 100 + k), id);
    } else {
      volatile Message* in = &inbox[t % SLOTS];
      while (in->seq != t) {
      }
      __asm__ volatile("" ::: "memory"); /* the data arrived before seq: plain loads from here */
      const int32_t* data = (const int32_t*)in->data;
      for (int k = 0; k < N; ++k) work.data[k] = stage(data[k], id);
      ack_word = t; /* the slot is read: the previous node may reuse it */
      MC_dma_put(id - 1, (void*)&acked, &ack_word, sizeof(ack_word));
    }
    if (id + 1 < p) {
      while (acked + SLOTS < t) {
      }
      work.seq = t;
      MC_dma_put(id + 1, (void*)&inbox[t % SLOTS], &work, sizeof(work));
    } else {
      /* The last stage keeps the array for the check with a PUT to itself, so that it does the
       * same work as the others and is not the pipeline's bottleneck. */
      MC_dma_put(id, results[t - 1], work.data, sizeof(work.data));
    }
  }
  MC_roi_end();
  MC_barrier();
  if (id + 1 == p) {
    /* The p stages compose to x -> 3^p x + c with c = sum_i i 3^(p-1-i) (mod 2^32). */
    uint32_t scale = 1, offset = 0;
    for (int i = 0; i < p; ++i) {
      scale *= 3u;
      offset = offset * 3u + (uint32_t)i;
    }
    int errors = 0;
    for (uint32_t t = 1; t <= ITEMS; ++t)
      for (int k = 0; k < N; ++k)
        errors += (uint32_t)results[t - 1][k] != scale * (t * 100u + (uint32_t)k) + offset;
    printf("pipeline: %s (%d items of %d B through %d nodes, %d errors)\n",
           errors ? "FAIL" : "PASS", ITEMS, (int)sizeof(work.data), p, errors);
    return errors != 0;
  }
  return 0;
}
